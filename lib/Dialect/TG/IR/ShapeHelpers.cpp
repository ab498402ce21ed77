//===- ShapeHelpers.cpp - Shape rules shared by tg ops --------------------===//

#include "ShapeHelpers.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;

namespace memopt::tg::detail {

LogicalResult fail(std::optional<Location> loc, const Twine &message) {
  return emitOptionalError(loc, message);
}

FailureOr<RankedTensorType> rankedOperand(std::optional<Location> loc,
                                          Value value, StringRef name,
                                          int64_t rank) {
  auto type =
      dyn_cast_if_present<RankedTensorType>(value ? value.getType() : Type());
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

LogicalResult checkShapeAttr(std::optional<Location> loc,
                             ArrayRef<int64_t> shape, size_t rank,
                             StringRef name) {
  if (failed(checkLength(loc, shape, rank, name)) ||
      failed(checkAllAtLeast(loc, shape, 1, name)))
    return failure();
  return success();
}

LogicalResult checkWindow(std::optional<Location> loc, size_t spatialAxes,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> dilations) {
  if (failed(checkLength(loc, strides, spatialAxes, "strides")) ||
      failed(checkLength(loc, pads, 2 * spatialAxes, "pads")) ||
      failed(checkLength(loc, dilations, spatialAxes, "dilations")) ||
      failed(checkAllAtLeast(loc, strides, 1, "strides")) ||
      failed(checkAllAtLeast(loc, pads, 0, "pads")) ||
      failed(checkAllAtLeast(loc, dilations, 1, "dilations")))
    return failure();
  return success();
}

StringRef spatialAxisName(size_t axis, size_t spatialAxes) {
  static constexpr StringLiteral names[] = {"depth", "height", "width"};
  return names[3 - spatialAxes + axis];
}

FailureOr<std::pair<RankedTensorType, RankedTensorType>>
spatialOperands(std::optional<Location> loc, Value first, StringRef firstName,
                Value second, StringRef secondName) {
  FailureOr<RankedTensorType> a = spatialOperand(loc, first, firstName);
  FailureOr<RankedTensorType> b = rankedOperand(loc, second, secondName);
  if (failed(a) || failed(b))
    return failure();
  if (b->getRank() != a->getRank())
    return fail(loc, "'" + secondName + "' must have rank " +
                         Twine(a->getRank()) + " (that of '" + firstName +
                         "'), got rank " + Twine(b->getRank()));
  return std::make_pair(*a, *b);
}

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
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

//===----------------------------------------------------------------------===//
// Output shapes of forward ops
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
convShape(std::optional<Location> loc, ArrayRef<int64_t> input,
            ArrayRef<int64_t> weight, ArrayRef<int64_t> strides,
            ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
            int64_t groups) {
  size_t axes = input.size() - 2;
  if (failed(checkWindow(loc, axes, strides, pads, dilations)))
    return failure();
  int64_t channels = input[1];
  int64_t outChannels = weight[0];
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0)
    return fail(loc, "'groups' (" + Twine(groups) +
                         ") must divide the input channels (" +
                         Twine(channels) + ") and the output channels (" +
                         Twine(outChannels) + ")");
  if (weight[1] * groups != channels)
    return fail(loc, "weight expects " + Twine(weight[1] * groups) +
                         " input channels, but 'input' has " + Twine(channels));
  SmallVector<int64_t> shape = {input[0], outChannels};
  for (size_t i = 0; i < axes; ++i) {
    FailureOr<int64_t> extent = windowExtent(
        loc, input[2 + i], weight[2 + i], strides[i], pads[i], pads[axes + i],
        dilations[i], /*ceilMode=*/false, spatialAxisName(i, axes));
    if (failed(extent))
      return failure();
    shape.push_back(*extent);
  }
  return shape;
}

FailureOr<SmallVector<int64_t>>
convTransposeShape(std::optional<Location> loc, ArrayRef<int64_t> input,
                     ArrayRef<int64_t> weight, ArrayRef<int64_t> strides,
                     ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                     ArrayRef<int64_t> outputPadding, int64_t groups) {
  size_t axes = input.size() - 2;
  if (failed(checkWindow(loc, axes, strides, pads, dilations)) ||
      failed(checkLength(loc, outputPadding, axes, "output_padding")) ||
      failed(checkAllAtLeast(loc, outputPadding, 0, "output_padding")))
    return failure();
  int64_t channels = input[1];
  if (weight[0] != channels)
    return fail(loc, "weight expects " + Twine(weight[0]) +
                         " input channels, but 'input' has " + Twine(channels));
  if (groups < 1 || channels % groups != 0)
    return fail(loc, "'groups' (" + Twine(groups) +
                         ") must divide the input channels (" +
                         Twine(channels) + ")");
  for (size_t i = 0; i < axes; ++i)
    if (outputPadding[i] >= std::max(strides[i], dilations[i]))
      return fail(loc, "'output_padding' must be smaller than the stride or "
                       "the dilation");
  SmallVector<int64_t> shape = {input[0], weight[1] * groups};
  for (size_t i = 0; i < axes; ++i) {
    int64_t extent = (input[2 + i] - 1) * strides[i] - pads[i] -
                     pads[axes + i] + dilations[i] * (weight[2 + i] - 1) +
                     outputPadding[i] + 1;
    if (extent < 1)
      return fail(loc, "transposed convolution yields an empty output");
    shape.push_back(extent);
  }
  return shape;
}

FailureOr<SmallVector<int64_t>>
poolShape(std::optional<Location> loc, ArrayRef<int64_t> input,
            ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
            ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
            bool ceilMode) {
  size_t axes = input.size() - 2;
  if (failed(checkLength(loc, kernel, axes, "kernel")) ||
      failed(checkAllAtLeast(loc, kernel, 1, "kernel")) ||
      failed(checkWindow(loc, axes, strides, pads, dilations)))
    return failure();
  for (size_t i = 0; i < axes; ++i)
    if (pads[i] > kernel[i] / 2 || pads[i + axes] > kernel[i] / 2)
      return fail(loc, "'pads' must be at most half the kernel size");
  SmallVector<int64_t> shape = {input[0], input[1]};
  for (size_t i = 0; i < axes; ++i) {
    FailureOr<int64_t> extent = windowExtent(
        loc, input[2 + i], kernel[i], strides[i], pads[i], pads[axes + i],
        dilations[i], ceilMode, spatialAxisName(i, axes));
    if (failed(extent))
      return failure();
    shape.push_back(*extent);
  }
  return shape;
}

SmallVector<int64_t> unitDilations(ArrayRef<int64_t> kernel) {
  return SmallVector<int64_t>(kernel.size(), 1);
}

FailureOr<RankedTensorType> spatialOperand(std::optional<Location> loc,
                                           Value value, StringRef name) {
  FailureOr<RankedTensorType> type = rankedOperand(loc, value, name);
  if (failed(type))
    return failure();
  if (type->getRank() < 3 || type->getRank() > 5)
    return fail(loc, "'" + name +
                         "' must have rank 3, 4 or 5 (N x C x 1 to 3 "
                         "spatial axes), got rank " +
                         Twine(type->getRank()));
  return type;
}

LogicalResult checkResizeAttrs(std::optional<Location> loc,
                               ArrayRef<int64_t> sizes, ArrayRef<double> scales,
                               size_t spatialAxes) {
  if (failed(checkLength(loc, sizes, spatialAxes, "sizes")) ||
      failed(checkAllAtLeast(loc, sizes, 1, "sizes")))
    return failure();
  if (scales.size() != spatialAxes)
    return fail(loc, "'scales' must have " + Twine(spatialAxes) +
                         " elements, got " + Twine(scales.size()));
  if (llvm::any_of(scales, [](double s) { return !(s > 0.0); }))
    return fail(loc, "'scales' must be positive");
  return success();
}

FailureOr<SmallVector<int64_t>> padShape(std::optional<Location> loc,
                                         ArrayRef<int64_t> input,
                                         ArrayRef<int64_t> pads,
                                         PadMode mode) {
  int64_t rank = input.size();
  if (failed(checkLength(loc, pads, 2 * rank, "pads")) ||
      failed(checkAllAtLeast(loc, pads, 0, "pads")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input[d];
    if (mode == PadMode::reflect && (pads[d] >= dim || pads[d + rank] >= dim))
      return fail(loc, "reflect padding of axis " + Twine(d) +
                           " must be smaller than its size " + Twine(dim));
    shape.push_back(dim + pads[d] + pads[d + rank]);
  }
  return shape;
}

FailureOr<SmallVector<int64_t>> sliceShape(std::optional<Location> loc,
                                           ArrayRef<int64_t> input,
                                           ArrayRef<int64_t> starts,
                                           ArrayRef<int64_t> ends,
                                           ArrayRef<int64_t> steps) {
  size_t rank = input.size();
  if (failed(checkLength(loc, starts, rank, "starts")) ||
      failed(checkLength(loc, ends, rank, "ends")) ||
      failed(checkLength(loc, steps, rank, "steps")) ||
      failed(checkAllAtLeast(loc, steps, 1, "steps")))
    return failure();
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    if (starts[d] < 0 || starts[d] >= ends[d] || ends[d] > input[d])
      return fail(loc, "slice [" + Twine(starts[d]) + ", " + Twine(ends[d]) +
                           ") of axis " + Twine(d) +
                           " is empty or outside [0, " + Twine(input[d]) + ")");
    shape.push_back((ends[d] - starts[d] + steps[d] - 1) / steps[d]);
  }
  return shape;
}

FailureOr<SmallVector<int64_t>> gatherShape(std::optional<Location> loc,
                                            ArrayRef<int64_t> input,
                                            int64_t axis,
                                            DenseIntElementsAttr indices) {
  int64_t rank = input.size();
  if (rank == 0)
    return fail(loc, "'input' must have rank >= 1 to gather along an axis");
  if (axis < 0 || axis >= rank)
    return fail(loc, "'axis' " + Twine(axis) + " is out of range for rank " +
                         Twine(rank));
  if (indices.empty())
    return fail(loc, "'indices' must hold at least one index");
  int64_t position = 0;
  for (int64_t index : indices.getValues<int64_t>()) {
    if (index < 0 || index >= input[axis])
      return fail(loc, "index " + Twine(index) + " at position " +
                           Twine(position) + " of 'indices' is outside [0, " +
                           Twine(input[axis]) + ") (axis " + Twine(axis) + ")");
    ++position;
  }
  ArrayRef<int64_t> indexShape = indices.getType().getShape();
  SmallVector<int64_t> shape(input.take_front(axis));
  shape.append(indexShape.begin(), indexShape.end());
  shape.append(input.begin() + axis + 1, input.end());
  return shape;
}

//===----------------------------------------------------------------------===//
// Verifier checks
//===----------------------------------------------------------------------===//

LogicalResult verifyAttrValue(Operation *op, StringRef name, double value,
                              bool holds, StringRef requirement) {
  if (!holds)
    return op->emitOpError("'")
           << name << "' must be " << requirement << ", got " << value;
  return success();
}

LogicalResult verifyChannelTypes(Operation *op, ValueRange channels) {
  Type type = getElementTypeOrSelf(channels.front().getType());
  for (Value value : channels.drop_front())
    if (getElementTypeOrSelf(value.getType()) != type)
      return op->emitOpError("per-channel operands must have one element type");
  return success();
}

LogicalResult verifyClipBounds(Operation *op, double min, double max) {
  if (!(min <= max))
    return op->emitOpError("'min' (")
           << min << ") must not exceed 'max' (" << max << ")";
  return success();
}

LogicalResult verifyResizeScales(Operation *op, ArrayRef<int64_t> inputSizes,
                                 ArrayRef<int64_t> sizes,
                                 ArrayRef<double> scales) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    // Scales derived from sizes (out / in) round-trip only up to
    // floating-point error.
    double exact = inputSizes[i] * scales[i];
    if (std::fabs(exact - static_cast<double>(sizes[i])) >= 1.0)
      return op->emitOpError("'sizes' [")
             << llvm::make_range(sizes.begin(), sizes.end()) << "] disagree with 'scales' ["
             << llvm::make_range(scales.begin(), scales.end())
             << "] for input " << shapeString(inputSizes);
  }
  return success();
}

} // namespace memopt::tg::detail
