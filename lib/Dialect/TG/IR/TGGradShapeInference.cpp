//===- TGGradShapeInference.cpp - Backward, loss and optimizer ops --------===//
//
// Result types and verifiers of the ops in TGGradOps.td. A gradient op
// recomputes the output shape of its forward op with the code that infers
// it (ShapeHelpers.h) and requires `grad_output` to have that shape, so
// that a gradient can only be built for a forward op that exists.
//
//===----------------------------------------------------------------------===//

#include "ShapeHelpers.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace memopt::tg;
using namespace memopt::tg::detail;

namespace {
/// The gradient of a rank-generic window op (convolution, max pooling) and
/// the forward operand it reads (named `savedName`): two statically shaped
/// tensors of one rank from 3 to 5 and one element type.
FailureOr<std::pair<RankedTensorType, RankedTensorType>>
windowGradOperands(std::optional<Location> loc, Value gradOutputValue,
                 Value savedValue, StringRef savedName) {
  auto operands = spatialOperands(loc, gradOutputValue, "grad_output",
                                  savedValue, savedName);
  if (failed(operands) ||
      failed(checkSameElementType(
          loc, {operands->first, operands->second},
          "'grad_output' and '" + savedName.str() + "'")))
    return failure();
  return *operands;
}

/// Yields a gradient of shape `shape` with the element type of `gradOutput`
/// once `gradOutput` has the shape `forward`, the output shape of
/// `forwardOp` for the operands and attributes of the gradient op.
LogicalResult inferGrad(std::optional<Location> loc,
                        RankedTensorType gradOutput, ArrayRef<int64_t> shape,
                        FailureOr<SmallVector<int64_t>> forward,
                        StringRef forwardOp, SmallVectorImpl<Type> &results) {
  if (failed(forward))
    return failure();
  if (gradOutput.getShape() != ArrayRef<int64_t>(*forward))
    return fail(loc, "'grad_output' has shape " +
                         shapeString(gradOutput.getShape()) + ", but " +
                         forwardOp + " yields " + shapeString(*forward));
  results.push_back(withShape(gradOutput, shape));
  return success();
}

/// The rank-0 loss of a `prediction` and a `target` of one type.
LogicalResult inferLoss(std::optional<Location> loc, Value predictionValue,
                        Value targetValue, SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> prediction =
      rankedOperand(loc, predictionValue, "prediction");
  FailureOr<RankedTensorType> target =
      rankedOperand(loc, targetValue, "target");
  if (failed(prediction) || failed(target))
    return failure();
  if (*prediction != *target)
    return fail(loc, "'prediction' and 'target' must have one type");
  results.push_back(withShape(*prediction, {}));
  return success();
}

/// The gradient of a loss with respect to `prediction`: `grad_loss` has the
/// type of the loss.
LogicalResult inferLossBackward(std::optional<Location> loc,
                                Value gradLossValue, Value predictionValue,
                                Value targetValue,
                                SmallVectorImpl<Type> &results) {
  SmallVector<Type, 1> loss;
  if (failed(inferLoss(loc, predictionValue, targetValue, loss)))
    return failure();
  FailureOr<RankedTensorType> gradLoss =
      rankedOperand(loc, gradLossValue, "grad_loss", 0);
  if (failed(gradLoss))
    return failure();
  if (*gradLoss != loss.front())
    return fail(loc, "'grad_loss' must have the element type of 'prediction'");
  results.push_back(predictionValue.getType());
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

LogicalResult ConvBackwardDataOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto operands = windowGradOperands(loc, adaptor.getGradOutput(),
                                       adaptor.getWeight(), "weight");
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  if (failed(operands) ||
      failed(checkShapeAttr(loc, inputShape,
                                operands->first.getRank(), "input_shape")))
    return failure();
  auto [gradOutput, weight] = *operands;
  return inferGrad(loc, gradOutput, inputShape,
                   convShape(loc, inputShape, weight.getShape(),
                               adaptor.getStrides(), adaptor.getPads(),
                               adaptor.getDilations(), adaptor.getGroups()),
                   "tg.conv", results);
}

LogicalResult ConvBackwardFilterOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto operands = windowGradOperands(loc, adaptor.getGradOutput(),
                                       adaptor.getInput(), "input");
  ArrayRef<int64_t> weightShape = adaptor.getWeightShape();
  if (failed(operands) ||
      failed(checkShapeAttr(loc, weightShape,
                                operands->first.getRank(), "weight_shape")))
    return failure();
  auto [gradOutput, input] = *operands;
  return inferGrad(loc, gradOutput, weightShape,
                   convShape(loc, input.getShape(), weightShape,
                               adaptor.getStrides(), adaptor.getPads(),
                               adaptor.getDilations(), adaptor.getGroups()),
                   "tg.conv", results);
}

LogicalResult ConvTransposeBackwardFilterOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto operands = windowGradOperands(loc, adaptor.getGradOutput(),
                                       adaptor.getInput(), "input");
  ArrayRef<int64_t> weightShape = adaptor.getWeightShape();
  if (failed(operands) ||
      failed(checkShapeAttr(loc, weightShape,
                                operands->first.getRank(), "weight_shape")))
    return failure();
  auto [gradOutput, input] = *operands;
  return inferGrad(loc, gradOutput, weightShape,
                   convTransposeShape(
                       loc, input.getShape(), weightShape, adaptor.getStrides(),
                       adaptor.getPads(), adaptor.getDilations(),
                       adaptor.getOutputPadding(), adaptor.getGroups()),
                   "tg.conv_transpose", results);
}

//===----------------------------------------------------------------------===//
// Normalization gradient
//===----------------------------------------------------------------------===//

LogicalResult BatchNormBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> gradOutput =
      rankedOperand(loc, adaptor.getGradOutput(), "grad_output");
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  if (failed(gradOutput) || failed(input) ||
      failed(checkChannelOperands(loc, *input,
                                  {adaptor.getScale(), adaptor.getSavedMean(),
                                   adaptor.getSavedInvStd()},
                                  {"scale", "saved_mean", "saved_inv_std"})))
    return failure();
  if (*gradOutput != *input)
    return fail(loc, "'grad_output' must have the type of 'input'");
  Type channels = adaptor.getScale().getType();
  results.append({*input, channels, channels});
  return success();
}

LogicalResult BatchNormBackwardOp::verify() {
  return verifyChannelTypes(*this, getOperands().drop_front(2));
}

//===----------------------------------------------------------------------===//
// Elementwise gradients
//===----------------------------------------------------------------------===//

LogicalResult ClipBackwardOp::verify() {
  return verifyClipBounds(*this, getMin().convertToDouble(),
                          getMax().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Pooling and resizing gradients
//===----------------------------------------------------------------------===//

LogicalResult MaxPoolBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto operands = windowGradOperands(loc, adaptor.getGradOutput(),
                                   adaptor.getInput(), "input");
  if (failed(operands))
    return failure();
  auto [gradOutput, input] = *operands;
  return inferGrad(loc, gradOutput, input.getShape(),
                   poolShape(loc, input.getShape(), adaptor.getKernel(),
                               adaptor.getStrides(), adaptor.getPads(),
                               adaptor.getDilations(), adaptor.getCeilMode()),
                   "tg.max_pool", results);
}

LogicalResult AvgPoolBackwardOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> gradOutput =
      spatialOperand(loc, adaptor.getGradOutput(), "grad_output");
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  if (failed(gradOutput) ||
      failed(checkShapeAttr(loc, inputShape, gradOutput->getRank(),
                            "input_shape")))
    return failure();
  return inferGrad(loc, *gradOutput, inputShape,
                   poolShape(loc, inputShape, adaptor.getKernel(),
                               adaptor.getStrides(), adaptor.getPads(),
                               unitDilations(adaptor.getKernel()),
                               adaptor.getCeilMode()),
                   "tg.avg_pool", results);
}

