//===- StepEstimate.h - What memopt predicts of the planned step -*- C++ -*-===//
//
// The cost model and the memory timeline of the planned training step on
// the chosen device, taken before the step is lowered, the budget check,
// and the compile report (docs/contract.md, reports) built from them and
// from the arena plan. memopt-compile calls these after the plan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINE_STEPESTIMATE_H
#define MEMOPT_PIPELINE_STEPESTIMATE_H

#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace memopt {

struct StepEstimate {
  DeviceProfile device;
  Backend target;
  StepCost cost;
  MemoryTimeline timeline;
  /// Whether `device` is the target's default (no --device was given, or
  /// the default itself): the report's strategy.device.default.
  bool defaultDevice = false;
  /// Whether the plan may write in place and compute concat operands in
  /// their slices (#memopt.target's in_place).
  bool inPlace = false;
  /// The rematerialization strategy tg-remat recorded (memopt.remat), or
  /// "none".
  std::string remat = "none";
  /// remat=optimal: its program (memopt.remat's `milp`: budget, objective,
  /// proven bound, gap), for the report's `remat_milp`.
  std::optional<llvm::json::Object> rematMilp;
  /// The mixed precision tg-amp recorded on the module (memopt.amp), or
  /// "none".
  std::string amp = "none";

  /// What tg-offload recorded (memopt.offload): "auto" when it ran.
  std::string offload = "none";
  uint64_t offloadBytes = 0, prefetchBytes = 0, hostBytes = 0;
  double stallSeconds = 0;
  /// Per value that is not kept on the device: its name (the ONNX node
  /// of its op), bytes and what it got ("recompute" or "offload").
  struct Decision {
    std::string value;
    uint64_t bytes;
    std::string decision;
  };
  llvm::SmallVector<Decision> decisions;
  /// The decisions as --verbose prints them, one line each.
  void printDecisions(llvm::raw_ostream &os) const;
  /// One line on what holds the step's peak: the op running there and the
  /// bytes of the temporaries live there by category, the largest first
  /// (a workspace, a gradient, stored activations): what a smaller budget
  /// would have to free.
  void printPeak(llvm::raw_ostream &os) const;

  /// Cost model and timeline of `step` (still in tg ops, whose arena plan
  /// is `plan`) on the module's #memopt.target and its device, with the
  /// workspaces tg-annotate-workspaces recorded; fails (with a diagnostic)
  /// when the module has no target.
  static mlir::FailureOr<StepEstimate> compute(mlir::func::FuncOp step,
                                               const ArenaPlan &plan);

  /// The bytes the trainer allocates on the device beside the arena
  /// (memopt::predictedPeak of an empty arena).
  uint64_t bytesBesideArena = 0;
  /// The largest tensor the step exchanges with other processes
  /// (largestExchangeBytes; 0 in one process).
  uint64_t exchangeBytes = 0;

  /// What the trainer allocates: the persistent buffers (weights, optimizer
  /// state, inputs and outputs) and the arena of the static plan.
  uint64_t predictedPeakBytes(uint64_t arenaBytes) const;
};

/// One pipeline stage of a partitioned step (tg-partition's function with
/// `memopt.stage`), as the compile report lists it.
struct StageEstimate {
  int64_t index = 0;
  uint64_t predictedPeakBytes = 0;
  uint64_t arenaBytes = 0;
  uint64_t sendBytes = 0;
  /// Its largest exchanged tensor (largestExchangeBytes).
  uint64_t exchangeBytes = 0;
  /// The forward ops of the step it runs, [first, end) in program order.
  int64_t forwardBegin = 0, forwardEnd = 0;
  /// With microbatches (tg-microbatch's `memopt.microbatch`): their number,
  /// the most in flight, the schedule and the stage's simulated peak under
  /// each schedule (0: not recorded).
  int64_t microbatches = 1, inFlight = 1;
  std::string schedule;
  uint64_t gpipePeakBytes = 0, oneFOneBPeakBytes = 0;

  /// `stage`'s entry, with its predicted peak and arena.
  static StageEstimate of(mlir::func::FuncOp stage, uint64_t peak,
                          uint64_t arenaBytes);
};

/// Adds `stages[i]` (by index) to a compile report, their sends to its
/// transfer_bytes and their number to its strategy; nothing when empty.
void addStagesToReport(llvm::json::Object &report,
                       llvm::ArrayRef<StageEstimate> stages);

/// A multi-process build (stages or `replicas` > 1): adds `ranks`, one
/// entry per MPI rank r (stage r % S of replica r / S, S = the number of
/// `stages`, 1 without) with its stage's predicted peak (`onePeak`
/// without stages), and with `replicas` > 1 `data_parallel` (replicas,
/// whether the optimizer state is sharded (`zero`), the batch per rank and
/// the global batch).
void addRanksToReport(llvm::json::Object &report,
                      llvm::ArrayRef<StageEstimate> stages, uint64_t onePeak,
                      unsigned replicas, bool zero, int64_t batchPerRank);

/// A multi-process build (`stages`, or `replicas` > 1; `oneExchangeBytes`:
/// the step's largest exchanged tensor without stages): adds to each entry
/// of `ranks` its `exchange_bytes`, and `exchange`: what its exchange
/// allocates outside predicted_peak_bytes on `target` (`staging_host_bytes`,
/// the CUDA mpi exchange's pinned buffer: the largest rank's) and what the
/// plan cannot predict (NCCL's device buffers).
void addExchangeToReport(llvm::json::Object &report,
                         llvm::ArrayRef<StageEstimate> stages,
                         uint64_t oneExchangeBytes, unsigned replicas,
                         Backend target);

/// Fails, with the message memopt-compile prints, when `peak` (planned
/// with rematerialization strategy `remat`) does not fit `budget`: the
/// predicted peak is the smallest budget these flags reach
/// (docs/contract.md); remat=auto fits the budget before, so this is the
/// final guard.
llvm::Error checkBudget(std::optional<uint64_t> budget, uint64_t peak,
                        llvm::StringRef remat);

/// The compile report: the estimate, the arena plan's size, the schedule
/// tg-schedule chose, the budget (if any) and the compile time.
llvm::json::Object compileReport(const StepEstimate &estimate,
                                 uint64_t arenaBytes,
                                 llvm::StringRef schedule,
                                 std::optional<uint64_t> budgetBytes,
                                 double compileSeconds);

} // namespace memopt

#endif // MEMOPT_PIPELINE_STEPESTIMATE_H
