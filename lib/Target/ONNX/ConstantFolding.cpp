//===- ConstantFolding.cpp - Evaluate ONNX nodes on host tensors ----------===//
//
// Covers the operators PyTorch uses to compute shapes, pads and scales
// (Shape, Gather, Slice, Concat, Cast, arithmetic, ConstantOfShape, ...).
// Tensors here are small, so the code favours clarity over speed.
//
//===----------------------------------------------------------------------===//

#include "ConstantFolding.h"
#include "OnnxAttributes.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallSet.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace memopt::onnx_import;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

int64_t memopt::onnx_import::normalizeSliceAxis(int64_t dim, int64_t &start,
                                                int64_t &end, int64_t step) {
  auto clampIndex = [&](int64_t index, int64_t lo, int64_t hi) {
    if (index < 0)
      index = index < -dim ? -1 : index + dim; // -1 marks "before the start"
    return std::clamp(index, lo, hi);
  };
  if (step > 0) {
    start = clampIndex(start, 0, dim);
    end = clampIndex(end, 0, dim);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  start = clampIndex(start, 0, dim - 1);
  end = clampIndex(end, -1, dim - 1);
  return start > end ? (start - end - step - 1) / (-step) : 0;
}

namespace {
/// `index` normalized to [0, dim); fails with `error` unless it is in
/// [-dim, dim).
bool normalizeIndex(int64_t index, int64_t dim, int64_t &normalized,
                    std::string &error) {
  if (index < -dim || index >= dim) {
    error = "index " + std::to_string(index) + " is outside [" +
            std::to_string(-dim) + ", " + std::to_string(dim) + ")";
    return false;
  }
  normalized = index < 0 ? index + dim : index;
  return true;
}
} // namespace

bool memopt::onnx_import::normalizeGatherIndices(
    const HostTensor &indices, int64_t dim,
    SmallVectorImpl<int64_t> &normalized, std::string &error) {
  normalized.assign(indices.numElements(), 0);
  for (int64_t k = 0, n = indices.numElements(); k < n; ++k)
    if (!normalizeIndex(indices.getInt(k), dim, normalized[k], error)) {
      error += " (position " + std::to_string(k) + " of the indices)";
      return false;
    }
  return true;
}

bool memopt::onnx_import::planGatherND(ArrayRef<int64_t> dataShape,
                                       const HostTensor &indices,
                                       int64_t batchDims, GatherNDPlan &plan,
                                       std::string &error) {
  if (batchDims != 0) {
    error = "batch_dims=" + std::to_string(batchDims) +
            " is not supported (only 0)";
    return false;
  }
  int64_t rank = dataShape.size();
  if (indices.shape.empty()) {
    error = "indices must have rank >= 1 (the last axis holds index tuples)";
    return false;
  }
  plan.depth = indices.shape.back();
  if (plan.depth < 1 || plan.depth > rank) {
    error = "index tuples of length " + std::to_string(plan.depth) +
            " do not fit data of rank " + std::to_string(rank);
    return false;
  }
  plan.indexShape.assign(indices.shape.begin(), indices.shape.end() - 1);
  plan.flat.assign(indices.numElements() / plan.depth, 0);
  for (auto [t, flat] : llvm::enumerate(plan.flat)) {
    for (int64_t j = 0; j < plan.depth; ++j) {
      int64_t component;
      if (!normalizeIndex(indices.getInt(t * plan.depth + j), dataShape[j],
                          component, error)) {
        error += " (component " + std::to_string(j) + " of index tuple " +
                 std::to_string(t) + ")";
        return false;
      }
      flat = flat * dataShape[j] + component;
    }
  }
  return true;
}

namespace {
/// Folding evaluates shape arithmetic and small constants; a tensor bigger
/// than this comes from a corrupted model, not from a shape computation.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

/// Checks the shape of a tensor that folding is about to create.
bool checkFoldedShape(ArrayRef<int64_t> shape, std::string &error) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      error = "folding would create a tensor with dimension " +
              std::to_string(d);
      return false;
    }
    if (d != 0 && n > kMaxFoldedElements / d) {
      error = "folding would create a tensor of more than " +
              std::to_string(kMaxFoldedElements) + " elements";
      return false;
    }
    n *= d;
  }
  return true;
}