LogicalResult
ResizeBackwardOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> gradOutput =
      spatialOperand(loc, adaptor.getGradOutput(), "grad_output");
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  if (failed(gradOutput) ||
      failed(checkShapeAttr(loc, inputShape, gradOutput->getRank(),
                            "input_shape")))
    return failure();
  ArrayRef<int64_t> outputHW = gradOutput->getShape().drop_front(2);
  std::optional<ArrayRef<int64_t>> sizes = adaptor.getSizes();
  if (failed(checkResizeAttrs(loc, sizes.value_or(outputHW),
                              adaptor.getScales(), outputHW.size())))
    return failure();
  if (sizes && *sizes != outputHW)
    return fail(loc, "'sizes' " + shapeString(*sizes) +
                         " differ from the spatial sizes of 'grad_output' " +
                         shapeString(outputHW));
  SmallVector<int64_t> forward = {inputShape[0], inputShape[1]};
  llvm::append_range(forward, outputHW);
  return inferGrad(loc, *gradOutput, inputShape, forward, "tg.resize", results);
}

LogicalResult ResizeBackwardOp::verify() {
  // As for tg.resize: attributes that the inference rejects are left to its
  // diagnostics.
  SmallVector<Type> inferred;
  if (failed(inferReturnTypes(getContext(), std::nullopt, Adaptor(*this),
                              inferred)))
    return success();
  ArrayRef<int64_t> outputHW =
      getGradOutput().getType().getShape().drop_front(2);
  return verifyResizeScales(*this, getInputShape().drop_front(2), outputHW,
                            getScales());
}

//===----------------------------------------------------------------------===//
// Shape gradients
//===----------------------------------------------------------------------===//

namespace {

/// The gradient of a shape op (slice, pad): `grad_output` of the rank of
/// `input_shape`, of the shape that `forward()` (the forward op's result
/// shape, computed once the rank is checked) gives.
template <typename Forward>
LogicalResult inferShapeGrad(std::optional<Location> loc,
                             Value gradOutputValue, ArrayRef<int64_t> inputShape,
                             StringRef forwardOp,
                             SmallVectorImpl<Type> &results, Forward forward) {
  FailureOr<RankedTensorType> gradOutput =
      rankedOperand(loc, gradOutputValue, "grad_output");
  if (failed(gradOutput) ||
      failed(checkShapeAttr(loc, inputShape, gradOutput->getRank(),
                            "input_shape")))
    return failure();
  return inferGrad(loc, *gradOutput, inputShape, forward(), forwardOp,
                   results);
}

} // namespace

LogicalResult
SliceBackwardOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  return inferShapeGrad(loc, adaptor.getGradOutput(), inputShape, "tg.slice",
                        results, [&] {
                          return sliceShape(loc, inputShape,
                                            adaptor.getStarts(),
                                            adaptor.getEnds(),
                                            adaptor.getSteps());
                        });
}

LogicalResult
PadBackwardOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                Adaptor adaptor,
                                SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  return inferShapeGrad(loc, adaptor.getGradOutput(), inputShape, "tg.pad",
                        results, [&] {
                          return padShape(loc, inputShape, adaptor.getPads(),
                                          adaptor.getMode());
                        });
}

LogicalResult
GatherBackwardOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> inputShape = adaptor.getInputShape();
  FailureOr<RankedTensorType> gradOutput =
      rankedOperand(loc, adaptor.getGradOutput(), "grad_output");
  if (failed(gradOutput) ||
      failed(checkShapeAttr(loc, inputShape, inputShape.size(), "input_shape")))
    return failure();
  return inferGrad(
      loc, *gradOutput, inputShape,
      gatherShape(loc, inputShape, adaptor.getAxis(), adaptor.getIndices()),
      "tg.gather", results);
}

