//===- TGOps.cpp - Verifiers of the tg dialect ----------------------------===//
//
// Shape rules live in TGShapeInference.cpp and run through the
// InferTypeOpInterface verifier; the verifiers here check what does not
// affect the result type.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace memopt::tg;

static LogicalResult verifyEpsilon(Operation *op, double epsilon) {
  if (!(epsilon > 0.0))
    return op->emitOpError("'epsilon' must be positive, got ") << epsilon;
  return success();
}

/// Per-channel operands share one element type, which may differ from the
/// input's: mixed precision keeps statistics in f32 under a bf16 input.
static LogicalResult verifyChannelTypes(Operation *op, ValueRange channels) {
  Type type = getElementTypeOrSelf(channels.front().getType());
  for (Value value : channels.drop_front())
    if (getElementTypeOrSelf(value.getType()) != type)
      return op->emitOpError(
          "per-channel operands must have one element type");
  return success();
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon().convertToDouble())) ||
      failed(verifyChannelTypes(*this, getOperands().drop_front())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return emitOpError("'momentum' must be in [0, 1], got ") << momentum;
  return success();
}

LogicalResult BatchNormInferenceOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon().convertToDouble())))
    return failure();
  return verifyChannelTypes(*this, getOperands().drop_front());
}

LogicalResult ClipOp::verify() {
  if (!(getMin().convertToDouble() <= getMax().convertToDouble()))
    return emitOpError("'min' (") << getMin().convertToDouble() << ") must not exceed 'max' ("
                                  << getMax().convertToDouble() << ")";
  return success();
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError("'ratio' must be in [0, 1), got ") << ratio;
  return success();
}

LogicalResult ResizeOp::verify() {
  // This verifier runs before the inferred result type is checked: sizes and
  // scales that the inference rejects are left to its diagnostics.
  SmallVector<Type> inferred;
  if (failed(inferReturnTypes(getContext(), std::nullopt, Adaptor(*this),
                              inferred)))
    return success();
  auto input = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> sizes = getSizes();
  ArrayRef<double> scales = getScales();
  for (int i = 0; i < 2; ++i) {
    // ONNX derives sizes as floor(in * scale); scales derived from sizes
    // (out / in) round-trip only up to floating-point error.
    double exact = input.getDimSize(2 + i) * scales[i];
    if (std::fabs(exact - static_cast<double>(sizes[i])) >= 1.0)
      return emitOpError("'sizes' [")
             << sizes[0] << ", " << sizes[1] << "] disagree with 'scales' ["
             << scales[0] << ", " << scales[1] << "] for input "
             << input.getDimSize(2) << "x" << input.getDimSize(3);
  }
  return success();
}

#define GET_OP_CLASSES
#include "memopt/Dialect/TG/IR/TGOps.cpp.inc"
