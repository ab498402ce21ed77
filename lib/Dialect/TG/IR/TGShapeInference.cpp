//===- TGShapeInference.cpp - Result types of tg ops ----------------------===//
//
// Every tg op infers its result type from its operands and attributes. The
// inference is also where malformed attributes are diagnosed: it runs both
// when the importer builds an op and when the verifier checks one, so a
// message written here reaches the user on either path.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace memopt::tg;

namespace {
/// Emits `message` at `loc` when a location is known and returns failure.
LogicalResult fail(std::optional<Location> loc, const Twine &message) {
  return emitOptionalError(loc, message);
}

FailureOr<RankedTensorType> rankedOperand(std::optional<Location> loc,
                                          Value value, StringRef name,
                                          int64_t rank = -1) {
  auto type = dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  if (!type || !type.hasStaticShape())
    return fail(loc, "'" + name + "' must be a statically shaped tensor");
  if (rank >= 0 && type.getRank() != rank)
    return fail(loc, "'" + name + "' must have rank " + Twine(rank) +
                         ", got rank " + Twine(type.getRank()));
  return type;
}

LogicalResult checkLength(std::optional<Location> loc, ArrayRef<int64_t> values,
                          size_t expected, StringRef name) {
  if (values.size() != expected)
    return fail(loc, "'" + name + "' must have " + Twine(expected) +
                         " elements, got " + Twine(values.size()));
  return success();
}

LogicalResult checkAllAtLeast(std::optional<Location> loc,
                              ArrayRef<int64_t> values, int64_t minimum,
                              StringRef name) {
  if (llvm::any_of(values, [&](int64_t v) { return v < minimum; }))
    return fail(loc, "'" + name + "' must be >= " + Twine(minimum) +
                         " in every element");
  return success();
}

/// Checks strides, pads and dilations of a 2-D window op.
LogicalResult checkWindow(std::optional<Location> loc,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> dilations) {
  if (failed(checkLength(loc, strides, 2, "strides")) ||
      failed(checkLength(loc, pads, 4, "pads")) ||
      failed(checkLength(loc, dilations, 2, "dilations")) ||
      failed(checkAllAtLeast(loc, strides, 1, "strides")) ||
      failed(checkAllAtLeast(loc, pads, 0, "pads")) ||
      failed(checkAllAtLeast(loc, dilations, 1, "dilations")))
    return failure();
  return success();
}

/// Output extent of a sliding window along one axis; fails when no window
/// fits.
FailureOr<int64_t> windowExtent(std::optional<Location> loc, int64_t in,
                                int64_t kernel, int64_t stride, int64_t padLo,
                                int64_t padHi, int64_t dilation, bool ceilMode,
                                StringRef axis) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = in + padLo + padHi;
  if (padded < span)
    return fail(loc, "window of extent " + Twine(span) + " does not fit in " +
                         axis + " of padded size " + Twine(padded));
  int64_t out = (padded - span) / stride + 1;
  if (ceilMode && (padded - span) % stride != 0) {
    // PyTorch and ONNX drop a last window that would start in the bottom or
    // right padding.
    if (out * stride < in + padLo)
      ++out;
  }
  return out;
}

RankedTensorType withShape(RankedTensorType type, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, type.getElementType());
}

LogicalResult checkSameElementType(std::optional<Location> loc,
                                   ArrayRef<Type> types, StringRef what) {
  for (Type type : types)
    if (getElementTypeOrSelf(type) != getElementTypeOrSelf(types.front()))
      return fail(loc, what + " must have one element type");
  return success();
}

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

/// Checks the four per-channel operands of a batch normalization.
LogicalResult checkChannelOperands(std::optional<Location> loc,
                                   RankedTensorType input, ValueRange operands,
                                   ArrayRef<StringRef> names) {
  if (input.getRank() < 2)
    return fail(loc, "'input' must have rank >= 2 (N x C x ...)");
  int64_t channels = input.getDimSize(1);
  for (auto [value, name] : llvm::zip(operands, names)) {
    FailureOr<RankedTensorType> type = rankedOperand(loc, value, name, 1);
    if (failed(type))
      return failure();
    if (type->getDimSize(0) != channels)
      return fail(loc, "'" + name + "' must have " + Twine(channels) +
                           " elements (the channels of 'input'), got " +
                           Twine(type->getDimSize(0)));
  }
  return success();
}