/// Builds a tensor of `shape` whose element at each output index is taken
/// from `in` at the flat index `source(outputIndex)`.
HostTensor gatherFrom(const HostTensor &in, ArrayRef<int64_t> shape,
                      const std::function<int64_t(ArrayRef<int64_t>)> &source) {
  HostTensor out;
  out.dtype = in.dtype;
  out.shape.assign(shape.begin(), shape.end());
  int64_t n = out.numElements();
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t from = source(index);
    if (in.isFloat())
      out.floats.push_back(in.floats[from]);
    else
      out.ints.push_back(in.ints[from]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

HostTensor reshaped(HostTensor t, ArrayRef<int64_t> shape) {
  t.shape.assign(shape.begin(), shape.end());
  return t;
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// `data` gathered along `axis` at `indices` (normalized) of shape
/// `indexShape`: ONNX Gather.
HostTensor gatherAlong(const HostTensor &data, int64_t axis,
                       ArrayRef<int64_t> indexShape,
                       ArrayRef<int64_t> indices) {
  int64_t rank = data.shape.size();
  SmallVector<int64_t> shape(data.shape.begin(), data.shape.begin() + axis);
  shape.append(indexShape.begin(), indexShape.end());
  shape.append(data.shape.begin() + axis + 1, data.shape.end());
  auto strides = stridesOf(data.shape);
  auto idxStrides = stridesOf(indexShape);
  int64_t idxRank = indexShape.size();
  return gatherFrom(data, shape, [&](ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (int64_t d = 0; d < axis; ++d)
      flat += index[d] * strides[d];
    int64_t idxFlat = 0;
    for (int64_t d = 0; d < idxRank; ++d)
      idxFlat += index[axis + d] * idxStrides[d];
    flat += indices[idxFlat] * strides[axis];
    for (int64_t d = axis + 1; d < rank; ++d)
      flat += index[d - 1 + idxRank] * strides[d];
    return flat;
  });
}

/// Flat index into a tensor of `inShape` that NumPy broadcasting reads for
/// the element at `outIndex` of the (larger or equal rank) output.
int64_t broadcastSource(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outIndex) {
  size_t offset = outIndex.size() - inShape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < inShape.size(); ++d)
    flat = flat * inShape[d] + (inShape[d] == 1 ? 0 : outIndex[offset + d]);
  return flat;
}

/// Expands every tensor to their common broadcast shape.
bool broadcastAll(ArrayRef<const HostTensor *> tensors,
                  SmallVectorImpl<HostTensor> &expanded, std::string &error) {
  SmallVector<int64_t> shape;
  for (const HostTensor *t : tensors) {
    SmallVector<int64_t> next;
    if (!mlir::OpTrait::util::getBroadcastedShape(shape, t->shape, next)) {
      error = "operand shapes do not broadcast";
      return false;
    }
    shape = next;
  }
  if (!checkFoldedShape(shape, error))
    return false;
  for (const HostTensor *t : tensors)
    expanded.push_back(gatherFrom(*t, shape, [&](ArrayRef<int64_t> index) {
      return broadcastSource(t->shape, index);
    }));
  return true;
}

/// Broadcasts two tensors and combines them element by element.
bool broadcastBinary(const HostTensor &a, const HostTensor &b, int32_t dtype,
                     const std::function<double(double, double)> &floatFn,
                     const std::function<int64_t(int64_t, int64_t)> &intFn,
                     HostTensor &out, std::string &error) {
  SmallVector<HostTensor> ab;
  if (!broadcastAll({&a, &b}, ab, error))
    return false;
  out = HostTensor();
  out.dtype = dtype;
  out.shape = ab[0].shape;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    if (out.isFloat())
      out.floats.push_back(floatFn(ab[0].getDouble(i), ab[1].getDouble(i)));
    else
      out.ints.push_back(intFn(ab[0].getInt(i), ab[1].getInt(i)));
  }
  return true;
}

HostTensor mapUnary(const HostTensor &in,
                    const std::function<double(double)> &floatFn,
                    const std::function<int64_t(int64_t)> &intFn) {
  HostTensor out = in;
  for (double &v : out.floats)
    v = floatFn(v);
  for (int64_t &v : out.ints)
    v = intFn(v);
  return out;
}

HostTensor castTo(const HostTensor &in, int32_t dtype) {
  HostTensor out;
  out.dtype = dtype;
  out.shape = in.shape;
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    if (out.isFloat())
      out.floats.push_back(dtype == onnx::TensorProto::FLOAT
                               ? static_cast<double>(static_cast<float>(in.getDouble(i)))
                               : in.getDouble(i));
    else if (dtype == onnx::TensorProto::BOOL)
      out.ints.push_back(in.getDouble(i) != 0.0);
    else
      out.ints.push_back(in.isFloat() ? static_cast<int64_t>(std::trunc(in.floats[i]))
                                      : in.ints[i]);
  }
  return out;
}

