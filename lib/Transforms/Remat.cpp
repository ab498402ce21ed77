//===- Remat.cpp - The tg-remat pass ---------------------------------------===//
//
// Rematerialization: forward values that the backward reads are recomputed
// there from stored values instead of living from the forward to the
// backward. The strategy (Chen et al. 2016's sqrt(n) segments here, or the
// planning library's budget-driven `auto` greedy and `optimal` program,
// memopt/Planning/RematPlan.h) picks the recomputed values; the library's
// rewrite (Recompute.cpp) is the same for every strategy. This pass reads
// the target, asks the planner and records #memopt.remat.
// docs/passes/remat.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Planning/OffloadPlan.h"
#include "memopt/Planning/RematPlan.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/DeviceProfile.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace memopt {
#define GEN_PASS_DEF_REMAT
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

namespace {

/// Chen et al. 2016 on a DAG: the forward ops in program order are cut into
/// segments of ceil(sqrt(n)) ops. A value that a forward op of a later
/// segment reads (the segment's output, a skip connection) is stored, so a
/// recomputation never leaves its segment; so are returned values and
/// values that cannot be recomputed.
DenseSet<Value> chooseSqrt(ArrayRef<Operation *> forward,
                           unsigned &segmentOps) {
  segmentOps = std::max<unsigned>(
      1, static_cast<unsigned>(std::ceil(std::sqrt(forward.size()))));
  DenseMap<Operation *, unsigned> segment;
  for (auto [at, op] : llvm::enumerate(forward))
    segment[op] = at / segmentOps;
  DenseSet<Value> recomputed;
  for (Operation *op : forward)
    for (OpResult result : op->getResults()) {
      if (!isRecomputable(op, result.getResultNumber()))
        continue;
      bool stored = llvm::any_of(result.getUsers(), [&](Operation *user) {
        if (user->hasTrait<OpTrait::IsTerminator>())
          return true;
        auto it = segment.find(user);
        return it != segment.end() && it->second != segment[op];
      });
      if (!stored)
        recomputed.insert(result);
    }
  return recomputed;
}

class RematPass : public memopt::impl::RematBase<RematPass> {
public:
  using RematBase::RematBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (strategy != "none" && strategy != "sqrt" && strategy != "auto" &&
        strategy != "optimal")
      return emitError(UnknownLoc::get(context))
             << "tg-remat: unknown strategy '" << strategy
             << "'; expected none, sqrt, auto or optimal";
    if (!(timeLimit > 0))
      return emitError(UnknownLoc::get(context))
             << "tg-remat: time-limit must be a positive number of seconds, "
                "got "
             << timeLimit;
    if (leanWorkspaces && strategy != "auto")
      return emitError(UnknownLoc::get(context))
             << "tg-remat: lean-workspaces=true needs strategy=auto";
    if (offload && strategy != "auto")
      return emitError(UnknownLoc::get(context))
             << "tg-remat: offload=true needs strategy=auto (the joint "
                "planner); tg-offload offloads on top of the other strategies";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || strategy == "none")
      return;
    FailureOr<TargetAttr> target = lookupTarget(function, "tg-remat");
    if (failed(target))
      return signalPassFailure();
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-remat: expected a function with one block");
      return signalPassFailure();
    }
    bool inPlace = target->getInPlace();
    Block &body = function.getBody().front();

    StepPhases phases(function);
    SmallVector<Operation *> forward, later;
    for (Operation &op : body.without_terminator())
      (phases.phase(&op) == StepPhase::Forward ? forward : later)
          .push_back(&op);
    // Only a training step has a backward to recompute in (not eval_step).
    if (later.empty())
      return;

    uint64_t peakBefore = simulatedPeak(function, inPlace);
    Builder b(&getContext());
    // What the planner decided, for #memopt.remat.
    uint64_t budgetBytes = 0, persistent = 0, plannedArenaBytes = 0;
    uint64_t segmentOps = 0, rounds = 0, exchanges = 0;
    bool overshoot = false;
    RematMilpAttr milp;
    DeviceProfile deviceProfile = target->getDeviceProfile();
    CostModel cost(deviceProfile, workspaceBytes);
    DenseSet<Value> recomputed, nested, offloaded, synchronous;
    DenseSet<Operation *> lean;
    Cuts planCuts;
    // Clones of cheap recomputed operands private to the clone that needs
    // them (RematPlan.h): auto's plans where the plan does not write in
    // place, and where it does, those that do not fit with shared ones
    // (planAuto says which).
    bool privateClones = false;
    if (strategy == "sqrt") {
      unsigned segments = 0;
      recomputed = chooseSqrt(forward, segments);
      segmentOps = segments;
    } else {
      // The budget is the predicted peak: the arena plus the persistent
      // bytes beside it (weights, optimizer state, inputs and outputs).
      budgetBytes = target->getPeakLimit();
      persistent = bytesBesideArena(function,
                                    target->getBackend() == Backend::cuda);
      uint64_t arenaTarget = budgetBytes > persistent ? budgetBytes - persistent : 0;
      bool fits;
      uint64_t arenaBytes;
      if (strategy == "auto") {
        AutoOptions options;
        options.offload = offload;
        options.linkBandwidth = deviceProfile.linkBandwidth;
        options.cuts = cuts;
        options.leanWorkspaces = leanWorkspaces;
        AutoPlan plan =
            planAuto(function, forward, inPlace, arenaTarget, cost, options);
        fits = plan.fits;
        arenaBytes = plan.arenaBytes;
        privateClones = plan.privateClones;
        recomputed = std::move(plan.recomputed);
        nested = std::move(plan.nested);
        planCuts = std::move(plan.cuts);
        offloaded = std::move(plan.offloaded);
        synchronous = std::move(plan.synchronous);
        lean = std::move(plan.lean);
        rounds = plan.rounds;
        overshoot = plan.overshoot;
        exchanges = plan.exchanges;
      } else {
        OptimalPlan plan = planOptimal(function, forward, inPlace, arenaTarget,
                                       cost, timeLimit);
        privateClones = plan.privateClones;
        fits = plan.fits;
        arenaBytes = plan.arenaBytes;
        recomputed = std::move(plan.recomputed);
        nested = std::move(plan.nested);
        planCuts = std::move(plan.cuts);
        milp = milpDecision(b, plan);
      }
      if (!fits) {
        uint64_t smallest = arenaBytes + persistent;
        // At the function's location: the note with the whole step that
        // an op's diagnostic carries would bury the message.
        mlir::emitError(function.getLoc())
            << "tg-remat: the step does not fit "
            << (target->getBudget() ? "--budget=" : "the --device memory of ")
            << budgetBytes << " bytes: the smallest peak remat=" << strategy
            << (offload ? " with offload" : "") << " reaches is " << smallest
            << " bytes (--budget=" << smallest << ")";
        return signalPassFailure();
      }
      plannedArenaBytes = arenaBytes;
    }

    // The lean workspaces (backward ops: none is cloned).
    uint64_t leanBytes = 0;
    double secondsAdded = 0;
    for (Operation *op : lean) {
      leanBytes += leanSavings(op);
      makeLean(op);
      secondsAdded += cost.leanSeconds(op);
    }
    numLeanWorkspaces = lean.size();

    // Rewire every backward read of a recomputed value to its clone.
    ClonePolicy policy;
    policy.privateAncestors = privateClones;
    policy.nested = &nested;
    policy.cuts = &planCuts;
    Rewrite rewrite = recompute(later, recomputed, policy);
    for (Operation *clone : rewrite.clones)
      secondsAdded += cost.cost(clone).seconds;
    markOffloads(offloaded, synchronous);
    uint64_t offloadedBytes = 0;
    for (Value value : offloaded)
      offloadedBytes += tensorBytes(value);
    unsigned stored = countStored(forward, phases, rewrite, offloaded);

    uint64_t peakAfter = simulatedPeak(function, inPlace);
    numBytesSaved = peakBefore > peakAfter ? peakBefore - peakAfter : 0;
    numFlopsAdded = rewrite.flopsAdded;
    numRecomputedOps = rewrite.clones.size();
    // Private clones are recorded where the plan writes in place (cpu):
    // shared ones did not fit (planAuto). Without in-place writes auto's
    // are private always, and the parameter would say nothing.
    setDecision(
        function,
        RematAttr::get(
            &getContext(), b.getStringAttr(strategy), budgetBytes, persistent,
            plannedArenaBytes, segmentOps, rounds, overshoot, exchanges, milp,
            rewrite.rewired.size(), rewrite.clones.size(), stored,
            nested.size(), privateClones && inPlace, rewrite.cuts,
            rewrite.flopsAdded, b.getF64FloatAttr(secondsAdded), peakBefore,
            peakAfter, lean.size(), leanBytes, offloaded.size(),
            offloadedBytes));
  }

