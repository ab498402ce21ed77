//===- RematPlan.h - The remat planners and their rewrite -------*- C++ -*-===//
//
// Part of the planning library (docs/planning.md), for tg-remat, tg-offload
// and tg-recompute-casts: which forward values may be recomputed, the
// rewrite that recomputes a set of them in the backward (Recompute.cpp),
// the budget-driven `auto` planner (RematAuto.cpp) and the `optimal` one
// (RematOptimal.cpp) that choose such a set.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_REMATPLAN_H
#define MEMOPT_PLANNING_REMATPLAN_H

#include "memopt/Analysis/CostModel.h"
#include "memopt/Planning/MicrobatchTies.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace memopt::remat {

/// Whether result `index` of forward op `op` may be recomputed: the op is a
/// kernel without side effects (dropout draws random numbers) that updates
/// nothing in place, or the output of a training-mode BatchNorm (whose
/// clone reads the saved batch statistics, not the running ones).
bool isRecomputable(mlir::Operation *op, unsigned index);

/// Whether recomputing `op` costs about one pass over its tensors: a
/// KernelOpInterface::isCheapToRecompute op (ReLU, resize, pool, concat,
/// elementwise) or a training BatchNorm, whose clone only normalizes with
/// the saved statistics, whatever the forward's reduction costs.
bool isCheapToRecompute(mlir::Operation *op);

/// isRecomputable for `value`'s op and result. The budget strategies
/// (auto, optimal) ask this of every forward value, concats included where
/// the plan writes in place (cpu): the forward computes a concat's
/// operands in its slices, but a stored concat keeps them all (its
/// upsampled operand and its copy of the skip) until its backward reader;
/// a recomputed one copies its operands (concatSlices in StepMemory.h).
/// optimal's program leaves such concats out (Program in
/// RematOptimal.cpp models their operands' slices).
inline bool isRecomputable(mlir::OpResult value) {
  return isRecomputable(value.getOwner(), value.getResultNumber());
}

/// Whether the function's terminator returns `value`.
bool returned(mlir::Value value);

/// What recompute() did.
struct Rewrite {
  /// The recomputed values some backward op read (now reading a clone).
  llvm::DenseSet<mlir::Value> rewired;
  /// Forward op -> the clone its backward readers share (after the last
  /// cut that ended an earlier one).
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> cloneOf;
  /// Every clone created, in creation order.
  llvm::SmallVector<mlir::Operation *> clones;
  /// Every shared clone (one that the readers of its forward op's values
  /// share, until a cut), with that forward op, in creation order.
  llvm::SmallVector<std::pair<mlir::Operation *, mlir::Operation *>> shared;
  /// Clone -> the position in `later` of the reader it was made for.
  llvm::DenseMap<mlir::Operation *, unsigned> madeFor;
  /// The cuts that ended a shared clone (Cuts).
  unsigned cuts = 0;
  uint64_t flopsAdded = 0;
};

/// Recomputed value -> the positions in `later` (recompute()'s ops after
/// the forward) from which its readers share a fresh clone: a cut. The
/// clone before a cut is no longer read after it, so a value read early
/// (by a concat's clone) and late (by its own backward) is recomputed
/// twice rather than living in between, or once per clone that reads it
/// (nested).
using Cuts = llvm::DenseMap<mlir::Value, llvm::SmallVector<unsigned, 2>>;

/// Which recomputed values get private clones: a clone that another clone
/// needs serves that one clone only, and a later backward reader of the
/// value gets its own clone instead of keeping an early one alive. A value
/// of `nested` is thus recomputed once per clone that needs it and once
/// for its own backward readers: Rotor's nested (multiple) recomputation
/// (docs/passes/remat.md#nested-recomputation).
struct ClonePolicy {
  /// Every cheap op (isCheapToRecompute): auto's plans on a target without
  /// in-place writes.
  bool privateAncestors = false;
  /// And these values, whatever they cost.
  const llvm::DenseSet<mlir::Value> *nested = nullptr;
  /// Where the shared clones of recomputed values end (Cuts).
  const Cuts *cuts = nullptr;

  /// Whether the clones of recomputed `value` are private.
  bool isPrivate(mlir::Value value) const;
};

