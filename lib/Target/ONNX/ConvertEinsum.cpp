//===- ConvertEinsum.cpp - ONNX Einsum as transposes and a matmul ---------===//
//
// PyTorch exports `torch.einsum` as ONNX Einsum; MONAI's self-attention
// block (UNETR, SwinUNETR) computes its scores and its weighted values with
// it ("blxd,blyd->blxy", "bhxy,bhyd->bhxd"). Every two-operand contraction
// without repeated letters is a batched matrix product once the axes are
// ordered: batch letters (in both operands and the result), free letters
// of each operand (in the result only beside it) and contracted letters
// (in both operands, not in the result). The importer builds it from
// tg.transpose, tg.reshape and tg.matmul, whose gradients exist, after
// tg.reduce_sum of the letters only one operand has and the result lacks.
// One-operand equations that only permute become a tg.transpose.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "OnnxAttributes.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace memopt;
using namespace memopt::onnx_import;

namespace {

/// An equation split into its operands' letters and the result's.
struct Equation {
  std::vector<std::string> operands;
  std::string result;
};

/// Parses `equation`; the implicit form (no "->") has the letters that
/// occur once, in alphabetical order, as its result.
FailureOr<Equation> parseEquation(StringRef text, std::string &error) {
  std::string compact;
  for (char c : text)
    if (c != ' ')
      compact.push_back(c);
  if (StringRef(compact).contains("...")) {
    error = "equations with '...' (broadcast axes) are not supported; "
            "write every axis as a letter";
    return failure();
  }
  Equation eq;
  auto [lhs, rhs] = StringRef(compact).split("->");
  SmallVector<StringRef> parts;
  lhs.split(parts, ',');
  for (StringRef part : parts)
    eq.operands.push_back(part.str());
  bool explicitResult = StringRef(compact).contains("->");
  if (explicitResult) {
    eq.result = rhs.str();
  } else {
    std::string all;
    for (const std::string &op : eq.operands)
      all += op;
    for (char c = 'A'; c <= 'z'; ++c)
      if (llvm::count(all, c) == 1)
        eq.result.push_back(c);
  }
  for (const std::string &letters : llvm::concat<const std::string>(
           eq.operands, ArrayRef<std::string>(eq.result))) {
    for (char c : letters) {
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        error = "the equation '" + text.str() + "' has the character '" +
                std::string(1, c) + "', not a letter";
        return failure();
      }
      if (llvm::count(letters, c) != 1) {
        error = "the letter '" + std::string(1, c) + "' repeats within '" +
                letters + "' (a diagonal or trace), which is not supported";
        return failure();
      }
    }
  }
  for (char c : eq.result)
    if (llvm::none_of(eq.operands, [c](const std::string &op) {
          return StringRef(op).contains(c);
        })) {
      error = "the result letter '" + std::string(1, c) + "' is in no operand";
      return failure();
    }
  return eq;
}

/// The positions in `letters` of each letter of `order`.
SmallVector<int64_t> positionsOf(StringRef letters, StringRef order) {
  SmallVector<int64_t> perm;
  for (char c : order)
    perm.push_back(letters.find(c));
  return perm;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

} // namespace

