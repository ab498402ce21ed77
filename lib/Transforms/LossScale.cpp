//===- LossScale.cpp - The tg-loss-scale pass ------------------------------===//
//
// fp16 dynamic loss scaling in the training step. fp16 gradients below
// 6e-8 flush to zero; scaling the loss by S (2^16 to start) moves them into
// range, and the f32 weight gradients are divided by S before the update.
// When a scaled gradient overflows (inf/NaN), the step's updates are
// skipped and the trainer halves S; after 2000 clean steps it doubles S
// (torch.cuda.amp.GradScaler's rule). The rewrite:
//
//   - the backward starts from %S {tg.loss_scale = "loss_scale"}
//     (tensor<f32>, set by the trainer before each step): tg-autodiff
//     seeds it so with scaled-seed (the pipeline's fp16), which scales
//     every loss, of one op or of several terms; on a step seeded with
//     1.0, this pass adds %S and puts it in place of the constant 1.0 seed
//     of each loss op's backward (`*_loss_backward`);
//   - every optimizer update moves to the end of the step; before them,
//     one sum per weight gradient, all added and multiplied by 0, gives 0,
//     or NaN as soon as one gradient holds an inf or a NaN, and
//     D = S + that; each update takes its gradient divided by D (exact:
//     S is a power of two) and is marked `tg.skip_nonfinite`: its kernel
//     leaves the parameter and the optimizer state untouched when the
//     gradient is not finite, which, through D, is every update of the step
//     or none.
//
// Every update now depends on every gradient, so the schedule computes all
// gradients before the first update and the memory plan holds them until
// then, as PyTorch holds .grad (docs/passes/loss-scale.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Matchers.h"

namespace memopt {
#define GEN_PASS_DEF_LOSSSCALE
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

/// Whether `value` is the constant 1.0 (the seed of the backward).
bool isOne(Value value) {
  DenseFPElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.isSplat())
    return false;
  return dense.getSplatValue<APFloat>().convertToDouble() == 1.0;
}

/// The gradient operand of an optimizer update, or null for another op.
OpOperand *gradOperand(Operation *op) {
  if (auto sgd = dyn_cast<tg::SGDUpdateOp>(op))
    return &sgd.getGradMutable();
  if (auto adam = dyn_cast<tg::AdamUpdateOp>(op))
    return &adam.getGradMutable();
  return nullptr;
}

/// Adds the loss scale argument at the end of `function`'s arguments.
FailureOr<Value> addScaleArgument(func::FuncOp function) {
  Builder builder(function.getContext());
  unsigned index = function.getNumArguments();
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  if (failed(function.insertArgument(
          index, scalar,
          builder.getDictionaryAttr(
              builder.getNamedAttr(tg::TGDialect::kLossScaleAttrName,
                                   builder.getStringAttr("loss_scale"))),
          NameLoc::get(builder.getStringAttr("loss_scale"),
                       function.getLoc())))) {
    function.emitError("tg-loss-scale: cannot add the loss scale argument");
    return failure();
  }
  return function.getArgument(index);
}

/// The function's tg.loss_scale argument, or null.
Value scaleArgument(func::FuncOp function) {
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    if (function.getArgAttr(i, tg::TGDialect::kLossScaleAttrName))
      return function.getArgument(i);
  return {};
}

class LossScalePass : public memopt::impl::LossScaleBase<LossScalePass> {
public:
  void runOnOperation() override {
    bool scaled = false;
    for (func::FuncOp function : getOperation().getOps<func::FuncOp>()) {
      FailureOr<bool> rewritten = rewrite(function);
      if (failed(rewritten))
        return signalPassFailure();
      scaled |= *rewritten;
    }
    // The evaluation step takes the training step's arguments (the
    // trainer passes it the same ones): it gets the scale too, unused.
    if (scaled)
      if (auto eval = getOperation().lookupSymbol<func::FuncOp>("eval_step"))
        if (!scaleArgument(eval) && failed(addScaleArgument(eval)))
          return signalPassFailure();
  }

private:
  /// Rewrites a training step; false for a function without updates.
  FailureOr<bool> rewrite(func::FuncOp function) {
    if (function.isExternal())
      return false;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-loss-scale: expected a function with one block");
      return failure();
    }
    Block &body = function.getBody().front();
    SmallVector<Operation *> updates;
    SmallVector<OpOperand *> seeds;
    for (Operation &op : body.without_terminator()) {
      if (gradOperand(&op))
        updates.push_back(&op);
      if (op.getName().getStringRef().ends_with("_loss_backward") &&
          op.getNumOperands() > 0 && isOne(op.getOperand(0)))
        seeds.push_back(&op.getOpOperand(0));
    }
    if (updates.empty())
      return false;
    if (llvm::any_of(updates, [](Operation *update) {
          return update->hasAttr(tg::TGDialect::kSkipNonFiniteAttrName);
        })) {
      function.emitError("tg-loss-scale: the step's updates are scaled "
                         "already (tg.skip_nonfinite)");
      return failure();
    }
    // Seeded by tg-autodiff (scaled-seed): the scale is there, and no loss
    // may start from 1.0 beside it (its gradients would be unscaled, then
    // divided by the scale).
    FailureOr<Value> scale = failure();
    if (Value given = scaleArgument(function))
      scale = given;
    if (succeeded(scale) && !seeds.empty()) {
      function.emitError("tg-loss-scale: the step has a tg.loss_scale "
                         "argument and also a loss backward seeded with "
                         "1.0; seed every loss with the scale (tg-autodiff "
                         "scaled-seed) or none");
      return failure();
    }
    if (failed(scale)) {
      if (seeds.empty()) {
        function.emitError("tg-loss-scale: the step's loss has no gradient "
                           "seed of 1.0 (an mse, l1, bce, ce or dice loss's "
                           "backward) and no tg.loss_scale argument: build "
                           "the step with tg-autodiff's scaled-seed, which "
                           "scales any loss");
        return failure();
      }
      scale = addScaleArgument(function);
      if (failed(scale))
        return failure();
      for (OpOperand *seed : seeds) {
        Operation *one = seed->get().getDefiningOp();
        seed->set(*scale);
        if (one->use_empty())
          one->erase();
      }
    }

    // The updates go last (only the return reads them), the finiteness
    // test of all gradients right before them.
    Operation *terminator = body.getTerminator();
    for (Operation *update : updates)
      update->moveBefore(terminator);
    OpBuilder builder(updates.front());
    Location loc = function.getLoc();
    Value total;
    for (Operation *update : updates) {
      Value grad = gradOperand(update)->get();
      Value sum = tg::ReduceSumOp::create(builder, loc, grad,
                                          builder.getDenseI64ArrayAttr({}),
                                          builder.getBoolAttr(false));
      total = total ? tg::AddOp::create(builder, loc, total, sum).getResult()
                    : sum;
    }
    Value zero = tg::ConstantOp::createScalar(builder, loc,
                                              builder.getF32Type(), 0.0);
    Value poison = tg::MulOp::create(builder, loc, total, zero);
    Value divisor = tg::AddOp::create(builder, loc, *scale, poison);
    for (Operation *update : updates) {
      OpOperand *grad = gradOperand(update);
      grad->set(tg::DivOp::create(builder, loc, grad->get(), divisor));
      update->setAttr(tg::TGDialect::kSkipNonFiniteAttrName,
                      builder.getUnitAttr());
    }
    numScaledUpdates += updates.size();
    return true;
  }
};

} // namespace