LogicalResult BroadcastOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> input =
      rankedOperand(loc, adaptor.getInput(), "input");
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (failed(input) || failed(checkAllAtLeast(loc, shape, 1, "shape")))
    return failure();
  SmallVector<int64_t> broadcast;
  if (!OpTrait::util::getBroadcastedShape(input->getShape(), shape,
                                          broadcast) ||
      ArrayRef<int64_t>(broadcast) != shape)
    return fail(loc, "'input' of shape " + shapeString(input->getShape()) +
                         " does not broadcast to 'shape' " +
                         shapeString(shape));
  results.push_back(withShape(*input, shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

#define MEMOPT_TG_LOSS_INFERENCE(OP)                                           \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    return inferLoss(loc, adaptor.getPrediction(), adaptor.getTarget(),        \
                     results);                                                 \
  }
MEMOPT_TG_LOSS_INFERENCE(MSELossOp)
MEMOPT_TG_LOSS_INFERENCE(L1LossOp)
MEMOPT_TG_LOSS_INFERENCE(BCELossOp)
#undef MEMOPT_TG_LOSS_INFERENCE

#define MEMOPT_TG_LOSS_BACKWARD_INFERENCE(OP)                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    return inferLossBackward(loc, adaptor.getGradLoss(),                       \
                             adaptor.getPrediction(), adaptor.getTarget(),     \
                             results);                                         \
  }
MEMOPT_TG_LOSS_BACKWARD_INFERENCE(MSELossBackwardOp)
MEMOPT_TG_LOSS_BACKWARD_INFERENCE(L1LossBackwardOp)
MEMOPT_TG_LOSS_BACKWARD_INFERENCE(BCELossBackwardOp)
#undef MEMOPT_TG_LOSS_BACKWARD_INFERENCE

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

/// torch.optim rejects a negative learning rate and weight decay.
static LogicalResult verifyNonNegative(Operation *op, StringRef name,
                                       double value) {
  return verifyAttrValue(op, name, value, value >= 0.0, "non-negative");
}

/// The type of `param`, which the results of an optimizer update repeat.
static FailureOr<RankedTensorType> paramType(std::optional<Location> loc,
                                             Value param) {
  return rankedOperand(loc, param, "param");
}

LogicalResult SGDUpdateOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> param = paramType(loc, adaptor.getParam());
  if (failed(param))
    return failure();
  results.push_back(*param);
  if (adaptor.getMomentumBuffer())
    results.push_back(*param);
  return success();
}

LogicalResult SGDUpdateOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (failed(verifyNonNegative(*this, "lr", getLr().convertToDouble())) ||
      failed(verifyNonNegative(*this, "momentum", momentum)) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToDouble())))
    return failure();
  if (getNesterov() &&
      !(momentum > 0.0 && getDampening().convertToDouble() == 0.0))
    return emitOpError(
        "'nesterov' requires a positive 'momentum' and zero 'dampening'");
  // torch.optim.SGD keeps a momentum buffer, initialized on the first step,
  // exactly when the momentum is not zero.
  bool hasMomentum = momentum != 0.0;
  if (static_cast<bool>(getMomentumBuffer()) != hasMomentum ||
      static_cast<bool>(getStep()) != hasMomentum)
    return emitOpError(hasMomentum
                           ? "with a non-zero 'momentum' takes a "
                             "'momentum_buffer' and a 'step'"
                           : "without 'momentum' takes no 'momentum_buffer' "
                             "and no 'step'");
  return success();
}

LogicalResult AdamUpdateOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> param = paramType(loc, adaptor.getParam());
  if (failed(param))
    return failure();
  results.append(3, *param);
  return success();
}

LogicalResult AdamUpdateOp::verify() {
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  double eps = getEps().convertToDouble();
  return success(
      succeeded(verifyNonNegative(*this, "lr", getLr().convertToDouble())) &&
      succeeded(verifyAttrValue(*this, "beta1", beta1,
                                beta1 >= 0.0 && beta1 < 1.0, "in [0, 1)")) &&
      succeeded(verifyAttrValue(*this, "beta2", beta2,
                                beta2 >= 0.0 && beta2 < 1.0, "in [0, 1)")) &&
      succeeded(verifyAttrValue(*this, "eps", eps, eps > 0.0, "positive")) &&
      succeeded(verifyNonNegative(*this, "weight_decay",
                                  getWeightDecay().convertToDouble())));
}
