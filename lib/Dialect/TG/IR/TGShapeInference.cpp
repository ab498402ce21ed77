//===- TGShapeInference.cpp - Result types of tg ops ----------------------===//
//
// Every tg op infers its result type from its operands and attributes. The
// inference is also where malformed attributes are diagnosed: it runs both
// when the importer builds an op and when the verifier checks one, so a
// message written here reaches the user on either path.
//
//===----------------------------------------------------------------------===//

#include "ShapeHelpers.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace memopt::tg;
using namespace memopt::tg::detail;

namespace {
/// Checks the optional bias of a convolution against its output channels and
/// the element types of input, weight and bias.
LogicalResult checkConvOperands(std::optional<Location> loc,
                                RankedTensorType input, RankedTensorType weight,
                                Value bias, int64_t outChannels) {
  if (!bias)
    return checkSameElementType(loc, {input, weight},
                                "'input', 'weight' and 'bias'");
  FailureOr<RankedTensorType> biasType = rankedOperand(loc, bias, "bias", 1);
  if (failed(biasType))
    return failure();
  if (biasType->getDimSize(0) != outChannels)
    return fail(loc, "'bias' must have " + Twine(outChannels) +
                         " elements, got " + Twine(biasType->getDimSize(0)));
  return checkSameElementType(loc, {input, weight, *biasType},
                              "'input', 'weight' and 'bias'");
}

FailureOr<SmallVector<int64_t>> broadcastShape(std::optional<Location> loc,
                                               RankedTensorType lhs,
                                               RankedTensorType rhs) {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape(), rhs.getShape(),
                                          shape))
    return fail(loc, "operand shapes " + shapeString(lhs.getShape()) + " and " +
                         shapeString(rhs.getShape()) + " do not broadcast");
  return shape;
}

LogicalResult inferBinary(std::optional<Location> loc, Value lhsValue,
                          Value rhsValue, SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> lhs = rankedOperand(loc, lhsValue, "lhs");
  FailureOr<RankedTensorType> rhs = rankedOperand(loc, rhsValue, "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  if (lhs->getElementType() != rhs->getElementType())
    return fail(loc, "'lhs' and 'rhs' must have one element type");
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(loc, *lhs, *rhs);
  if (failed(shape))
    return failure();
  results.push_back(withShape(*lhs, *shape));
  return success();
}

LogicalResult inferReduce(std::optional<Location> loc, Value inputValue,
                          ArrayRef<int64_t> axes, bool keepdims,
                          SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input = rankedOperand(loc, inputValue, "input");
  if (failed(input))
    return failure();
  int64_t rank = input->getRank();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return fail(loc, "reduction axis " + Twine(axis) +
                           " is out of range for rank " + Twine(rank));
    if (i > 0 && axes[i - 1] >= axis)
      return fail(loc, "'axes' must be sorted and distinct");
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = axes.empty() || llvm::is_contained(axes, d);
    if (!reduced)
      shape.push_back(input->getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  results.push_back(withShape(*input, shape));
  return success();
}

/// The result of a data-movement op on `inputValue`: its type with the
/// shape that `shapeOf(input shape)` gives once the input is checked.
template <typename ShapeOf>
LogicalResult inferMoved(std::optional<Location> loc, Value inputValue,
                         SmallVectorImpl<Type> &results, ShapeOf shapeOf) {
  FailureOr<RankedTensorType> input = rankedOperand(loc, inputValue, "input");
  if (failed(input))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = shapeOf(input->getShape());
  if (failed(shape))
    return failure();
  results.push_back(withShape(*input, *shape));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Constants and elementwise
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  if (!adaptor.getValue())
    return fail(loc, "'value' must be an elements attribute");
  results.push_back(adaptor.getValue().getType());
  return success();
}

#define MEMOPT_TG_BINARY_INFERENCE(OP)                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &results) {         \
    return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(), results);      \
  }
MEMOPT_TG_BINARY_INFERENCE(AddOp)
MEMOPT_TG_BINARY_INFERENCE(SubOp)
MEMOPT_TG_BINARY_INFERENCE(MulOp)
MEMOPT_TG_BINARY_INFERENCE(DivOp)
MEMOPT_TG_BINARY_INFERENCE(CompareOp)
#undef MEMOPT_TG_BINARY_INFERENCE