/// Rewires every read of a value of `recomputed` by an op of `later` (the
/// ops after the forward, in program order) to a clone of its defining op,
/// created right before the first such reader (with the clones of the
/// recomputed values it reads, before it) and marked `memopt.recompute`;
/// clones of the values `policy` makes private serve one clone each, and
/// a value's readers at or after one of its cuts share a fresh clone.
Rewrite recompute(llvm::ArrayRef<mlir::Operation *> later,
                  const llvm::DenseSet<mlir::Value> &recomputed,
                  const ClonePolicy &policy = {});

class PruneMemo;

/// What the `auto` greedy may do with a forward value the backward reads,
/// besides keeping it.
struct AutoOptions {
  bool recompute = true;
  /// Offload it to host memory (docs/passes/offload.md); the trials then
  /// insert the copies as tg-offload will (OffloadPlan.h), over the host
  /// link of `linkBandwidth` bytes/s.
  bool offload = false;
  double linkBandwidth = 0;
  /// Order each trial as tg-schedule will (false: the step is scheduled
  /// already and keeps its order, as for tg-offload after tg-schedule).
  bool reschedule = true;
  /// recompute()'s privateAncestors for the trials and the plan; unset:
  /// where the plan does not write in place (!inPlace), and where it does,
  /// where shared clones do not fit (AutoPlan::privateClones says which).
  std::optional<bool> privateAncestors;
  /// Also run the greedy whose candidates include cuts (Cuts) and return
  /// the faster of the two plans.
  bool cuts = true;
  /// Give a backward convolution its lean workspace (makeLean) where that
  /// lowers the peak, priced by CostModel::leanSeconds.
  bool leanWorkspaces = false;
  /// The microbatches' copies of the step's forward values, decided for
  /// at once (MicrobatchTies.h); planAuto finds them (null: none).
  const MicrobatchTies *ties = nullptr;
  /// The choices the prunes of one planAuto found not to fit (RematAuto's
  /// PruneMemo); planAuto makes it (null: none).
  PruneMemo *pruneMemo = nullptr;
  /// The CostModel seconds of the function's ops, which the trials' copies
  /// of them take rather than pricing every op again; planAuto makes it
  /// (null: each trial prices its ops).
  const llvm::DenseMap<mlir::Operation *, double> *opSeconds = nullptr;
};

/// Plans `op` with its lean workspace (its `memopt.lean_workspace_bytes`
/// become its `memopt.workspace_bytes`, marked `memopt.lean_workspace`);
/// nothing changes where that is not smaller.
void makeLean(mlir::Operation *op);

/// The bytes that makeLean would take off `op`'s aligned workspace.
uint64_t leanSavings(mlir::Operation *op);

/// The `auto` strategy's choice.
struct AutoPlan {
  llvm::DenseSet<mlir::Value> recomputed;
  /// The recomputed values that get private clones beyond the policy's
  /// (ClonePolicy::nested): recomputed more than once.
  llvm::DenseSet<mlir::Value> nested;
  /// Where recomputed values get a fresh shared clone (recomputed once
  /// more each).
  Cuts cuts;
  llvm::DenseSet<mlir::Value> offloaded;
  /// The offloaded values whose copies wait at once (OffloadPlan.h).
  llvm::DenseSet<mlir::Value> synchronous;
  /// The backward ops planned with their lean workspace (makeLean).
  llvm::DenseSet<mlir::Operation *> lean;
  /// The predicted step seconds of the returned plan (clones and stalls
  /// included) where the options give a host link, and the predicted
  /// seconds of its clones and lean workspaces.
  double seconds = 0, secondsAdded = 0;
  /// Whether the planned arena of the rewritten step's program order fits
  /// the target.
  bool fits = false;
  /// The planned arena (ArenaPlan) of the rewritten step: of the returned
  /// set when it fits, else of the set with the smallest simulated peak
  /// (the smallest arena the greedy reached).
  uint64_t arenaBytes = 0;
  /// Whether the plan gives cheap recomputed operands private clones
  /// (recompute()'s privateAncestors, AutoOptions::privateAncestors).
  bool privateClones = false;
  /// Greedy rounds (values or groups chosen, plus one).
  unsigned rounds = 0;
  /// Whether the plan is the greedy's run past the target pruned back to
  /// it by seconds per byte, and how many exchanges (a value stored again,
  /// the greedy gone on without it) made it faster.
  bool overshoot = false;
  unsigned exchanges = 0;
};

