//===- ModuleEstimate.h - The estimate of a planned module ------*- C++ -*-===//
//
// What memopt predicts of a module after buildMemoryPlanPipeline (the step
// scheduled and its memory plan recorded by tg-plan-memory, still in tg
// ops): the training step's StepEstimate, or with pipeline stages every
// stage's entry and the worst stage's estimate. memopt-compile calls it
// between the memory plan and the conversion into buffers; it reads
// everything from the IR, so it cannot disagree with what is lowered.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINE_MODULEESTIMATE_H
#define MEMOPT_PIPELINE_MODULEESTIMATE_H

#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Pipeline/StepEstimate.h"

#include "mlir/IR/BuiltinOps.h"

namespace memopt {

struct ModuleEstimate {
  /// The training step's estimate; with stages, the stage's of the highest
  /// predicted peak (the first of them).
  StepEstimate step;
  /// tg-partition's stages of the training step, in order (none without).
  llvm::SmallVector<StageEstimate> stages;
  /// The schedule tg-schedule chose for that function (its memopt.schedule
  /// strategy), or "given".
  std::string schedule = "given";
  /// With stages, the worst stage's own arena (each process holds one
  /// stage); 0 without, where the lowering fixes the program's arena.
  uint64_t stageArenaBytes = 0;
  /// The slowest function's (step or stage) predicted seconds for one
  /// microbatch without the optimizer (forward, backward, recomputation,
  /// transfer stall), and the slowest optimizer update.
  double microbatchSeconds = 0, optimizerSeconds = 0;

  /// The predicted step of `microbatches` through `stages` (the pipeline
  /// fills and drains: M + S - 1 microbatch slots of the slowest stage),
  /// the optimizer once. One function, one microbatch: its total.
  double stepSeconds(unsigned microbatches, unsigned stages) const;

  /// The compile report (docs/contract.md, reports) of this estimate for a
  /// module built with `options`: compileReport, the stages, microbatches,
  /// ranks and exchange. `arenaBytes` is the program's arena (the worst
  /// stage's with stages), `budget` the budget checked, `batchPerRank` the
  /// batch one rank trains on per step (0: unknown), `compileSeconds` the
  /// compile time so far. The caller adds what only it knows (its phases,
  /// the import).
  llvm::json::Object report(const TrainingPipelineOptions &options,
                            uint64_t arenaBytes,
                            std::optional<uint64_t> budget,
                            int64_t batchPerRank,
                            double compileSeconds) const;
};

/// Estimates the training step of `module` (the module's first function,
/// or the functions tg-partition made of it) on the device of its
/// #memopt.target, reading each function's plan from the IR
/// (readStepArenaPlan). Emits an error and fails when the module has no
/// step, no target or a step has no plan.
mlir::FailureOr<ModuleEstimate> estimatePlannedModule(mlir::ModuleOp module);

} // namespace memopt

#endif // MEMOPT_PIPELINE_MODULEESTIMATE_H