/// Three operands of one element type broadcast together (NumPy rules).
LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  SmallVector<RankedTensorType, 3> types;
  StringRef names[] = {"condition", "on_true", "on_false"};
  for (auto [value, name] : llvm::zip(adaptor.getOperands(), names)) {
    FailureOr<RankedTensorType> type = rankedOperand(loc, value, name);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  if (failed(checkSameElementType(loc, {types[0], types[1], types[2]},
                                  "'condition', 'on_true' and 'on_false'")))
    return failure();
  FailureOr<SmallVector<int64_t>> branches =
      broadcastShape(loc, types[1], types[2]);
  if (failed(branches))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShape(loc, types[0], withShape(types[1], *branches));
  if (failed(shape))
    return failure();
  results.push_back(withShape(types[1], *shape));
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  results.append({*input, *input});
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto operands = spatialOperands(loc, adaptor.getInput(), "input",
                                  adaptor.getWeight(), "weight");
  if (failed(operands))
    return failure();
  auto [input, weight] = *operands;
  FailureOr<SmallVector<int64_t>> shape = convShape(
      loc, input.getShape(), weight.getShape(), adaptor.getStrides(),
      adaptor.getPads(), adaptor.getDilations(), adaptor.getGroups());
  if (failed(shape) || failed(checkConvOperands(loc, input, weight,
                                                adaptor.getBias(), (*shape)[1])))
    return failure();
  results.push_back(withShape(input, *shape));
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto operands = spatialOperands(loc, adaptor.getInput(), "input",
                                  adaptor.getWeight(), "weight");
  if (failed(operands))
    return failure();
  auto [input, weight] = *operands;
  FailureOr<SmallVector<int64_t>> shape = convTransposeShape(
      loc, input.getShape(), weight.getShape(), adaptor.getStrides(),
      adaptor.getPads(), adaptor.getDilations(), adaptor.getOutputPadding(),
      adaptor.getGroups());
  if (failed(shape) || failed(checkConvOperands(loc, input, weight,
                                                adaptor.getBias(), (*shape)[1])))
    return failure();
  results.push_back(withShape(input, *shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input) ||
      failed(checkChannelOperands(
          loc, *input,
          {adaptor.getScale(), adaptor.getBias(), adaptor.getRunningMean(),
           adaptor.getRunningVar()},
          {"scale", "bias", "running_mean", "running_var"})))
    return failure();
  // Compared without dividing: a tensor may have zero channels.
  if (input->getNumElements() < 2 * input->getDimSize(1))
    return fail(loc, "training-mode batch normalization needs more than one "
                     "value per channel");
  Type stats = adaptor.getRunningMean().getType();
  results.append({*input, stats, stats, stats, stats});
  return success();
}

LogicalResult BatchNormInferenceOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input) ||
      failed(checkChannelOperands(loc, *input,
                                  {adaptor.getScale(), adaptor.getBias(),
                                   adaptor.getMean(), adaptor.getVar()},
                                  {"scale", "bias", "mean", "var"})))
    return failure();
  results.push_back(*input);
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