std::string shapeString(ArrayRef<int64_t> shape) {
  return llvm::join(llvm::map_range(shape,
                                    [](int64_t d) { return std::to_string(d); }),
                    "x");
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
#undef MEMOPT_TG_BINARY_INFERENCE

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

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input", 4);
  FailureOr<RankedTensorType> weight =
      rankedOperand(loc, adaptor.getWeight(), "weight", 4);
  if (failed(input) || failed(weight) ||
      failed(checkWindow(loc, adaptor.getStrides(), adaptor.getPads(),
                         adaptor.getDilations())))
    return failure();
  int64_t groups = adaptor.getGroups();
  int64_t channels = input->getDimSize(1);
  int64_t outChannels = weight->getDimSize(0);
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0)
    return fail(loc, "'groups' (" + Twine(groups) +
                         ") must divide the input channels (" +
                         Twine(channels) + ") and the output channels (" +
                         Twine(outChannels) + ")");
  if (weight->getDimSize(1) * groups != channels)
    return fail(loc, "weight expects " + Twine(weight->getDimSize(1) * groups) +
                         " input channels, but 'input' has " + Twine(channels));
  if (failed(checkConvOperands(loc, *input, *weight, adaptor.getBias(),
                               outChannels)))
    return failure();
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  FailureOr<int64_t> h =
      windowExtent(loc, input->getDimSize(2), weight->getDimSize(2), strides[0],
                   pads[0], pads[2], dilations[0], false, "height");
  FailureOr<int64_t> w =
      windowExtent(loc, input->getDimSize(3), weight->getDimSize(3), strides[1],
                   pads[1], pads[3], dilations[1], false, "width");
  if (failed(h) || failed(w))
    return failure();
  results.push_back(
      withShape(*input, {input->getDimSize(0), outChannels, *h, *w}));
  return success();
}