private:
  /// Hands the `offloaded` values to tg-offload (#memopt.offload_results
  /// on their ops), which inserts their copies once tg-schedule has fixed
  /// the order the plan was made for.
  static void markOffloads(const DenseSet<Value> &offloaded,
                           const DenseSet<Value> &synchronous) {
    DenseMap<Operation *,
             std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
        marks;
    for (Value value : offloaded) {
      auto &[async, sync] = marks[value.getDefiningOp()];
      (synchronous.contains(value) ? sync : async)
          .push_back(cast<OpResult>(value).getResultNumber());
    }
    for (auto &[op, lists] : marks) {
      llvm::sort(lists.first);
      llvm::sort(lists.second);
      setDecision(op, OffloadResultsAttr::get(op->getContext(), lists.first,
                                              lists.second));
    }
  }

  /// Stored: forward values that the backward or a clone still reads.
  static unsigned countStored(ArrayRef<Operation *> forward,
                              const StepPhases &phases, const Rewrite &rewrite,
                              const DenseSet<Value> &offloaded) {
    unsigned stored = 0;
    for (Operation *op : forward)
      for (OpResult result : op->getResults())
        if (tensorBytes(result) && !rewrite.rewired.contains(result) &&
            !offloaded.contains(result) &&
            llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !user->hasTrait<OpTrait::IsTerminator>() &&
                     phases.phase(user) != StepPhase::Forward;
            }))
          ++stored;
    return stored;
  }

  /// `optimal`'s program: its budget, objective, proven bound and gap.
  static RematMilpAttr milpDecision(Builder &b, const OptimalPlan &plan) {
    double gap = plan.seconds > 0
                     ? (plan.seconds - plan.boundSeconds) / plan.seconds
                     : 0;
    return RematMilpAttr::get(
        b.getContext(), plan.milpBudgetBytes,
        b.getStringAttr(plan.solver.empty() ? "none" : plan.solver),
        b.getStringAttr(plan.status), b.getF64FloatAttr(plan.seconds),
        b.getF64FloatAttr(plan.boundSeconds),
        b.getF64FloatAttr(std::max(0.0, gap)), plan.solves, plan.units,
        plan.stages, plan.chainUnits, plan.chainSolves, plan.binBytes);
  }

  static uint64_t simulatedPeak(func::FuncOp function, bool inPlace) {
    MemorySimulator simulator(function, inPlace);
    return simulator.peak(simulator.givenOrder());
  }
};

} // namespace
