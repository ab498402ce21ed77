//===- TGSegmentationOps.cpp - Ops of segmentation networks ---------------===//
//
// Result types and verifiers of the ops that U-Nets for segmentation add
// to the classic set: tg.prelu, softmax and log_softmax over an axis,
// tg.instance_norm and the segmentation losses (cross-entropy and Dice of
// logits against a label map), with their gradients.
//
//===----------------------------------------------------------------------===//

#include "ShapeHelpers.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace memopt::tg;
using namespace memopt::tg::detail;

namespace {

/// `slope` must broadcast to `input` without changing its shape.
LogicalResult checkSlope(std::optional<Location> loc, RankedTensorType input,
                         RankedTensorType slope) {
  SmallVector<int64_t> shape;
  if (failed(checkSameElementType(loc, {input, slope},
                                  "'input' and 'slope'")))
    return failure();
  if (slope.getRank() > input.getRank() ||
      !OpTrait::util::getBroadcastedShape(input.getShape(), slope.getShape(),
                                          shape) ||
      ArrayRef<int64_t>(shape) != input.getShape())
    return fail(loc, "'slope' of shape " + shapeString(slope.getShape()) +
                         " does not broadcast to 'input' of shape " +
                         shapeString(input.getShape()));
  return success();
}

LogicalResult verifyAxis(Operation *op, Type type, int64_t axis) {
  int64_t rank = cast<RankedTensorType>(type).getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("'axis' must be in [0, ")
           << rank << ") for a tensor of rank " << rank << ", got " << axis;
  return success();
}

/// The statistics of an instance normalization: N x C, in the element
/// type of its scale (f32 under mixed precision, whose low-precision input
/// is normalized with f32 statistics, as batch_norm's).
RankedTensorType statsType(RankedTensorType input, Value scale) {
  return RankedTensorType::get(
      {input.getDimSize(0), input.getDimSize(1)},
      cast<RankedTensorType>(scale.getType()).getElementType());
}

LogicalResult checkInstanceNormInput(std::optional<Location> loc,
                                     RankedTensorType input) {
  if (input.getRank() < 3)
    return fail(loc, "'input' must have rank >= 3 (N x C x D1 x ...), got "
                     "rank " +
                         Twine(input.getRank()));
  return success();
}

/// The logits and target of a segmentation loss. The target is a class map
/// (the logits' shape without axis 1) or, when `maskAllowed` and C = 1, a
/// mask of the logits' own shape.
LogicalResult checkLossOperands(std::optional<Location> loc,
                                Value logitsValue, Value targetValue,
                                bool maskAllowed) {
  FailureOr<RankedTensorType> logits =
      rankedOperand(loc, logitsValue, "logits");
  FailureOr<RankedTensorType> target =
      rankedOperand(loc, targetValue, "target");
  if (failed(logits) || failed(target) ||
      failed(checkSameElementType(loc, {*logits, *target},
                                  "'logits' and 'target'")))
    return failure();
  if (logits->getRank() < 2)
    return fail(loc, "'logits' must have rank >= 2 (N x C x ...)");
  if (maskAllowed && logits->getDimSize(1) == 1) {
    if (*target != *logits)
      return fail(loc, "with one channel 'target' must be a mask of the "
                       "logits' type " +
                           shapeString(logits->getShape()) + ", got " +
                           shapeString(target->getShape()));
    return success();
  }
  SmallVector<int64_t> map(logits->getShape());
  map.erase(map.begin() + 1);
  if (target->getShape() != ArrayRef<int64_t>(map))
    return fail(loc, "'target' must be a class map of shape " +
                         shapeString(map) +
                         " (the logits' shape without axis 1), got " +
                         shapeString(target->getShape()));
  return success();
}

LogicalResult inferSegmentationLoss(std::optional<Location> loc,
                                    Value logits, Value target,
                                    bool maskAllowed,
                                    SmallVectorImpl<Type> &results) {
  if (failed(checkLossOperands(loc, logits, target, maskAllowed)))
    return failure();
  results.push_back(withShape(cast<RankedTensorType>(logits.getType()), {}));
  return success();
}

LogicalResult inferSegmentationLossBackward(std::optional<Location> loc,
                                            Value gradLoss, Value logits,
                                            Value target, bool maskAllowed,
                                            SmallVectorImpl<Type> &results) {
  if (failed(checkLossOperands(loc, logits, target, maskAllowed)))
    return failure();
  FailureOr<RankedTensorType> grad = rankedOperand(loc, gradLoss, "grad_loss", 0);
  if (failed(grad))
    return failure();
  if (grad->getElementType() !=
      cast<RankedTensorType>(logits.getType()).getElementType())
    return fail(loc, "'grad_loss' must have the element type of 'logits'");
  results.push_back(logits.getType());
  return success();
}

/// A gradient and the forward input it has the type of.
FailureOr<RankedTensorType> gradAndInput(std::optional<Location> loc,
                                         Value gradOutputValue,
                                         Value inputValue) {
  FailureOr<RankedTensorType> gradOutput =
      rankedOperand(loc, gradOutputValue, "grad_output");
  FailureOr<RankedTensorType> input = rankedOperand(loc, inputValue, "input");
  if (failed(gradOutput) || failed(input))
    return failure();
  if (*gradOutput != *input)
    return fail(loc, "'grad_output' must have the type of 'input'");
  return *input;
}

LogicalResult verifyDiceEpsilon(Operation *op, double epsilon) {
  return verifyAttrValue(op, "epsilon", epsilon, epsilon >= 0.0,
                         "non-negative");
}

} // namespace