LogicalResult GraphImporter::convertEinsum() {
  std::string error;
  FailureOr<Equation> eq =
      parseEquation(attrString(*node, "equation", ""), error);
  if (failed(eq))
    return nodeError() << error;
  if (eq->operands.size() != static_cast<size_t>(node->input_size()) ||
      eq->operands.size() > 2)
    return nodeError() << "has " << node->input_size()
                       << " inputs and an equation of " << eq->operands.size()
                       << " operands; memopt takes one or two";

  // Each operand with its letters, after summing the letters that neither
  // the other operand nor the result has.
  SmallVector<Value> values;
  std::vector<std::string> letters;
  llvm::StringMap<int64_t> sizes;
  for (auto [i, own] : llvm::enumerate(eq->operands)) {
    FailureOr<Value> x = input(i);
    if (failed(x))
      return failure();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(x->getType()).getShape();
    if (shape.size() != own.size())
      return nodeError() << "operand " << i << " has rank " << shape.size()
                         << " but '" << own << "' names " << own.size()
                         << " axes";
    std::string kept;
    SmallVector<int64_t> summed;
    for (auto [axis, c] : llvm::enumerate(own)) {
      std::string key(1, c);
      auto [it, fresh] = sizes.try_emplace(key, shape[axis]);
      if (!fresh && it->second != shape[axis])
        return nodeError() << "axis '" << c << "' has sizes " << it->second
                           << " and " << shape[axis]
                           << "; broadcasting in Einsum is not supported";
      bool elsewhere = StringRef(eq->result).contains(c) ||
                       (eq->operands.size() == 2 &&
                        StringRef(eq->operands[1 - i]).contains(c));
      if (elsewhere)
        kept.push_back(c);
      else
        summed.push_back(axis);
    }
    Value value = *x;
    if (!summed.empty()) {
      FailureOr<tg::ReduceSumOp> sum = build<tg::ReduceSumOp>(
          {value},
          {builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr(summed)),
           builder.getNamedAttr("keepdims", builder.getBoolAttr(false))});
      if (failed(sum))
        return failure();
      value = *sum;
    }
    values.push_back(value);
    letters.push_back(kept);
  }

  auto transpose = [&](Value value,
                       ArrayRef<int64_t> perm) -> FailureOr<Value> {
    if (isIdentity(perm))
      return value;
    FailureOr<tg::TransposeOp> op = build<tg::TransposeOp>(
        {value},
        {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))});
    return failed(op) ? FailureOr<Value>(failure()) : FailureOr<Value>(*op);
  };
  auto reshape = [&](Value value, ArrayRef<int64_t> shape) -> FailureOr<Value> {
    if (cast<RankedTensorType>(value.getType()).getShape() == shape)
      return value;
    FailureOr<tg::ReshapeOp> op = build<tg::ReshapeOp>(
        {value},
        {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))});
    return failed(op) ? FailureOr<Value>(failure()) : FailureOr<Value>(*op);
  };
  auto sizeOf = [&](StringRef group) {
    int64_t n = 1;
    for (char c : group)
      n *= sizes[std::string(1, c)];
    return n;
  };

  if (values.size() == 1) {
    // What is left after the sums is a permutation of the result.
    FailureOr<Value> out =
        transpose(values[0], positionsOf(letters[0], eq->result));
    return failed(out) ? failure() : define(0, *out);
  }

  StringRef a = letters[0], b = letters[1];
  std::string batch, freeA, freeB, contracted;
  for (char c : a) {
    bool inB = b.contains(c), inResult = StringRef(eq->result).contains(c);
    (inB ? (inResult ? batch : contracted) : freeA).push_back(c);
  }
  for (char c : b)
    if (!a.contains(c))
      freeB.push_back(c);
  int64_t batchSize = sizeOf(batch), m = sizeOf(freeA), n = sizeOf(freeB),
          k = sizeOf(contracted);

  FailureOr<Value> lhs =
      transpose(values[0], positionsOf(a, batch + freeA + contracted));
  if (failed(lhs) || failed(lhs = reshape(*lhs, {batchSize, m, k})))
    return failure();
  FailureOr<Value> rhs =
      transpose(values[1], positionsOf(b, batch + contracted + freeB));
  if (failed(rhs) || failed(rhs = reshape(*rhs, {batchSize, k, n})))
    return failure();
  FailureOr<tg::MatMulOp> product = build<tg::MatMulOp>({*lhs, *rhs}, {});
  if (failed(product))
    return failure();
  std::string produced = batch + freeA + freeB;
  SmallVector<int64_t> shape;
  for (char c : produced)
    shape.push_back(sizes[std::string(1, c)]);
  FailureOr<Value> out = reshape(*product, shape);
  if (failed(out) ||
      failed(out = transpose(*out, positionsOf(produced, eq->result))))
    return failure();
  return define(0, *out);
}
