//===- CostModel.cpp - FLOPs, bytes and time of tg ops --------------------===//
//
// Formulas (docs/cost-model.md): a convolution does 2 FLOPs (multiply, add)
// per output element per weight tap of one group, and so do its two
// gradients, with the roles of the tensors exchanged; matmul does 2 per
// output element per reduced element. Elementwise ops, losses and
// optimizer updates count a fixed number of FLOPs per element (the table
// below); data movement (concat, slice, pad, reshape, ...) counts none and
// costs only its bytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/CostModel.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;

namespace {

uint64_t elements(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return static_cast<uint64_t>(type.getNumElements());
}

uint64_t dim(Value value, unsigned index) {
  return static_cast<uint64_t>(
      cast<RankedTensorType>(value.getType()).getDimSize(index));
}

/// kH * kW * (channels per group) of a convolution weight shape: the taps
/// that one output element of a 2-D convolution sums over.
uint64_t tapsPerOutput(ArrayRef<int64_t> weightShape) {
  return static_cast<uint64_t>(weightShape[1] * weightShape[2] *
                               weightShape[3]);
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

uint64_t window(ArrayRef<int64_t> kernel) {
  return static_cast<uint64_t>(kernel[0] * kernel[1]);
}

/// FLOPs per element of the op's first result for elementwise ops, losses
/// (per prediction element) and optimizer updates (per parameter element).
/// A transcendental function counts as one FLOP.
std::optional<uint64_t> perElementFlops(Operation *op) {
  if (auto sgd = dyn_cast<tg::SGDUpdateOp>(op)) {
    // p -= lr * d (2); d = g + wd * p (2); buf = m * buf + (1 - damp) * d
    // (3); nesterov: d = g + m * buf (2).
    uint64_t flops = 2;
    if (!sgd.getWeightDecay().isZero())
      flops += 2;
    if (sgd.getMomentumBuffer())
      flops += sgd.getNesterov() ? 5 : 3;
    return flops;
  }
  if (auto adam = dyn_cast<tg::AdamUpdateOp>(op)) {
    // m = b1 m + (1 - b1) g (3); v = b2 v + (1 - b2) g^2 (4); denominator
    // sqrt(v) / sqrt(bc2) + eps (3); p -= step * m / denominator (3); weight
    // decay: g += wd p (2) or, decoupled, p *= 1 - lr wd (1).
    uint64_t flops = 13;
    if (!adam.getWeightDecay().isZero())
      flops += adam.getDecoupled() ? 1 : 2;
    return flops;
  }
  return llvm::StringSwitch<std::optional<uint64_t>>(
             op->getName().stripDialect())
      .Cases({"relu", "neg", "exp", "log", "sqrt", "abs", "sign"}, 1)
      .Cases({"sigmoid", "tanh"}, 4) // exp, add, divide, (negate)
      .Cases({"leaky_relu", "clip"}, 2)
      .Cases({"erf", "prelu"}, 2)
      .Cases({"hard_sigmoid", "elu", "softplus"}, 3) // scale/exp, add, clamp
      .Case("hard_swish", 4) // add, clamp, multiply, divide
      .Cases({"softmax", "log_softmax"}, 4) // max, exp, sum, normalize
      .Cases({"hard_sigmoid_backward", "prelu_backward"}, 3)
      .Cases({"hard_swish_backward", "elu_backward", "erf_backward",
              "softplus_backward", "softmax_backward",
              "log_softmax_backward"}, 4)
      // Per logit: a softmax (4), the target term or its gradient (2).
      .Cases({"cross_entropy_loss", "cross_entropy_loss_backward"}, 6)
      .Cases({"dice_loss", "dice_loss_backward"}, 8)
      .Cases({"add", "sub", "mul", "div"}, 1)
      .Case("dropout", 2) // compare, scale
      .Cases({"relu_backward", "leaky_relu_backward", "clip_backward"}, 2)
      .Cases({"sigmoid_backward", "tanh_backward"}, 3)
      .Cases({"mse_loss", "l1_loss"}, 3) // difference, square/abs, sum
      .Case("bce_loss", 7) // two logs, two products, three sums
      .Cases({"mse_loss_backward", "l1_loss_backward"}, 3)
      .Case("bce_loss_backward", 5)
      .Default(std::nullopt);
}

bool isDataMovement(Operation *op) {
  return isa<tg::ConstantOp, tg::ConcatOp, tg::SliceOp, tg::SliceBackwardOp,
             tg::PadOp, tg::ReshapeOp, tg::TransposeOp, tg::BroadcastOp>(op);
}

} // namespace

uint64_t memopt::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return static_cast<uint64_t>(tensor.getNumElements()) *
         ((tensor.getElementTypeBitWidth() + 7) / 8);
}

