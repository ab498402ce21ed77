//===- EvalStep.h - The evaluation function of a training step --*- C++ -*-===//
//
// tg-autodiff with eval-step=true also emits @eval_step: the forward ops of
// the training step in evaluation mode and the loss, as PyTorch computes it
// under `model.eval()` and `torch.no_grad()`. Private to the transforms
// library.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_TRANSFORMS_EVALSTEP_H
#define MEMOPT_LIB_DIALECT_TG_TRANSFORMS_EVALSTEP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

namespace memopt::tg::detail {

constexpr llvm::StringLiteral kEvalStepName = "eval_step";

/// Creates @eval_step after `trainStep`: its arguments are those of
/// `trainStep` (same types, roles and order, so that the runtime passes the
/// same buffers; it reads no optimizer state or step number), its results
/// the first `numOutputs` results of `trainStep` (the loss and the forward
/// outputs). Its body clones `forwardOps` (the forward ops of `trainStep`,
/// in order) and the op that computes the loss from them, with every
/// tg.batch_norm replaced by tg.batch_norm_inference on the running
/// statistics, every tg.dropout by its input and every random mask that
/// multiplies the activations (drop-path, drop-connect: a comparison or
/// floor of tg.random_uniform numbers, then affine ops with constants) by
/// its expectation. Fails with a diagnostic when a forward value reads what
/// evaluation mode does not compute (batch statistics, a dropout mask).
/// Returns a null function, with a warning at the random op and the
/// module attribute kEvalRefusalAttrName saying why, when the model uses
/// random numbers otherwise (additive noise, a mask through a nonlinear
/// op): evaluation mode would have to keep them, which PyTorch's may not.
mlir::FailureOr<mlir::func::FuncOp>
buildEvalStep(mlir::func::FuncOp trainStep,
              llvm::ArrayRef<mlir::Operation *> forwardOps,
              unsigned numOutputs);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_TRANSFORMS_EVALSTEP_H