//===----------------------------------------------------------------------===//
// PRelu
//===----------------------------------------------------------------------===//

LogicalResult PReluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  FailureOr<RankedTensorType> slope =
      rankedOperand(loc, adaptor.getSlope(), "slope");
  if (failed(input) || failed(slope) || failed(checkSlope(loc, *input, *slope)))
    return failure();
  results.push_back(*input);
  return success();
}

LogicalResult PReluBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      gradAndInput(loc, adaptor.getGradOutput(), adaptor.getInput());
  FailureOr<RankedTensorType> slope =
      rankedOperand(loc, adaptor.getSlope(), "slope");
  if (failed(input) || failed(slope) || failed(checkSlope(loc, *input, *slope)))
    return failure();
  results.push_back(*input);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getInput().getType(), getAxis());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getInput().getType(), getAxis());
}
LogicalResult SoftmaxBackwardOp::verify() {
  return verifyAxis(*this, getOutput().getType(), getAxis());
}
LogicalResult LogSoftmaxBackwardOp::verify() {
  return verifyAxis(*this, getOutput().getType(), getAxis());
}

//===----------------------------------------------------------------------===//
// Instance normalization
//===----------------------------------------------------------------------===//

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(input) || failed(checkInstanceNormInput(loc, *input)) ||
      failed(checkChannelOperands(loc, *input,
                                  {adaptor.getScale(), adaptor.getBias()},
                                  {"scale", "bias"})))
    return failure();
  RankedTensorType stats = statsType(*input, adaptor.getScale());
  results.append({*input, stats, stats});
  return success();
}

LogicalResult InstanceNormOp::verify() {
  double epsilon = getEpsilon().convertToDouble();
  if (failed(verifyAttrValue(*this, "epsilon", epsilon, epsilon > 0.0,
                             "positive")))
    return failure();
  return verifyChannelTypes(*this, {getScale(), getBias()});
}

LogicalResult InstanceNormBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      gradAndInput(loc, adaptor.getGradOutput(), adaptor.getInput());
  if (failed(input) || failed(checkInstanceNormInput(loc, *input)) ||
      failed(checkChannelOperands(loc, *input, {adaptor.getScale()},
                                  {"scale"})))
    return failure();
  RankedTensorType stats = statsType(*input, adaptor.getScale());
  if (adaptor.getSavedMean().getType() != stats ||
      adaptor.getSavedInvStd().getType() != stats)
    return fail(loc, "'saved_mean' and 'saved_inv_std' must have type " +
                         shapeString(stats.getShape()) +
                         " (N x C of 'input', the element type of 'scale')");
  Type channels = adaptor.getScale().getType();
  results.append({*input, channels, channels});
  return success();
}

//===----------------------------------------------------------------------===//
// Segmentation losses
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyLossOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferSegmentationLoss(loc, adaptor.getLogits(), adaptor.getTarget(),
                               /*maskAllowed=*/false, results);
}

LogicalResult CrossEntropyLossBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferSegmentationLossBackward(loc, adaptor.getGradLoss(),
                                       adaptor.getLogits(), adaptor.getTarget(),
                                       /*maskAllowed=*/false, results);
}

LogicalResult DiceLossOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  return inferSegmentationLoss(loc, adaptor.getLogits(), adaptor.getTarget(),
                               /*maskAllowed=*/true, results);
}

LogicalResult DiceLossOp::verify() {
  return verifyDiceEpsilon(*this, getEpsilon().convertToDouble());
}

LogicalResult DiceLossBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferSegmentationLossBackward(loc, adaptor.getGradLoss(),
                                       adaptor.getLogits(), adaptor.getTarget(),
                                       /*maskAllowed=*/true, results);
}

LogicalResult DiceLossBackwardOp::verify() {
  return verifyDiceEpsilon(*this, getEpsilon().convertToDouble());
}