/// Axes given by attribute (older opsets) or by input `inputIndex`.
SmallVector<int64_t> axesOf(const onnx::NodeProto &node,
                            ArrayRef<const HostTensor *> inputs,
                            unsigned inputIndex) {
  if (inputs.size() > inputIndex && inputs[inputIndex])
    return SmallVector<int64_t>(inputs[inputIndex]->ints.begin(),
                                inputs[inputIndex]->ints.end());
  return attrInts(node, "axes", {});
}

bool foldSlice(ArrayRef<const HostTensor *> inputs, HostTensor &out,
               std::string &error) {
  const HostTensor &data = *inputs[0];
  int64_t rank = data.shape.size();
  SmallVector<int64_t> starts(rank, 0), ends(data.shape), steps(rank, 1);
  size_t count = inputs[1]->ints.size();
  auto sameLength = [&](unsigned i) {
    return inputs.size() <= i || !inputs[i] || inputs[i]->ints.size() == count;
  };
  if (!inputs[2] || !sameLength(2) || !sameLength(3) || !sameLength(4)) {
    error = "starts, ends, axes and steps differ in length";
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    int64_t axis = inputs.size() > 3 && inputs[3] ? inputs[3]->ints[i]
                                                  : static_cast<int64_t>(i);
    axis = normalizeAxis(axis, rank);
    if (axis < 0 || axis >= rank) {
      error = "slice axis out of range";
      return false;
    }
    starts[axis] = inputs[1]->ints[i];
    ends[axis] = inputs[2]->ints[i];
    steps[axis] = inputs.size() > 4 && inputs[4] ? inputs[4]->ints[i] : 1;
    if (steps[axis] == 0) {
      error = "slice step must not be 0";
      return false;
    }
  }
  SmallVector<int64_t> shape(rank);
  for (int64_t d = 0; d < rank; ++d)
    shape[d] = normalizeSliceAxis(data.shape[d], starts[d], ends[d], steps[d]);
  auto strides = stridesOf(data.shape);
  out = gatherFrom(data, shape, [&](ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += (starts[d] + index[d] * steps[d]) * strides[d];
    return flat;
  });
  return true;
}

} // namespace

std::optional<SmallVector<int64_t>>
memopt::onnx_import::rebatchedShape(ArrayRef<int64_t> exportIn,
                                    ArrayRef<int64_t> exportOut,
                                    ArrayRef<int64_t> in) {
  if (exportIn.size() != in.size())
    return std::nullopt;
  std::optional<size_t> axis;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == exportIn[d])
      continue;
    if (axis)
      return std::nullopt; // more than the batch changed
    axis = d;
  }
  if (!axis || exportIn[*axis] <= 0 || in[*axis] <= 0)
    return std::nullopt;
  // The elements before the changed axis: an output axis that starts after
  // exactly as many takes the change, scaled as the input axis was.
  int64_t before = 1;
  for (size_t d = 0; d < *axis; ++d)
    before *= exportIn[d];
  int64_t prefix = 1;
  for (size_t q = 0; q < exportOut.size(); ++q) {
    if (prefix == before) {
      __int128 scaled = static_cast<__int128>(exportOut[q]) * in[*axis];
      if (scaled % exportIn[*axis] != 0)
        return std::nullopt;
      SmallVector<int64_t> out(exportOut);
      out[q] = static_cast<int64_t>(scaled / exportIn[*axis]);
      return out;
    }
    if (prefix > before)
      break;
    prefix *= exportOut[q];
  }
  return std::nullopt;
}