uint64_t memopt::countFlops(Operation *op) {
  if (isDataMovement(op) || op->getNumResults() == 0)
    return 0;
  return llvm::TypeSwitch<Operation *, uint64_t>(op)
      .Case([](tg::Conv2DOp conv) {
        uint64_t out = elements(conv.getOutput());
        return 2 * out * tapsPerOutput(shapeOf(conv.getWeight())) +
               (conv.getBias() ? out : 0);
      })
      .Case([](tg::Conv2DBackwardDataOp conv) {
        return 2 * elements(conv.getGradOutput()) *
               tapsPerOutput(shapeOf(conv.getWeight()));
      })
      .Case([](tg::Conv2DBackwardFilterOp conv) {
        return 2 * elements(conv.getGradOutput()) *
               tapsPerOutput(conv.getWeightShape());
      })
      .Case([](tg::ConvTranspose2DOp conv) {
        // Each input element scatters into (O / groups) * kH * kW outputs.
        return 2 * elements(conv.getInput()) *
                   tapsPerOutput(shapeOf(conv.getWeight())) +
               (conv.getBias() ? elements(conv.getOutput()) : 0);
      })
      .Case([](tg::ConvTranspose2DBackwardFilterOp conv) {
        return 2 * elements(conv.getInput()) *
               tapsPerOutput(conv.getWeightShape());
      })
      .Case([](tg::MatMulOp matmul) {
        ArrayRef<int64_t> lhs = shapeOf(matmul.getLhs());
        return 2 * elements(matmul.getOutput()) *
               static_cast<uint64_t>(lhs.empty() ? 1 : lhs.back());
      })
      .Case([](tg::GemmOp gemm) {
        uint64_t reduced = dim(gemm.getA(), gemm.getTransA() ? 0 : 1);
        uint64_t out = elements(gemm.getOutput());
        return 2 * out * reduced + (gemm.getC() ? 2 * out : 0);
      })
      .Case([](tg::BatchNormOp bn) {
        // Statistics: sum and sum of squares (3 per element); normalize and
        // scale/shift (4 per element); running statistics (4 per channel).
        return 7 * elements(bn.getInput()) + 4 * elements(bn.getScale());
      })
      .Case([](tg::InstanceNormOp norm) {
        // As training-mode batch norm, with statistics per (n, c) slice.
        return 7 * elements(norm.getInput()) + 4 * elements(norm.getSavedMean());
      })
      .Case([](tg::InstanceNormBackwardOp norm) {
        return 9 * elements(norm.getInput());
      })
      .Case([](tg::BatchNormInferenceOp bn) {
        // Scale and shift folded per channel (2 per channel), then one
        // multiply-add per element.
        return 2 * elements(bn.getInput()) + 2 * elements(bn.getScale());
      })
      .Case([](tg::BatchNormBackwardOp bn) {
        // x_hat (2), sums of dy and dy * x_hat (3), dx = k * (dy - a -
        // x_hat * b) (4), per element.
        return 9 * elements(bn.getInput());
      })
      .Case([](tg::MaxPool2DOp pool) {
        return elements(pool.getOutput()) * window(pool.getKernel());
      })
      .Case([](tg::MaxPool2DBackwardOp pool) {
        // Find the window's maximum again, then add the gradient there.
        return elements(pool.getGradOutput()) * (window(pool.getKernel()) + 1);
      })
      .Case([](tg::AvgPool2DOp pool) {
        return elements(pool.getOutput()) * window(pool.getKernel());
      })
      .Case([](tg::AvgPool2DBackwardOp pool) {
        return elements(pool.getGradOutput()) * window(pool.getKernel());
      })
      .Case([](tg::GlobalAvgPoolOp pool) {
        return elements(pool.getInput()) + elements(pool.getOutput());
      })
      .Case([](tg::ResizeOp resize) {
        // Nearest copies; bilinear weighs 4 taps (4 multiplies, 3 adds).
        return resize.getMode() == tg::ResizeMode::nearest
                   ? uint64_t(0)
                   : 7 * elements(resize.getOutput());
      })
      .Case([](tg::ResizeBackwardOp resize) {
        // Every output gradient is added to its 1 (nearest) or 4 (bilinear,
        // weighted) sources.
        return resize.getMode() == tg::ResizeMode::nearest
                   ? elements(resize.getGradOutput())
                   : 8 * elements(resize.getGradOutput());
      })
      .Case<tg::ReduceSumOp>(
          [](tg::ReduceSumOp reduce) { return elements(reduce.getInput()); })
      .Case([](tg::ReduceMeanOp reduce) {
        return elements(reduce.getInput()) + elements(reduce.getOutput());
      })
      .Default([](Operation *op) -> uint64_t {
        // Elementwise ops, losses, optimizer updates: per element of the
        // larger of the first operand and the first result (a loss reduces
        // its prediction to a scalar). An op the table does not know counts
        // one FLOP per element.
        if (!isa<RankedTensorType>(op->getResult(0).getType()))
          return 0;
        uint64_t count = elements(op->getResult(0));
        if (op->getNumOperands() > 0 &&
            isa<RankedTensorType>(op->getOperand(0).getType()))
          count = std::max(count, elements(op->getOperand(0)));
        return count * perElementFlops(op).value_or(1);
      });
}

