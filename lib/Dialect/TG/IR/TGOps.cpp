//===- TGOps.cpp - Verifiers of the tg dialect ----------------------------===//
//
// Shape rules live in TGShapeInference.cpp and run through the
// InferTypeOpInterface verifier; the verifiers here check what does not
// affect the result type. The ops of TGGradOps.td have both in
// TGGradShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "ShapeHelpers.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace memopt::tg;
using namespace memopt::tg::detail;

static LogicalResult verifyEpsilon(Operation *op, double epsilon) {
  return verifyAttrValue(op, "epsilon", epsilon, epsilon > 0.0, "positive");
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon().convertToDouble())) ||
      failed(verifyChannelTypes(*this, getOperands().drop_front())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  return verifyAttrValue(*this, "momentum", momentum,
                         momentum >= 0.0 && momentum <= 1.0, "in [0, 1]");
}

LogicalResult BatchNormInferenceOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon().convertToDouble())))
    return failure();
  return verifyChannelTypes(*this, getOperands().drop_front());
}

LogicalResult ClipOp::verify() {
  return verifyClipBounds(*this, getMin().convertToDouble(),
                          getMax().convertToDouble());
}

LogicalResult CastOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto output = cast<RankedTensorType>(getOutput().getType());
  if (input.getShape() == output.getShape())
    return success();
  return emitOpError("changes the element type only, but its result shape ")
         << shapeString(output.getShape()) << " differs from its input shape "
         << shapeString(input.getShape());
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  return verifyAttrValue(*this, "ratio", ratio, ratio >= 0.0 && ratio < 1.0,
                         "in [0, 1)");
}

LogicalResult RandomUniformOp::verify() {
  double low = getLow().convertToDouble(), high = getHigh().convertToDouble();
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high))
    return emitOpError("needs finite bounds with low < high, got [")
           << low << ", " << high << ")";
  int64_t stream = getStreamAttr().getInt();
  return verifyAttrValue(*this, "stream", static_cast<double>(stream),
                         stream >= 0, "non-negative");
}

LogicalResult ResizeOp::verify() {
  // This verifier runs before the inferred result type is checked: sizes and
  // scales that the inference rejects are left to its diagnostics.
  SmallVector<Type> inferred;
  if (failed(inferReturnTypes(getContext(), std::nullopt, Adaptor(*this),
                              inferred)))
    return success();
  auto input = cast<RankedTensorType>(getInput().getType());
  return verifyResizeScales(*this, input.getShape().drop_front(2), getSizes(),
                            getScales());
}

ConstantOp ConstantOp::createScalar(OpBuilder &builder, Location loc,
                                    Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  auto attr =
      DenseElementsAttr::get(type, builder.getFloatAttr(elementType, value));
  return ConstantOp::create(builder, loc, type, attr);
}

#define GET_OP_CLASSES
#include "memopt/Dialect/TG/IR/TGOps.cpp.inc"