ShapeOpResult memopt::onnx_import::resolveShapeOp(
    const onnx::NodeProto &node, ArrayRef<int64_t> inShape,
    ArrayRef<const HostTensor *> inputs, SmallVectorImpl<int64_t> &outShape,
    std::string &error) {
  const std::string &op = node.op_type();
  int64_t rank = inShape.size();
  int64_t count = 1;
  for (int64_t d : inShape)
    count *= d;
  outShape.clear();
  if (op == "Reshape") {
    if (inputs.size() < 2 || !inputs[1])
      return ShapeOpResult::NeedsConstant;
    bool allowZero = attrInt(node, "allowzero", 0) != 0;
    outShape.assign(inputs[1]->ints.begin(), inputs[1]->ints.end());
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < outShape.size(); ++i) {
      if (outShape[i] == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= rank) {
          error = "Reshape copies dimension " + std::to_string(i) +
                  " that its input does not have";
          return ShapeOpResult::Error;
        }
        outShape[i] = inShape[i];
      }
      if (outShape[i] == -1) {
        if (inferred >= 0) {
          error = "Reshape has more than one -1 in its shape";
          return ShapeOpResult::Error;
        }
        inferred = i;
        continue;
      }
      known *= outShape[i];
    }
    if (inferred >= 0) {
      if (known == 0 || count % known != 0) {
        error = "Reshape cannot infer its -1 dimension";
        return ShapeOpResult::Error;
      }
      outShape[inferred] = count / known;
      known *= outShape[inferred];
    }
    if (known != count) {
      error = "Reshape to " + std::to_string(known) + " elements from " +
              std::to_string(count);
      return ShapeOpResult::Error;
    }
    return ShapeOpResult::Resolved;
  }
  if (op == "Flatten") {
    int64_t axis = normalizeAxis(attrInt(node, "axis", 1), rank);
    if (axis < 0 || axis > rank) {
      error = "Flatten axis out of range";
      return ShapeOpResult::Error;
    }
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= inShape[d];
    outShape.assign({outer, outer == 0 ? 0 : count / outer});
    return ShapeOpResult::Resolved;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    if (inputs.size() > 1 && !inputs[1] && node.input_size() > 1 &&
        !node.input(1).empty())
      return ShapeOpResult::NeedsConstant;
    SmallVector<int64_t> axes = axesOf(node, inputs, 1);
    int64_t outRank = op == "Unsqueeze" ? rank + axes.size() : rank;
    for (int64_t &a : axes) {
      a = normalizeAxis(a, outRank);
      if (a < 0 || a >= outRank) {
        error = op + " axis out of range";
        return ShapeOpResult::Error;
      }
    }
    if (llvm::SmallSet<int64_t, 8>(axes.begin(), axes.end()).size() !=
        axes.size()) {
      error = op + " axes repeat an axis";
      return ShapeOpResult::Error;
    }
    if (op == "Unsqueeze") {
      auto src = inShape.begin();
      for (int64_t d = 0; d < outRank; ++d)
        outShape.push_back(llvm::is_contained(axes, d) ? 1 : *src++);
      return ShapeOpResult::Resolved;
    }
    for (int64_t d = 0; d < rank; ++d) {
      bool squeeze = axes.empty() ? inShape[d] == 1 : llvm::is_contained(axes, d);
      if (squeeze && inShape[d] != 1) {
        error = "Squeeze of dimension " + std::to_string(d) + " of size " +
                std::to_string(inShape[d]);
        return ShapeOpResult::Error;
      }
      if (!squeeze)
        outShape.push_back(inShape[d]);
    }
    return ShapeOpResult::Resolved;
  }
  return ShapeOpResult::NotAShapeOp;
}

