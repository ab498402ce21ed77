//===- StepPhases.h - Forward, backward and optimizer ops -------*- C++ -*-===//
//
// Which part of the training step each op belongs to, read from the graph's
// structure so that canonicalization, CSE or a new schedule cannot confuse
// it:
//   optimizer  tg.sgd_update and tg.adam_update;
//   forward    the ops that the step's forward outputs (tg.output results:
//              the loss and the model's outputs) and its updated tg.state
//              results (BatchNorm running statistics) depend on; no
//              gradient is among them, since neither depends on a gradient;
//              In a stage of a partitioned step, the values it sends to
//              another stage's forward ops (tg.send marked `forward`) are
//              roots too, and the sends forward ops;
//   backward   every other op (gradients, and what only they use).
// Forward ops that tg-remat cloned into the backward (recomputation) are
// backward ops by this rule; they carry `memopt.recompute`
// (isRecomputation), which the cost model sums apart.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_STEPPHASES_H
#define MEMOPT_ANALYSIS_STEPPHASES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

namespace memopt {

/// The unit attribute that tg-remat puts on the forward ops it clones into
/// the backward; tg-schedule keeps them right before their first user.
constexpr llvm::StringLiteral kRecomputeAttr = "memopt.recompute";

/// Whether `op` recomputes a forward value (tg-remat's clone).
inline bool isRecomputation(mlir::Operation *op) {
  return op->hasAttr(kRecomputeAttr);
}

enum class StepPhase { Forward, Backward, Optimizer };

llvm::StringRef stringifyStepPhase(StepPhase phase);

class StepPhases {
public:
  /// Classifies the ops of `step`'s body. A function without role
  /// attributes (a forward-only graph) is all forward.
  explicit StepPhases(mlir::func::FuncOp step);

  StepPhase phase(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Operation *, StepPhase> phases;
};

} // namespace memopt

#endif // MEMOPT_ANALYSIS_STEPPHASES_H
