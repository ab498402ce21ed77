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
//   backward   every other op (gradients, and what only they use).
// Rematerialized forward ops (recompute) will be marked by the remat pass.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_STEPPHASES_H
#define MEMOPT_ANALYSIS_STEPPHASES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

namespace memopt {

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
