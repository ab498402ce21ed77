//===- TGKernelFacts.cpp - KernelOpInterface of the tg ops ----------------===//
//
// Per op: FLOPs (formulas in docs/cost-model.md), whether recomputing it is
// cheap, the operands a result may overwrite, the operand a result updates
// and the convolution a workspace is sized for. Elementwise ops and losses
// state their FLOPs per element in ODS (TG_PerElementKernelFacts); bytes
// read and written are the interface's defaults for every op.
//
// A convolution does 2 FLOPs (multiply, add) per output element per weight
// tap of one group, and so do its two gradients with the roles of the
// tensors exchanged; matmul does 2 per output element per reduced element;
// data movement (concat, slice, pad, reshape, ...) counts none and costs
// only its bytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt::tg;
using Kind = ConvolutionProblem::Kind;

namespace {

uint64_t elements(Value value) {
  return static_cast<uint64_t>(
      cast<RankedTensorType>(value.getType()).getNumElements());
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// (channels per group) * K1 * ... * Kk of a convolution weight shape: the
/// taps that one output element of a 1-D, 2-D or 3-D convolution sums over.
uint64_t tapsPerOutput(ArrayRef<int64_t> weightShape) {
  uint64_t taps = 1;
  for (int64_t extent : weightShape.drop_front())
    taps *= static_cast<uint64_t>(extent);
  return taps;
}

/// The convolution that `op` (a convolution kernel) computes, given the
/// tensors of its forward convolution.
template <typename ConvOp>
ConvolutionProblem problem(ConvOp op, Kind kind, Value input, Value weight,
                           Value output, bool hasBias = false,
                           ArrayRef<int64_t> outputPadding = {}) {
  return {kind,
          shapeOf(input),
          shapeOf(weight),
          shapeOf(output),
          hasBias,
          op.getStrides(),
          op.getPads(),
          op.getDilations(),
          outputPadding,
          static_cast<int64_t>(op.getGroups()),
          cast<ShapedType>(input.getType()).getElementType()};
}

/// The taps of a 1-D, 2-D or 3-D pooling window.
uint64_t window(ArrayRef<int64_t> kernel) {
  uint64_t taps = 1;
  for (int64_t extent : kernel)
    taps *= static_cast<uint64_t>(extent);
  return taps;
}

/// The single-result ops whose result overwrites operand `operand` when it
/// has the result's type: BatchNorm reads a channel (statistics first)
/// before it writes it (lib/Runtime/CPU/BatchNorm.cpp).
SmallVector<unsigned, 2> sameTypeOperands(Operation *op, unsigned result,
                                          ArrayRef<unsigned> operands) {
  SmallVector<unsigned, 2> candidates;
  if (result != 0)
    return candidates;
  for (unsigned operand : operands)
    if (op->getOperand(operand).getType() == op->getResult(0).getType())
      candidates.push_back(operand);
  return candidates;
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

uint64_t ConvOp::getFlops() {
  uint64_t out = elements(getOutput());
  return 2 * out * tapsPerOutput(shapeOf(getWeight())) + (getBias() ? out : 0);
}
bool ConvOp::isCheapToRecompute() { return false; }
FailureOr<uint64_t> ConvOp::getWorkspaceBytes(const WorkspacePolicy &policy) {
  return policy.convolution(*this, problem(*this, Kind::Forward, getInput(),
                                           getWeight(), getOutput(),
                                           static_cast<bool>(getBias())));
}

uint64_t ConvBackwardDataOp::getFlops() {
  return 2 * elements(getGradOutput()) * tapsPerOutput(shapeOf(getWeight()));
}
bool ConvBackwardDataOp::isCheapToRecompute() { return false; }
FailureOr<uint64_t>
ConvBackwardDataOp::getWorkspaceBytes(const WorkspacePolicy &policy) {
  return policy.convolution(*this,
                            problem(*this, Kind::BackwardData, getGradInput(),
                                    getWeight(), getGradOutput()));
}

uint64_t ConvBackwardFilterOp::getFlops() {
  return 2 * elements(getGradOutput()) * tapsPerOutput(getWeightShape());
}
bool ConvBackwardFilterOp::isCheapToRecompute() { return false; }
FailureOr<uint64_t>
ConvBackwardFilterOp::getWorkspaceBytes(const WorkspacePolicy &policy) {
  return policy.convolution(*this,
                            problem(*this, Kind::BackwardFilter, getInput(),
                                    getGradWeight(), getGradOutput()));
}

/// Each input element scatters into (O / groups) * kH * kW outputs.
uint64_t ConvTransposeOp::getFlops() {
  return 2 * elements(getInput()) * tapsPerOutput(shapeOf(getWeight())) +
         (getBias() ? elements(getOutput()) : 0);
}
bool ConvTransposeOp::isCheapToRecompute() { return false; }
FailureOr<uint64_t>
ConvTransposeOp::getWorkspaceBytes(const WorkspacePolicy &policy) {
  return policy.convolution(*this, problem(*this, Kind::Transposed, getOutput(),
                                           getWeight(), getInput(),
                                           static_cast<bool>(getBias()),
                                           getOutputPadding()));
}

uint64_t ConvTransposeBackwardFilterOp::getFlops() {
  return 2 * elements(getInput()) * tapsPerOutput(getWeightShape());
}
bool ConvTransposeBackwardFilterOp::isCheapToRecompute() { return false; }
FailureOr<uint64_t> ConvTransposeBackwardFilterOp::getWorkspaceBytes(
    const WorkspacePolicy &policy) {
  return policy.convolution(
      *this, problem(*this, Kind::TransposedBackwardFilter, getGradOutput(),
                     getGradWeight(), getInput(), false, getOutputPadding()));
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Statistics: sum and sum of squares (3 per element); normalize and
/// scale/shift (4 per element); running statistics (4 per channel).
uint64_t BatchNormOp::getFlops() {
  return 7 * elements(getInput()) + 4 * elements(getScale());
}
/// Its results include the step's new running statistics.
bool BatchNormOp::isCheapToRecompute() { return false; }
SmallVector<unsigned, 2> BatchNormOp::getInPlaceOperands(unsigned result) {
  return sameTypeOperands(*this, result, {0});
}
Value BatchNormOp::getUpdatedOperand(unsigned result) {
  return result == 1   ? getRunningMean()
         : result == 2 ? getRunningVar()
                       : Value();
}

/// Scale and shift folded per channel (2 per channel), then one
/// multiply-add per element.
uint64_t BatchNormInferenceOp::getFlops() {
  return 2 * elements(getInput()) + 2 * elements(getScale());
}
bool BatchNormInferenceOp::isCheapToRecompute() { return true; }
SmallVector<unsigned, 2>
BatchNormInferenceOp::getInPlaceOperands(unsigned result) {
  return sameTypeOperands(*this, result, {0});
}

/// As training-mode batch norm, with statistics per (n, c) slice; not in
/// place (the runtime reads the input again for the output).
uint64_t InstanceNormOp::getFlops() {
  return 7 * elements(getInput()) + 4 * elements(getSavedMean());
}
bool InstanceNormOp::isCheapToRecompute() { return false; }

uint64_t InstanceNormBackwardOp::getFlops() {
  return 9 * elements(getInput());
}
bool InstanceNormBackwardOp::isCheapToRecompute() { return false; }

/// x_hat (2), sums of dy and dy * x_hat (3), dx = k * (dy - a - x_hat * b)
/// (4), per element.
uint64_t BatchNormBackwardOp::getFlops() { return 9 * elements(getInput()); }
bool BatchNormBackwardOp::isCheapToRecompute() { return false; }
SmallVector<unsigned, 2>
BatchNormBackwardOp::getInPlaceOperands(unsigned result) {
  return sameTypeOperands(*this, result, {0, 1}); // grad_output, input
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Compare, scale. Not recomputed: it draws random numbers.
uint64_t DropoutOp::getFlops() { return detail::perElementFlops(*this, 2); }
bool DropoutOp::isCheapToRecompute() { return false; }

/// Hash and scale per element. Cheap, and a clone (same stream) draws the
/// same numbers: remat may recompute it.
uint64_t RandomUniformOp::getFlops() {
  return detail::perElementFlops(*this, 2);
}
bool RandomUniformOp::isCheapToRecompute() { return true; }

/// A conversion moves data; it counts no FLOPs.
uint64_t CastOp::getFlops() { return 0; }
bool CastOp::isCheapToRecompute() { return true; }

/// One kernel computes the whole body: the FLOPs of its ops (bytes are
/// the inputs and the output, the intermediate values are never stored).
uint64_t FusedElementwiseOp::getFlops() {
  uint64_t flops = 0;
  for (Operation &op : getBody().front().without_terminator())
    if (auto kernel = dyn_cast<KernelOpInterface>(op))
      flops += kernel.getFlops();
  return flops;
}
bool FusedElementwiseOp::isCheapToRecompute() { return true; }

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

uint64_t MaxPoolOp::getFlops() {
  return elements(getOutput()) * window(getKernel());
}
bool MaxPoolOp::isCheapToRecompute() { return true; }

/// Find the window's maximum again, then add the gradient there.
uint64_t MaxPoolBackwardOp::getFlops() {
  return elements(getGradOutput()) * (window(getKernel()) + 1);
}
bool MaxPoolBackwardOp::isCheapToRecompute() { return true; }

uint64_t AvgPoolOp::getFlops() {
  return elements(getOutput()) * window(getKernel());
}
bool AvgPoolOp::isCheapToRecompute() { return true; }

uint64_t AvgPoolBackwardOp::getFlops() {
  return elements(getGradOutput()) * window(getKernel());
}
bool AvgPoolBackwardOp::isCheapToRecompute() { return true; }

uint64_t GlobalAvgPoolOp::getFlops() {
  return elements(getInput()) + elements(getOutput());
}
bool GlobalAvgPoolOp::isCheapToRecompute() { return true; }

/// Nearest copies; linear interpolation over k spatial axes weighs 2^k taps
/// (2^k multiplies, 2^k - 1 adds: 7 in 2-D).
uint64_t ResizeOp::getFlops() {
  uint64_t taps = uint64_t(1) << getScales().size();
  return getMode() == ResizeMode::nearest ? 0
                                          : (2 * taps - 1) * elements(getOutput());
}
bool ResizeOp::isCheapToRecompute() { return true; }

/// Every output gradient is added to its 1 (nearest) or 2^k (linear,
/// weighted: a multiply and an add each) sources.
uint64_t ResizeBackwardOp::getFlops() {
  uint64_t taps = uint64_t(1) << getScales().size();
  return (getMode() == ResizeMode::nearest ? 1 : 2 * taps) *
         elements(getGradOutput());
}
bool ResizeBackwardOp::isCheapToRecompute() { return true; }

//===----------------------------------------------------------------------===//
// Shape manipulation: data movement, no FLOPs
//===----------------------------------------------------------------------===//

uint64_t ConcatOp::getFlops() { return 0; }
bool ConcatOp::isCheapToRecompute() { return true; }
uint64_t SliceOp::getFlops() { return 0; }
bool SliceOp::isCheapToRecompute() { return true; }
uint64_t SliceBackwardOp::getFlops() { return 0; }
bool SliceBackwardOp::isCheapToRecompute() { return true; }
uint64_t PadOp::getFlops() { return 0; }
bool PadOp::isCheapToRecompute() { return true; }
uint64_t PadBackwardOp::getFlops() { return 0; }
bool PadBackwardOp::isCheapToRecompute() { return true; }
uint64_t GatherOp::getFlops() { return 0; }
bool GatherOp::isCheapToRecompute() { return true; }
/// Every output gradient is added once to the element it was gathered from.
uint64_t GatherBackwardOp::getFlops() { return elements(getGradOutput()); }
bool GatherBackwardOp::isCheapToRecompute() { return true; }
uint64_t ReshapeOp::getFlops() { return 0; }
bool ReshapeOp::isCheapToRecompute() { return true; }
uint64_t TransposeOp::getFlops() { return 0; }
bool TransposeOp::isCheapToRecompute() { return true; }
uint64_t BroadcastOp::getFlops() { return 0; }
bool BroadcastOp::isCheapToRecompute() { return true; }

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

uint64_t MatMulOp::getFlops() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs());
  return 2 * elements(getOutput()) *
         static_cast<uint64_t>(lhs.empty() ? 1 : lhs.back());
}
bool MatMulOp::isCheapToRecompute() { return false; }

uint64_t GemmOp::getFlops() {
  uint64_t reduced =
      static_cast<uint64_t>(shapeOf(getA())[getTransA() ? 0 : 1]);
  uint64_t out = elements(getOutput());
  return 2 * out * reduced + (getC() ? 2 * out : 0);
}
bool GemmOp::isCheapToRecompute() { return false; }

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

uint64_t ReduceSumOp::getFlops() { return elements(getInput()); }
bool ReduceSumOp::isCheapToRecompute() { return true; }
uint64_t ReduceMeanOp::getFlops() {
  return elements(getInput()) + elements(getOutput());
}
bool ReduceMeanOp::isCheapToRecompute() { return true; }

//===----------------------------------------------------------------------===//
// Optimizer updates: per parameter element; the step's new state, never
// recomputed
//===----------------------------------------------------------------------===//

/// p -= lr * d (2); d = g + wd * p (2); buf = m * buf + (1 - damp) * d (3);
/// nesterov: d = g + m * buf (2).
uint64_t SGDUpdateOp::getFlops() {
  uint64_t flops = 2;
  if (!getWeightDecay().isZero())
    flops += 2;
  if (getMomentumBuffer())
    flops += getNesterov() ? 5 : 3;
  return detail::perElementFlops(*this, flops);
}
bool SGDUpdateOp::isCheapToRecompute() { return false; }
Value SGDUpdateOp::getUpdatedOperand(unsigned result) {
  return result == 0 ? getParam() : getMomentumBuffer();
}

/// m = b1 m + (1 - b1) g (3); v = b2 v + (1 - b2) g^2 (4); denominator
/// sqrt(v) / sqrt(bc2) + eps (3); p -= step * m / denominator (3); weight
/// decay: g += wd p (2) or, decoupled, p *= 1 - lr wd (1).
uint64_t AdamUpdateOp::getFlops() {
  uint64_t flops = 13;
  if (!getWeightDecay().isZero())
    flops += getDecoupled() ? 1 : 2;
  return detail::perElementFlops(*this, flops);
}
bool AdamUpdateOp::isCheapToRecompute() { return false; }
Value AdamUpdateOp::getUpdatedOperand(unsigned result) {
  return result == 0 ? getParam() : result == 1 ? getExpAvg() : getExpAvgSq();
}