/// ScatterND: a copy of `data` with the slices that the last axis of
/// `indices` addresses replaced by (or reduced with) `updates`, in index
/// order as the ONNX reference does.
static FoldResult
foldScatterND(const onnx::NodeProto &node, const HostTensor &data,
              const HostTensor &indices, const HostTensor &updates,
              SmallVectorImpl<HostTensor> &outputs, std::string &error) {
  std::string reduction = attrString(node, "reduction", "none");
  int64_t rank = data.shape.size();
  int64_t depth = indices.shape.empty() ? 0 : indices.shape.back();
  if (indices.isFloat() || indices.shape.empty() || depth < 1 || depth > rank) {
    error = "its indices must be integers whose last axis (of length 1 to "
            "the data's rank) addresses the data";
    return FoldResult::Error;
  }
  int64_t slice = 1;
  for (int64_t d = depth; d < rank; ++d)
    slice *= data.shape[d];
  int64_t count = indices.numElements() / depth;
  if (updates.numElements() != count * slice ||
      updates.isFloat() != data.isFloat()) {
    error = "its updates do not match the indices' slices of the data";
    return FoldResult::Error;
  }
  HostTensor out = data;
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < depth; ++d) {
      int64_t index = indices.getInt(i * depth + d);
      if (index < 0)
        index += data.shape[d];
      if (index < 0 || index >= data.shape[d]) {
        error = "index " + std::to_string(indices.getInt(i * depth + d)) +
                " is out of range for an axis of size " +
                std::to_string(data.shape[d]);
        return FoldResult::Error;
      }
      offset = offset * data.shape[d] + index;
    }
    for (int64_t j = 0; j < slice; ++j) {
      int64_t at = offset * slice + j, from = i * slice + j;
      double a = out.getDouble(at), b = updates.getDouble(from);
      double v = reduction == "add"   ? a + b
                 : reduction == "mul" ? a * b
                 : reduction == "max" ? std::max(a, b)
                 : reduction == "min" ? std::min(a, b)
                                      : b;
      if (out.isFloat())
        out.floats[at] = v;
      else
        out.ints[at] = reduction == "none" ? updates.getInt(from)
                                           : static_cast<int64_t>(v);
    }
  }
  outputs.push_back(std::move(out));
  return FoldResult::Folded;
}