LogicalResult ConvTranspose2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input", 4);
  FailureOr<RankedTensorType> weight =
      rankedOperand(loc, adaptor.getWeight(), "weight", 4);
  if (failed(input) || failed(weight) ||
      failed(checkWindow(loc, adaptor.getStrides(), adaptor.getPads(),
                         adaptor.getDilations())) ||
      failed(checkLength(loc, adaptor.getOutputPadding(), 2, "output_padding")) ||
      failed(checkAllAtLeast(loc, adaptor.getOutputPadding(), 0,
                             "output_padding")))
    return failure();
  int64_t groups = adaptor.getGroups();
  int64_t channels = input->getDimSize(1);
  if (weight->getDimSize(0) != channels)
    return fail(loc, "weight expects " + Twine(weight->getDimSize(0)) +
                         " input channels, but 'input' has " + Twine(channels));
  if (groups < 1 || channels % groups != 0)
    return fail(loc, "'groups' (" + Twine(groups) +
                         ") must divide the input channels (" +
                         Twine(channels) + ")");
  int64_t outChannels = weight->getDimSize(1) * groups;
  if (failed(checkConvOperands(loc, *input, *weight, adaptor.getBias(),
                               outChannels)))
    return failure();
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    outputPadding = adaptor.getOutputPadding();
  for (int i = 0; i < 2; ++i)
    if (outputPadding[i] >= std::max(strides[i], dilations[i]))
      return fail(loc, "'output_padding' must be smaller than the stride or "
                       "the dilation");
  SmallVector<int64_t> shape = {input->getDimSize(0), outChannels};
  for (int i = 0; i < 2; ++i) {
    int64_t extent = (input->getDimSize(2 + i) - 1) * strides[i] - pads[i] -
                     pads[2 + i] + dilations[i] * (weight->getDimSize(2 + i) - 1) +
                     outputPadding[i] + 1;
    if (extent < 1)
      return fail(loc, "transposed convolution yields an empty output");
    shape.push_back(extent);
  }
  results.push_back(withShape(*input, shape));
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
  FailureOr<RankedTensorType> input = rankedOperand(loc, inputValue, "input", 4);
  if (failed(input) || failed(checkLength(loc, kernel, 2, "kernel")) ||
      failed(checkAllAtLeast(loc, kernel, 1, "kernel")) ||
      failed(checkWindow(loc, strides, pads, dilations)))
    return failure();
  for (int i = 0; i < 2; ++i)
    if (pads[i] > kernel[i] / 2 || pads[i + 2] > kernel[i] / 2)
      return fail(loc, "'pads' must be at most half the kernel size");
  FailureOr<int64_t> h =
      windowExtent(loc, input->getDimSize(2), kernel[0], strides[0], pads[0],
                   pads[2], dilations[0], ceilMode, "height");
  FailureOr<int64_t> w =
      windowExtent(loc, input->getDimSize(3), kernel[1], strides[1], pads[1],
                   pads[3], dilations[1], ceilMode, "width");
  if (failed(h) || failed(w))
    return failure();
  results.push_back(withShape(
      *input, {input->getDimSize(0), input->getDimSize(1), *h, *w}));
  return success();
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernel(),
                   adaptor.getStrides(), adaptor.getPads(),
                   adaptor.getDilations(), adaptor.getCeilMode(), results);
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  static const int64_t kNoDilation[] = {1, 1};
  return inferPool(loc, adaptor.getInput(), adaptor.getKernel(),
                   adaptor.getStrides(), adaptor.getPads(), kNoDilation,
                   adaptor.getCeilMode(), results);
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input", 4);
  if (failed(input))
    return failure();
  results.push_back(withShape(
      *input, {input->getDimSize(0), input->getDimSize(1), 1, 1}));
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input", 4);
  if (failed(input) || failed(checkLength(loc, adaptor.getSizes(), 2, "sizes")) ||
      failed(checkAllAtLeast(loc, adaptor.getSizes(), 1, "sizes")))
    return failure();
  ArrayRef<double> scales = adaptor.getScales();
  if (scales.size() != 2)
    return fail(loc, "'scales' must have 2 elements, got " +
                         Twine(scales.size()));
  if (llvm::any_of(scales, [](double s) { return !(s > 0.0); }))
    return fail(loc, "'scales' must be positive");
  results.push_back(withShape(*input, {input->getDimSize(0),
                                       input->getDimSize(1),
                                       adaptor.getSizes()[0],
                                       adaptor.getSizes()[1]}));
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
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  size_t rank = input->getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  if (failed(checkLength(loc, starts, rank, "starts")) ||
      failed(checkLength(loc, ends, rank, "ends")) ||
      failed(checkLength(loc, steps, rank, "steps")) ||
      failed(checkAllAtLeast(loc, steps, 1, "steps")))
    return failure();
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    if (starts[d] < 0 || starts[d] >= ends[d] || ends[d] > input->getDimSize(d))
      return fail(loc, "slice [" + Twine(starts[d]) + ", " + Twine(ends[d]) +
                           ") of axis " + Twine(d) + " is empty or outside [0, " +
                           Twine(input->getDimSize(d)) + ")");
    shape.push_back((ends[d] - starts[d] + steps[d] - 1) / steps[d]);
  }
  results.push_back(withShape(*input, shape));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  int64_t rank = input->getRank();
  ArrayRef<int64_t> pads = adaptor.getPads();
  if (failed(checkLength(loc, pads, 2 * rank, "pads")) ||
      failed(checkAllAtLeast(loc, pads, 0, "pads")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input->getDimSize(d);
    if (adaptor.getMode() == PadMode::reflect &&
        (pads[d] >= dim || pads[d + rank] >= dim))
      return fail(loc, "reflect padding of axis " + Twine(d) +
                           " must be smaller than its size " + Twine(dim));
    shape.push_back(dim + pads[d] + pads[d + rank]);
  }
  results.push_back(withShape(*input, shape));
  return success();
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