static LogicalResult inferPool(std::optional<Location> loc, Value inputValue,
                               ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations, bool ceilMode,
                               SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input = spatialOperand(loc, inputValue, "input");
  if (failed(input))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = poolShape(
      loc, input->getShape(), kernel, strides, pads, dilations, ceilMode);
  if (failed(shape))
    return failure();
  results.push_back(withShape(*input, *shape));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernel(),
                   adaptor.getStrides(), adaptor.getPads(),
                   adaptor.getDilations(), adaptor.getCeilMode(), results);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernel(),
                   adaptor.getStrides(), adaptor.getPads(),
                   unitDilations(adaptor.getKernel()), adaptor.getCeilMode(),
                   results);
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      spatialOperand(loc, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  SmallVector<int64_t> shape(input->getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  results.push_back(withShape(*input, shape));
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      spatialOperand(loc, adaptor.getInput(), "input");
  if (failed(input) ||
      failed(checkResizeAttrs(loc, adaptor.getSizes(), adaptor.getScales(),
                              input->getRank() - 2)))
    return failure();
  SmallVector<int64_t> shape = {input->getDimSize(0), input->getDimSize(1)};
  llvm::append_range(shape, adaptor.getSizes());
  results.push_back(withShape(*input, shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return fail(loc, "needs at least one input");
  FailureOr<RankedTensorType> first = rankedOperand(loc, inputs[0], "inputs");
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= rank)
    return fail(loc, "'axis' " + Twine(axis) + " is out of range for rank " +
                         Twine(rank));
  SmallVector<int64_t> shape(first->getShape());
  for (Value value : inputs.drop_front()) {
    FailureOr<RankedTensorType> type = rankedOperand(loc, value, "inputs");
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return fail(loc, "all inputs must have one element type");
    if (type->getRank() != rank)
      return fail(loc, "all inputs must have rank " + Twine(rank));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (type->getDimSize(d) != shape[d])
        return fail(loc, "inputs differ in dimension " + Twine(d) + " (" +
                             Twine(shape[d]) + " vs " +
                             Twine(type->getDimSize(d)) +
                             "), which is not the concatenation axis");
    }
    shape[axis] += type->getDimSize(axis);
  }
  results.push_back(withShape(*first, shape));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  return inferMoved(loc, adaptor.getInput(), results,
                    [&](ArrayRef<int64_t> input) {
                      return sliceShape(loc, input, adaptor.getStarts(),
                                        adaptor.getEnds(), adaptor.getSteps());
                    });
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferMoved(
      loc, adaptor.getInput(), results, [&](ArrayRef<int64_t> input) {
        return gatherShape(loc, input, adaptor.getAxis(), adaptor.getIndices());
      });
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return inferMoved(
      loc, adaptor.getInput(), results, [&](ArrayRef<int64_t> input) {
        return padShape(loc, input, adaptor.getPads(), adaptor.getMode());
      });
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input) || failed(checkAllAtLeast(loc, adaptor.getShape(), 1, "shape")))
    return failure();
  int64_t count = 1;
  for (int64_t d : adaptor.getShape())
    count *= d;
  if (count != input->getNumElements())
    return fail(loc, "'shape' holds " + Twine(count) +
                         " elements but 'input' holds " +
                         Twine(input->getNumElements()));
  results.push_back(withShape(*input, adaptor.getShape()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = input->getRank();
  if (failed(checkLength(loc, perm, rank, "perm")))
    return failure();
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return fail(loc, "'perm' must be a permutation of [0, " + Twine(rank) +
                           ")");
    seen[p] = true;
    shape.push_back(input->getDimSize(p));
  }
  results.push_back(withShape(*input, shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra and reductions
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> lhs = rankedOperand(loc, adaptor.getLhs(), "lhs");
  FailureOr<RankedTensorType> rhs = rankedOperand(loc, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  if (lhs->getRank() < 2 || rhs->getRank() < 2)
    return fail(loc, "operands must have rank >= 2");
  if (lhs->getElementType() != rhs->getElementType())
    return fail(loc, "'lhs' and 'rhs' must have one element type");
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  if (a.back() != b[b.size() - 2])
    return fail(loc, "contraction sizes differ: " + Twine(a.back()) + " vs " +
                         Twine(b[b.size() - 2]));
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(a.drop_back(2), b.drop_back(2), batch))
    return fail(loc, "batch dimensions do not broadcast");
  batch.append({a[a.size() - 2], b.back()});
  results.push_back(withShape(*lhs, batch));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> a = rankedOperand(loc, adaptor.getA(), "a", 2);
  FailureOr<RankedTensorType> b = rankedOperand(loc, adaptor.getB(), "b", 2);
  if (failed(a) || failed(b))
    return failure();
  if (a->getElementType() != b->getElementType())
    return fail(loc, "'a' and 'b' must have one element type");
  int64_t m = a->getDimSize(adaptor.getTransA() ? 1 : 0);
  int64_t k = a->getDimSize(adaptor.getTransA() ? 0 : 1);
  int64_t kb = b->getDimSize(adaptor.getTransB() ? 1 : 0);
  int64_t n = b->getDimSize(adaptor.getTransB() ? 0 : 1);
  if (k != kb)
    return fail(loc, "contraction sizes differ: " + Twine(k) + " vs " + Twine(kb));
  if (Value c = adaptor.getC()) {
    FailureOr<RankedTensorType> cType = rankedOperand(loc, c, "c");
    if (failed(cType))
      return failure();
    if (cType->getElementType() != a->getElementType())
      return fail(loc, "'c' must have the element type of 'a' and 'b'");
    SmallVector<int64_t> shape;
    if (cType->getRank() > 2 ||
        !OpTrait::util::getBroadcastedShape(cType->getShape(), {m, n}, shape) ||
        shape != SmallVector<int64_t>{m, n})
      return fail(loc, "'c' must broadcast to " + Twine(m) + "x" + Twine(n));
  }
  results.push_back(withShape(*a, {m, n}));
  return success();
}

LogicalResult ReduceSumOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),
                     adaptor.getKeepdims(), results);
}

LogicalResult ReduceMeanOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),
                     adaptor.getKeepdims(), results);
}
