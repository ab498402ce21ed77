//===- StepEstimate.h - What memopt-compile predicts of the step -*- C++ -*-===//
//
// The cost model and the memory timeline of the training step on the
// chosen device, taken before the step is lowered, and the compile report
// (docs/contract.md, reports) built from them and from the arena plan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMOPTCOMPILE_STEPESTIMATE_H
#define MEMOPT_TOOLS_MEMOPTCOMPILE_STEPESTIMATE_H

#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Analysis/Workspace.h"

#include "llvm/Support/JSON.h"

#include <optional>

namespace memopt {

struct StepEstimate {
  DeviceProfile device;
  WorkspaceTarget target;
  StepCost cost;
  MemoryTimeline timeline;

  /// Cost model and timeline of `step` (whose arena plan is `plan`, if
  /// given); fails (with a diagnostic) when a workspace size cannot be
  /// known.
  static mlir::FailureOr<StepEstimate> compute(mlir::func::FuncOp step,
                                               const DeviceProfile &device,
                                               WorkspaceTarget target,
                                               const ArenaPlan *plan = nullptr);

  /// Persistent bytes that stay in host memory (CUDA: step number, seed).
  uint64_t hostScalarBytes = 0;

  /// What the trainer allocates: the persistent buffers (weights, optimizer
  /// state, inputs and outputs) and the arena of the static plan.
  uint64_t predictedPeakBytes(uint64_t arenaBytes) const;
};

/// The compile report: the estimate, the arena plan's size, the schedule
/// tg-schedule chose, the budget (if any) and the compile time.
llvm::json::Object compileReport(const StepEstimate &estimate,
                                 uint64_t arenaBytes,
                                 llvm::StringRef schedule,
                                 std::optional<uint64_t> budgetBytes,
                                 double compileSeconds);

} // namespace memopt

#endif // MEMOPT_TOOLS_MEMOPTCOMPILE_STEPESTIMATE_H