/// Greedy least-time rematerialization (and, with `options.offload`,
/// offload) of `function` (whose forward ops are `forward`, in program
/// order) until the arena of its scheduled order is at most `arenaTarget`
/// bytes (docs/passes/remat.md#strategies, docs/passes/offload.md). With
/// both recomputation and offload, the faster (or, when neither fits, the
/// smaller) of the joint plan and the plan that only recomputes.
AutoPlan planAuto(mlir::func::FuncOp function,
                  llvm::ArrayRef<mlir::Operation *> forward, bool inPlace,
                  uint64_t arenaTarget, const CostModel &cost,
                  const AutoOptions &options = {});

/// The bytes the compile report adds to the planned arena of `function`
/// (persistentDeviceBytes, and on cuda the constants tg-plan-memory puts
/// after the planned buffers): a budget less these is the arena target.
uint64_t bytesBesideArena(mlir::func::FuncOp function, bool cuda);

/// The arena (ArenaPlan) tg-plan-memory will plan for `function` with
/// `recomputed` recomputed (rewritten on a copy, in the order tg-schedule
/// will choose); the clones' predicted seconds (by `cost`) in
/// `secondsAdded` when given.
uint64_t plannedArena(mlir::func::FuncOp function,
                      llvm::ArrayRef<mlir::Operation *> forward, bool inPlace,
                      const llvm::DenseSet<mlir::Value> &recomputed,
                      bool privateAncestors,
                      const llvm::DenseSet<mlir::Value> &nested,
                      const Cuts &cuts, const CostModel &cost,
                      double *secondsAdded = nullptr);

/// The `optimal` strategy's choice.
struct OptimalPlan {
  llvm::DenseSet<mlir::Value> recomputed;
  /// Values recomputed once per clone that needs them, and the cuts of
  /// shared clones (auto's plan only).
  llvm::DenseSet<mlir::Value> nested;
  Cuts cuts;
  /// Whether the planned arena of the rewritten step fits the target.
  bool fits = false;
  /// The planned arena of the returned set; when it does not fit, the
  /// smallest arena reached (the least-peak program's, or the plain one).
  uint64_t arenaBytes = 0;
  /// The budget (arena bytes) of the program whose plan was taken: the
  /// target, less what the real plans exceeded it by.
  uint64_t milpBudgetBytes = 0;
  /// Predicted recompute seconds of the plan (its objective) and the least
  /// CBC proved possible under that budget (= seconds when proven).
  double seconds = 0, boundSeconds = 0;
  /// "optimal" (CBC proved it), "time_limit" (the best CBC found in
  /// time), "least_peak" (the program's least-peak plan: no bound on the
  /// time), or "greedy" (auto's plan, faster than the program's or where
  /// none of its plans fits: no bound). boundSeconds is 0 without a bound.
  std::string status = "optimal";
  /// Whether the rewrite gives cheap operands private clones (recompute()'s
  /// privateAncestors): auto's plan on a target without in-place writes.
  bool privateClones = false;
  /// Programs solved; recompute units and stages of the program.
  unsigned solves = 0, units = 0, stages = 0;
  /// Which planner's set was taken: "dp" (the chain's dynamic program),
  /// "milp" (CBC's program) or "auto" (the greedy); empty when the plain
  /// step fits.
  std::string solver;
  /// Units in the chain of the dynamic program, its solves, and the bytes
  /// of one bin of its discretization (solver "dp").
  unsigned chainUnits = 0, chainSolves = 0;
  uint64_t binBytes = 0;
};

/// Least-time rematerialization of `function` whose planned arena is at
/// most `arenaTarget`: the faster of a chain dynamic program's plan (over
/// the units that form a chain) and a MILP's solved by CBC within
/// `timeLimit` seconds in all, or auto's when faster
/// (docs/passes/remat.md#optimal).
OptimalPlan planOptimal(mlir::func::FuncOp function,
                        llvm::ArrayRef<mlir::Operation *> forward,
                        bool inPlace, uint64_t arenaTarget,
                        const CostModel &cost, double timeLimit);

} // namespace memopt::remat

#endif // MEMOPT_PLANNING_REMATPLAN_H