FoldResult memopt::onnx_import::foldNode(const onnx::NodeProto &node,
                                         ArrayRef<const HostTensor *> inputs,
                                         SmallVectorImpl<HostTensor> &outputs,
                                         std::string &error) {
  const std::string &op = node.op_type();
  auto in = [&](unsigned i) -> const HostTensor & { return *inputs[i]; };
  auto needInputs = [&](unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      if (i >= inputs.size() || !inputs[i])
        return false;
    return true;
  };
  auto done = [&](HostTensor t) {
    outputs.push_back(std::move(t));
    return FoldResult::Folded;
  };
  auto failWith = [&](const std::string &message) {
    error = message;
    return FoldResult::Error;
  };

  if (op == "Identity" && needInputs(1))
    return done(in(0));

  static const std::map<std::string,
                        std::pair<std::function<double(double, double)>,
                                  std::function<int64_t(int64_t, int64_t)>>>
      binaries = {
          {"Add", {std::plus<double>(), std::plus<int64_t>()}},
          {"Sub", {std::minus<double>(), std::minus<int64_t>()}},
          {"Mul", {std::multiplies<double>(), std::multiplies<int64_t>()}},
          // ONNX integer division truncates toward zero, as C++ does; the
          // cases C++ leaves undefined (and x86 traps on) wrap instead.
          {"Div", {std::divides<double>(),
                   [](int64_t a, int64_t b) -> int64_t {
                     if (b == 0)
                       return 0;
                     if (b == -1)
                       return static_cast<int64_t>(0 -
                                                   static_cast<uint64_t>(a));
                     return a / b;
                   }}},
          {"Pow", {[](double a, double b) { return std::pow(a, b); },
                   [](int64_t a, int64_t b) {
                     return static_cast<int64_t>(std::pow(a, b));
                   }}},
          {"Min", {[](double a, double b) { return std::min(a, b); },
                   [](int64_t a, int64_t b) { return std::min(a, b); }}},
          {"Max", {[](double a, double b) { return std::max(a, b); },
                   [](int64_t a, int64_t b) { return std::max(a, b); }}},
      };
  static const std::map<std::string, std::function<bool(double, double)>>
      comparisons = {
          {"Equal", std::equal_to<double>()},
          {"Less", std::less<double>()},
          {"Greater", std::greater<double>()},
          {"LessOrEqual", std::less_equal<double>()},
          {"GreaterOrEqual", std::greater_equal<double>()},
      };
  // Min and Max are variadic (torch.export writes a one-input Max in the
  // index subgraph of GatherND); the others take two inputs.
  unsigned operandCount = op == "Min" || op == "Max" ? inputs.size() : 2;
  if (auto it = binaries.find(op);
      it != binaries.end() && operandCount >= 1 && needInputs(operandCount)) {
    HostTensor out = in(0);
    for (unsigned i = 1; i < operandCount; ++i) {
      if (out.isFloat() != in(i).isFloat())
        return failWith("operands have different element types");
      HostTensor next;
      if (!broadcastBinary(out, in(i), out.dtype, it->second.first,
                           it->second.second, next, error))
        return FoldResult::Error;
      out = std::move(next);
    }
    return done(std::move(out));
  }
  if (auto it = comparisons.find(op); it != comparisons.end() && needInputs(2)) {
    HostTensor out;
    auto cmp = it->second;
    if (!broadcastBinary(
            castTo(in(0), onnx::TensorProto::DOUBLE),
            castTo(in(1), onnx::TensorProto::DOUBLE), onnx::TensorProto::DOUBLE,
            [&](double a, double b) { return cmp(a, b) ? 1.0 : 0.0; },
            nullptr, out, error))
      return FoldResult::Error;
    return done(castTo(out, onnx::TensorProto::BOOL));
  }
  if (op == "Where" && needInputs(3)) {
    SmallVector<HostTensor> cxy;
    if (!broadcastAll({&in(0), &in(1), &in(2)}, cxy, error))
      return FoldResult::Error;
    HostTensor out = cxy[1];
    for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
      if (cxy[0].getInt(i) != 0)
        continue;
      if (out.isFloat())
        out.floats[i] = cxy[2].getDouble(i);
      else
        out.ints[i] = cxy[2].getInt(i);
    }
    return done(std::move(out));
  }
  if (op == "Mod" && needInputs(2)) {
    if (in(0).isFloat() != in(1).isFloat())
      return failWith("operands have different element types");
    // fmod=1 is C's fmod (the sign of the dividend); fmod=0, which ONNX
    // allows for integers only, Python's % (the sign of the divisor).
    bool cStyle = attrInt(node, "fmod", 0) != 0;
    if (!cStyle && in(0).isFloat())
      return failWith("fmod=0 on floating-point operands; ONNX requires "
                      "fmod=1 there");
    HostTensor out;
    if (!broadcastBinary(
            in(0), in(1), in(0).dtype,
            [](double a, double b) { return std::fmod(a, b); },
            [cStyle](int64_t a, int64_t b) -> int64_t {
              if (b == 0 || b == -1)
                return 0;
              int64_t r = a % b;
              return !cStyle && r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
            },
            out, error))
      return FoldResult::Error;
    return done(std::move(out));
  }
  if (op == "ScatterND" && needInputs(3))
    return foldScatterND(node, in(0), in(1), in(2), outputs, error);
  if (op == "Neg" && needInputs(1))
    return done(mapUnary(in(0), std::negate<double>(), std::negate<int64_t>()));
  if (op == "Abs" && needInputs(1))
    return done(mapUnary(
        in(0), [](double v) { return std::fabs(v); },
        [](int64_t v) { return v < 0 ? -v : v; }));
  // torch.export's integer division (adaptive pooling's window bounds)
  // rounds toward zero as Sign(q) * Floor(Abs(q)).
  if (op == "Sign" && needInputs(1))
    return done(mapUnary(
        in(0), [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; },
        [](int64_t v) -> int64_t { return v > 0 ? 1 : v < 0 ? -1 : 0; }));
  if ((op == "Floor" || op == "Ceil" || op == "Sqrt") && needInputs(1)) {
    std::function<double(double)> fn =
        op == "Floor" ? [](double v) { return std::floor(v); }
        : op == "Ceil" ? [](double v) { return std::ceil(v); }
                       : [](double v) { return std::sqrt(v); };
    return done(mapUnary(in(0), fn, [](int64_t v) { return v; }));
  }
  if (op == "Not" && needInputs(1))
    return done(mapUnary(in(0), [](double v) { return v == 0.0 ? 1.0 : 0.0; },
                         [](int64_t v) -> int64_t { return v == 0; }));
  if (op == "Cast" && needInputs(1))
    return done(castTo(in(0), attrInt(node, "to", onnx::TensorProto::FLOAT)));
  if (op == "Shape" && needInputs(1)) {
    int64_t rank = in(0).shape.size();
    int64_t start = normalizeAxis(attrInt(node, "start", 0), rank);
    int64_t end = normalizeAxis(attrInt(node, "end", rank), rank);
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> dims(in(0).shape.begin() + start,
                              in(0).shape.begin() + end);
    int64_t n = dims.size();
    return done(HostTensor::makeInts({n}, std::move(dims)));
  }
  if (op == "Size" && needInputs(1))
    return done(HostTensor::makeInts({}, {in(0).numElements()}));
  if (op == "ConstantOfShape" && needInputs(1)) {
    SmallVector<int64_t> shape(in(0).ints.begin(), in(0).ints.end());
    if (!checkFoldedShape(shape, error))
      return FoldResult::Error;
    HostTensor value = HostTensor::makeFloats({1}, {0.0});
    if (const onnx::AttributeProto *attr = findAttr(node, "value"))
      if (!readTensorProto(attr->t(), value, error))
        return FoldResult::Error;
    HostTensor out;
    out.dtype = value.dtype;
    out.shape = shape;
    if (value.isFloat())
      out.floats.assign(out.numElements(), value.floats.at(0));
    else
      out.ints.assign(out.numElements(), value.ints.at(0));
    return done(std::move(out));
  }
  if (op == "Range" && needInputs(3)) {
    HostTensor out;
    out.dtype = in(0).dtype;
    double start = in(0).getDouble(0), limit = in(1).getDouble(0),
           delta = in(2).getDouble(0);
    if (delta == 0)
      return failWith("Range delta must not be 0");
    double count = std::max(std::ceil((limit - start) / delta), 0.0);
    if (!(count <= kMaxFoldedElements)) // also NaN
      return failWith("Range would create more than " +
                      std::to_string(kMaxFoldedElements) + " elements");
    int64_t n = static_cast<int64_t>(count);
    out.shape = {n};
    for (int64_t i = 0; i < n; ++i) {
      if (out.isFloat())
        out.floats.push_back(start + i * delta);
      else
        out.ints.push_back(in(0).getInt(0) + i * in(2).getInt(0));
    }
    return done(std::move(out));
  }
  if (op == "Concat" && !inputs.empty() && needInputs(inputs.size())) {
    int64_t rank = in(0).shape.size();
    int64_t axis = normalizeAxis(attrInt(node, "axis", 0), rank);
    if (axis < 0 || axis >= rank)
      return failWith("concat axis out of range");
    HostTensor out;
    out.dtype = in(0).dtype;
    out.shape = in(0).shape;
    out.shape[axis] = 0;
    for (const HostTensor *t : inputs) {
      if (static_cast<int64_t>(t->shape.size()) != rank)
        return failWith("concat inputs differ in rank");
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && t->shape[d] != in(0).shape[d])
          return failWith("concat inputs differ in dimension " +
                          std::to_string(d));
      out.shape[axis] += t->shape[axis];
    }
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= out.shape[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= out.shape[d];
    for (int64_t o = 0; o < outer; ++o) {
      for (const HostTensor *t : inputs) {
        int64_t chunk = t->shape[axis] * inner;
        for (int64_t i = 0; i < chunk; ++i) {
          if (out.isFloat())
            out.floats.push_back(t->getDouble(o * chunk + i));
          else
            out.ints.push_back(t->getInt(o * chunk + i));
        }
      }
    }
    return done(std::move(out));
  }
  if (op == "Gather" && needInputs(2)) {
    const HostTensor &data = in(0), &indices = in(1);
    int64_t rank = data.shape.size();
    int64_t axis = normalizeAxis(attrInt(node, "axis", 0), rank);
    if (axis < 0 || axis >= rank)
      return failWith("gather axis out of range");
    SmallVector<int64_t> normalized;
    if (!normalizeGatherIndices(indices, data.shape[axis], normalized, error))
      return FoldResult::Error;
    return done(gatherAlong(data, axis, indices.shape, normalized));
  }
  if (op == "GatherND" && needInputs(2)) {
    const HostTensor &data = in(0);
    GatherNDPlan plan;
    if (!planGatherND(data.shape, in(1), attrInt(node, "batch_dims", 0), plan,
                      error))
      return FoldResult::Error;
    SmallVector<int64_t> flatShape = {1};
    for (int64_t d = 0; d < plan.depth; ++d)
      flatShape[0] *= data.shape[d];
    flatShape.append(data.shape.begin() + plan.depth, data.shape.end());
    return done(
        gatherAlong(reshaped(data, flatShape), 0, plan.indexShape, plan.flat));
  }
  if (needInputs(1)) {
    SmallVector<int64_t> shape;
    switch (resolveShapeOp(node, in(0).shape, inputs, shape, error)) {
    case ShapeOpResult::Resolved:
      return done(reshaped(in(0), shape));
    case ShapeOpResult::Error:
      return FoldResult::Error;
    case ShapeOpResult::NeedsConstant:
    case ShapeOpResult::NotAShapeOp:
      break;
    }
  }
  if (op == "Expand" && needInputs(2)) {
    SmallVector<int64_t> shape(in(1).ints.begin(), in(1).ints.end());
    if (!checkFoldedShape(shape, error))
      return FoldResult::Error;
    HostTensor ones = HostTensor::makeFloats(shape, {});
    ones.floats.assign(ones.numElements(), 0.0);
    HostTensor out;
    if (!broadcastBinary(in(0), castTo(ones, in(0).dtype), in(0).dtype,
                         [](double a, double) { return a; },
                         [](int64_t a, int64_t) { return a; }, out, error))
      return FoldResult::Error;
    return done(std::move(out));
  }
  if (op == "Transpose" && needInputs(1)) {
    int64_t rank = in(0).shape.size();
    SmallVector<int64_t> perm = attrInts(node, "perm", {});
    if (perm.empty())
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    SmallVector<int64_t> sorted(perm);
    llvm::sort(sorted);
    if (!llvm::equal(sorted, llvm::seq<int64_t>(0, rank)))
      return failWith("perm is not a permutation of the " +
                      std::to_string(rank) + " axes");
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(in(0).shape[p]);
    auto strides = stridesOf(in(0).shape);
    return done(gatherFrom(in(0), shape, [&](ArrayRef<int64_t> index) {
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat += index[d] * strides[perm[d]];
      return flat;
    }));
  }
  if (op == "Slice" && needInputs(3)) {
    HostTensor out;
    if (!foldSlice(inputs, out, error))
      return FoldResult::Error;
    return done(std::move(out));
  }
  return FoldResult::NotFoldable;
}