OpCost CostModel::cost(Operation *op) const {
  OpCost cost;
  if (isa<tg::ConstantOp>(op) || !isa<tg::TGDialect>(op->getDialect()))
    return cost;
  cost.flops = countFlops(op);
  for (Value operand : op->getOperands())
    cost.bytesRead += tensorBytes(operand.getType());
  for (Value result : op->getResults())
    cost.bytesWritten += tensorBytes(result.getType());
  cost.workspaceBytes = workspace ? workspace(op) : 0;
  auto resultType = op->getNumResults()
                        ? dyn_cast<ShapedType>(op->getResult(0).getType())
                        : ShapedType();
  Type elementType = resultType ? resultType.getElementType()
                                : Float32Type::get(op->getContext());
  double computeSeconds =
      static_cast<double>(cost.flops) / device.peakFlops(elementType);
  double memorySeconds =
      static_cast<double>(cost.bytes()) / device.memoryBandwidth;
  cost.seconds =
      std::max(computeSeconds, memorySeconds) + device.launchSeconds;
  return cost;
}

StepCost memopt::estimateStepCost(
    func::FuncOp step, const CostModel &model, const StepPhases &phases,
    function_ref<void(Operation *, const OpCost &, StepPhase)> each) {
  StepCost total;
  step.walk([&](Operation *op) {
    if (!isa<tg::TGDialect>(op->getDialect()) || isa<tg::ConstantOp>(op))
      return;
    OpCost cost = model.cost(op);
    StepPhase phase = phases.phase(op);
    unsigned index = static_cast<unsigned>(phase);
    total.flops[index] += cost.flops;
    total.seconds[index] += cost.seconds;
    total.bytes += cost.bytes();
    if (each)
      each(op, cost, phase);
  });
  return total;
}
