//===- RematAuto.cpp - tg-remat's budget-driven greedy strategy -----------===//
//
// `auto`: the least predicted recompute time whose arena fits a target, by
// a greedy that is a heuristic, not a proof of optimality. Each round
// rewrites a copy of the step with the values chosen so far, orders it as
// tg-schedule will (ScheduleOrder.h), simulates it (MemorySimulator,
// workspaces included) and stops once the peak, then the planned arena
// (ArenaPlan, as tg-plan-memory will plan it), fits. Otherwise it scores every
// candidate (a forward value the backward reads) by the bytes its absence
// between its last forward use and its first backward use removes from the
// peak (MemorySimulator::peakWithout), less the bytes of the forward values
// its clone would keep alive into the backward, per second of recompute
// (CostModel), and recomputes the best one, cheap ops (BN, ReLU, resize,
// concat: KernelOpInterface::isCheapToRecompute) first, as MONeT does.
// With offload allowed (tg-remat offload=true, tg-offload), a value may be
// offloaded instead: its price is the stall its copies are predicted to
// add (the host link's free time in its window, OffloadPlan.h), so an
// offload that the compute hides is the cheapest choice there is, and the
// trials insert the chosen copies as tg-offload will. With lean workspaces
// allowed, a backward convolution at the peak may get its lean
// workspace instead, priced by the slowdown the cost model charges for it
// (CostModel::leanSeconds). Beside the greedy's own plans, one run past
// the target and pruned back to it by seconds per byte (overshoot), and
// a local search that stores an expensive value again and lets the
// greedy go on without it (exchanges), per family of plans (without lean
// workspaces, with them); the fastest plan is taken. This file holds the
// searches; the greedy is RematGreedy.h, its trials and candidates
// RematTrial.h, the prune RematPrune.h.
// docs/passes/remat.md#strategies, docs/passes/offload.md.
//
//===----------------------------------------------------------------------===//

#include "RematGreedy.h"
#include "RematPrune.h"
#include "RematTrial.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Planning/PlannerThreads.h"
#include "memopt/Planning/PredictedPeak.h"
#include "memopt/Planning/RematPlan.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;
using namespace memopt::remat::detail;

void memopt::remat::makeLean(Operation *op) {
  uint64_t full = workspaceBytes(op);
  uint64_t bytes = leanWorkspaceBytes(op);
  if (!full || bytes >= full || op->hasAttr(kLeanWorkspaceAttr))
    return;
  Builder b(op->getContext());
  op->setAttr(kWorkspaceBytesAttr,
              b.getI64IntegerAttr(static_cast<int64_t>(bytes)));
  op->setAttr(kLeanWorkspaceAttr, b.getUnitAttr());
  op->removeAttr(kLeanWorkspaceBytesAttr);
}

uint64_t memopt::remat::leanSavings(Operation *op) {
  uint64_t full = workspaceBytes(op);
  if (!full || op->hasAttr(kLeanWorkspaceAttr))
    return 0;
  uint64_t aligned = llvm::alignTo(full, ArenaPlan::kAlignment);
  uint64_t lean = llvm::alignTo(leanWorkspaceBytes(op),
                                ArenaPlan::kAlignment);
  return aligned > lean ? aligned - lean : 0;
}

bool memopt::remat::returned(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    return user->hasTrait<OpTrait::IsTerminator>();
  });
}

uint64_t memopt::remat::plannedArena(func::FuncOp function,
                                     ArrayRef<Operation *> forward,
                                     bool inPlace,
                                     const DenseSet<Value> &recomputed,
                                     bool privateAncestors,
                                     const DenseSet<Value> &nested,
                                     const Cuts &cuts, const CostModel &cost,
                                     double *secondsAdded) {
  AutoOptions options;
  options.privateAncestors = privateAncestors;
  Trial trial(function, forward, inPlace, recomputed, nested, cuts,
              /*offloaded=*/{}, /*synchronous=*/{}, /*lean=*/{}, options,
              cost, Timed::No);
  if (secondsAdded)
    *secondsAdded = trial.secondsAdded(cost);
  return trial.arenaBytes();
}

/// An exchange's greedy, with or without cuts (and lean workspaces, where
/// the options allow them) among its candidates.
static AutoPlan runGreedy(func::FuncOp function, ArrayRef<Operation *> forward,
                          bool inPlace, uint64_t arenaTarget,
                          const CostModel &cost, const AutoOptions &options,
                          bool withCuts, bool withLean,
                          const Exchange *exchange) {
  return Greedy(function, forward, inPlace, arenaTarget, cost, options,
                withCuts, withLean, exchange)
      .run();
}

/// planAuto's second start: `plan`, the greedy's run below the target (to
/// a factor of it), pruned to the target the most seconds per byte first. The greedy picks by the peak
/// at hand, so it recomputes a value for a peak that later picks lower
/// anyway; storing back by seconds per byte keeps the values that save
/// the most recomputation for the bytes they hold (on the ResNet-34 U-Net
/// at 0.25x: the deep encoder layers, 2.4 GFLOP per MB, rather than the
/// decoder's high-resolution tensors, 0.14).
static AutoPlan overshoot(func::FuncOp function, ArrayRef<Operation *> forward,
                          bool inPlace, uint64_t arenaTarget, AutoPlan plan,
                          const CostModel &cost, const AutoOptions &options) {
  if (plan.arenaBytes > arenaTarget) {
    plan.fits = false; // its floor, as the greedy's own run finds it
    return plan;
  }
  prune(function, forward, inPlace, arenaTarget, cost, options,
        plan.recomputed, plan.nested, plan.cuts, plan.offloaded,
        plan.synchronous, plan.lean, plan.arenaBytes, /*keep=*/nullptr,
        /*perByte=*/true, /*skipHopeless=*/options.ties != nullptr);
  Trial last(function, forward, inPlace, plan.recomputed, plan.nested,
             plan.cuts, plan.offloaded, plan.synchronous, plan.lean, options,
             cost);
  plan.fits = true;
  plan.overshoot = true;
  plan.seconds = last.seconds;
  plan.secondsAdded = last.secondsAdded(cost);
  return plan;
}

/// A greedy that fitted at the target, for planFamilies to go on from
/// (Greedy::lowerTarget) where one of its greedies would walk its path.
struct Resumable {
  Greedy *greedy;
  AutoPlan fit;
  bool privateClones;
};

/// planAuto under one clone policy (`options.privateAncestors`); the
/// overshooting greedy with `resume`'s candidates goes on from it.
static AutoPlan planFamilies(func::FuncOp function,
                             ArrayRef<Operation *> forward, bool inPlace,
                             uint64_t arenaTarget, const CostModel &cost,
                             const AutoOptions &options,
                             std::optional<Resumable> resume = std::nullopt) {
  // Cuts and lean workspaces change the greedy's path, not only its last
  // rounds, and no path is the faster on every budget
  // (docs/passes/remat.md#cuts): each allowed combination runs, side by
  // side on the planners' threads (planInParallel; each rewrites copies of the
  // step; the step itself is only read). The plans form families, without lean
  // workspaces and (where allowed) with them; each family's greedies also
  // run past the target and are pruned back to it (overshoot, at
  // kOvershoots), its fastest plan that fits (the smallest arena where
  // none fits; ties keep the earlier plan: without cuts) is improved by
  // exchanges, and the faster family's plan is taken (a tie keeps the one
  // without lean workspaces). Allowing lean workspaces thus runs all that
  // is run without them, and is never predicted slower.
  struct Variant {
    bool cuts, lean;
    double overshoot; // 1: the greedy alone
  };
  constexpr double kOvershoots[] = {0.95};
  bool cutsAllowed = options.recompute && options.cuts;
  SmallVector<bool, 2> families{false};
  if (options.leanWorkspaces)
    families.push_back(true);
  SmallVector<Variant> variants;
  for (bool lean : families) {
    for (bool withCuts : {false, true})
      if (!withCuts || cutsAllowed)
        variants.push_back({withCuts, lean, 1.0});
    for (double factor : kOvershoots)
      variants.push_back({cutsAllowed, lean, factor});
  }
  // An overshoot's greedy walks the path of the greedy at the target with
  // the same cuts and lean workspaces, and goes on from where that one
  // stops: one greedy gives both plans (Greedy::alsoPlanAt). And a greedy
  // walks the path of one with fewer candidates for as long as it commits
  // none of the others (a candidate that never won a round changed no
  // pick): the greedy with cuts that of the greedy without them, up to
  // its checkpoint (Greedy::walkedWithoutCuts), the greedy with lean
  // workspaces that of the family without them (committedLean). So the
  // family with the most candidates overshoots first, and the greedies
  // with fewer run only where it left their path; the others take its
  // plans (measured: the families often commit no cut, or no lean
  // workspace, and a microbatched step's greedies are its costliest).
  struct Family {
    std::optional<size_t> withoutCuts; // the greedy at the target
    size_t atTarget = 0, overshooting = 0;
  };
  SmallVector<Family, 2> byFamily(families.size());
  for (auto [i, variant] : llvm::enumerate(variants)) {
    Family &family = byFamily[variant.lean ? families.size() - 1 : 0];
    if (variant.overshoot < 1)
      family.overshooting = i;
    else if (variant.cuts == cutsAllowed)
      family.atTarget = i;
    else
      family.withoutCuts = i;
  }
  SmallVector<AutoPlan> plans(variants.size());
  // Of each run: whether it committed no cut before its checkpoint, and
  // whether it committed a lean workspace.
  SmallVector<char> walkedWithoutCuts(variants.size(), false),
      committedLean(variants.size(), false);
  // Whether `resume` is the overshooting greedy of `variant`'s family.
  auto resumes = [&](const Variant &variant) {
    return resume && resume->greedy->cutsAmongCandidates() == variant.cuts &&
           resume->greedy->leanAmongCandidates() == variant.lean;
  };
  auto run = [&](size_t i) {
    const Variant &variant = variants[i];
    if (variant.overshoot == 1) {
      Greedy greedy(function, forward, inPlace, arenaTarget, cost, options,
                    variant.cuts, variant.lean, /*exchange=*/nullptr);
      plans[i] = greedy.run();
      committedLean[i] = greedy.committedLean();
      return;
    }
    auto overshootTarget =
        static_cast<uint64_t>(variant.overshoot * arenaTarget);
    std::optional<Greedy> own;
    Greedy *greedy;
    if (resumes(variant)) {
      greedy = resume->greedy;
      greedy->lowerTarget(overshootTarget, std::move(resume->fit));
    } else {
      greedy = &own.emplace(function, forward, inPlace, overshootTarget, cost,
                            options, variant.cuts, variant.lean,
                            /*exchange=*/nullptr);
      greedy->alsoPlanAt(arenaTarget);
    }
    AutoPlan overshot = greedy->run();
    walkedWithoutCuts[i] = greedy->walkedWithoutCuts();
    committedLean[i] = greedy->committedLean();
    std::optional<AutoPlan> atTarget = greedy->takeCheckpoint();
    Family &family = byFamily[variant.lean ? families.size() - 1 : 0];
    plans[family.atTarget] = atTarget ? std::move(*atTarget) : overshot;
    plans[i] = overshoot(function, forward, inPlace, arenaTarget,
                         std::move(overshot), cost, options);
  };
  auto runAll = [&](ArrayRef<size_t> runs) {
    planInParallel(function.getContext(), runs.size(),
                   [&](size_t r) { run(runs[r]); });
  };
  // A run's plans, taken by the family without lean workspaces.
  auto takeWithoutLean = [&](size_t from, size_t to) {
    plans[to] = plans[from];
    walkedWithoutCuts[to] = walkedWithoutCuts[from];
  };
  Family &most = byFamily.back(), &fewest = byFamily.front();
  bool twoFamilies = byFamily.size() == 2;
  SmallVector<size_t, 3> first{most.overshooting};
  // A resumed greedy has committed lean workspaces, or a cut before its
  // checkpoint (the plan it resumes from), in its rounds so far already:
  // the runs that this decides run beside it, not after it.
  if (resumes(variants[most.overshooting])) {
    if (twoFamilies && resume->greedy->committedLean())
      first.push_back(fewest.overshooting);
    if (most.withoutCuts && !resume->greedy->walkedWithoutCuts())
      first.push_back(*most.withoutCuts);
  }
  runAll(first);
  SmallVector<size_t, 2> second;
  auto runSecond = [&](size_t i) {
    if (!llvm::is_contained(first, i))
      second.push_back(i);
  };
  if (twoFamilies) {
    if (committedLean[most.overshooting]) {
      runSecond(fewest.overshooting);
    } else {
      takeWithoutLean(most.overshooting, fewest.overshooting);
      takeWithoutLean(most.atTarget, fewest.atTarget);
    }
  }
  bool mostWithoutCutsRan = false;
  if (most.withoutCuts) {
    if (walkedWithoutCuts[most.overshooting]) {
      plans[*most.withoutCuts] = plans[most.atTarget];
    } else {
      runSecond(*most.withoutCuts);
      mostWithoutCutsRan = true;
    }
  }
  runAll(second);
  if (twoFamilies && fewest.withoutCuts) {
    if (walkedWithoutCuts[fewest.overshooting])
      plans[*fewest.withoutCuts] = plans[fewest.atTarget];
    else if (mostWithoutCutsRan && !committedLean[*most.withoutCuts])
      plans[*fewest.withoutCuts] = plans[*most.withoutCuts];
    else
      runAll({*fewest.withoutCuts});
  }
  auto seconds = [&](const AutoPlan &p) {
    return options.linkBandwidth > 0 ? p.seconds : p.secondsAdded;
  };
  auto better = [&](const AutoPlan &plan, const AutoPlan &than) {
    return plan.fits ? !than.fits || seconds(plan) < seconds(than)
                     : !than.fits && plan.arenaBytes < than.arenaBytes;
  };
  // Exchanges, a local search on a family's plan: each expensive value it
  // recomputes, the most expensive first, is stored again, and the greedy
  // goes on from there without it for at most kExchangeRounds rounds; a
  // plan that fits faster replaces the plan. kExchanges in all, in
  // batches of kExchangeBatch side by side, the fastest of a batch taken:
  // the same plan on any number of threads. Where the microbatches'
  // copies are tied, an exchange stores a value of every microbatch: a
  // Mth as many exchanges try as many of the network's values as untied
  // ones did, and a Mth as many rounds (each picks M copies) make as many
  // picks.
  constexpr unsigned kExchangeBatch = 4, kExchangeRounds = 12;
  unsigned copies = options.ties ? options.ties->copies() : 1;
  const unsigned kExchanges = std::max(kExchangeBatch, 32 / copies);
  const unsigned exchangeRounds = std::max(3u, kExchangeRounds / copies);
  DenseMap<Operation *, unsigned> position;
  for (auto [at, op] : llvm::enumerate(function.getBody().front()))
    position[&op] = at;
  auto byCost = [&](Value a, Value b) {
    double x = cost.cost(a.getDefiningOp()).seconds,
           y = cost.cost(b.getDefiningOp()).seconds;
    if (x != y)
      return x > y;
    if (a.getDefiningOp() != b.getDefiningOp())
      return position.lookup(a.getDefiningOp()) <
             position.lookup(b.getDefiningOp());
    return cast<OpResult>(a).getResultNumber() <
           cast<OpResult>(b).getResultNumber();
  };
  auto exchange = [&](AutoPlan &plan, bool lean) {
    DenseSet<Value> tried;
    for (unsigned exchanges = 0; exchanges < kExchanges;) {
      SmallVector<Value> expensive;
      // One value per tie: the exchange stores its copies with it.
      for (Value value : plan.recomputed)
        if (!isCheapToRecompute(value.getDefiningOp()) &&
            !tried.contains(value) &&
            (!options.ties || options.ties->representative(value)))
          expensive.push_back(value);
      llvm::sort(expensive, byCost);
      expensive.truncate(
          std::min<size_t>({expensive.size(), kExchangeBatch,
                            kExchanges - exchanges}));
      if (expensive.empty())
        break;
      exchanges += expensive.size();
      tried.insert(expensive.begin(), expensive.end());
      SmallVector<AutoPlan> attempts(expensive.size());
      planInParallel(function.getContext(), expensive.size(), [&](size_t i) {
        Exchange exchange{&plan, expensive[i], exchangeRounds};
        attempts[i] = runGreedy(function, forward, inPlace, arenaTarget, cost,
                                options, cutsAllowed, lean, &exchange);
      });
      std::optional<unsigned> faster;
      for (auto [i, attempt] : llvm::enumerate(attempts))
        if (attempt.fits &&
            seconds(attempt) < seconds(faster ? attempts[*faster] : plan))
          faster = i;
      if (faster) {
        AutoPlan &taken = attempts[*faster];
        taken.rounds += plan.rounds;
        taken.overshoot = plan.overshoot;
        taken.exchanges = plan.exchanges + 1;
        plan = std::move(taken);
      }
    }
  };
  std::optional<AutoPlan> chosen;
  for (bool lean : families) {
    std::optional<unsigned> best;
    for (auto [i, variant] : llvm::enumerate(variants))
      if (variant.lean == lean && (!best || better(plans[i], plans[*best])))
        best = i;
    AutoPlan plan = std::move(plans[*best]);
    if (plan.fits && options.recompute)
      exchange(plan, lean);
    if (!chosen || better(plan, *chosen))
      chosen = std::move(plan);
  }
  return std::move(*chosen);
}

/// planAuto under one set of candidates: shared clones, and where they do
/// not fit, private ones.
static AutoPlan planClones(func::FuncOp function, ArrayRef<Operation *> forward,
                           bool inPlace, uint64_t arenaTarget,
                           const CostModel &cost, const AutoOptions &options,
                           std::optional<Resumable> resume = std::nullopt) {
  // `resume` under its own clone policy only.
  auto resumeUnder = [&](bool privateClones) -> std::optional<Resumable> {
    if (!resume || resume->privateClones != privateClones)
      return std::nullopt;
    return std::exchange(resume, std::nullopt);
  };
  AutoOptions given = options;
  given.privateAncestors = options.privateAncestors.value_or(!inPlace);
  AutoPlan plan = planFamilies(function, forward, inPlace, arenaTarget, cost,
                               given, resumeUnder(*given.privateAncestors));
  plan.privateClones = *given.privateAncestors;
  // Where the plan writes in place, shared clones reach a peak with fewer
  // FLOPs than private ones, but not the smallest peaks: a recomputed
  // cheap operand's shared clone lives from the first clone that needs it
  // to its own last backward reader. So where shared clones do not fit,
  // private ones are planned too (the policy left to auto), and the plan
  // that fits, or reaches the smaller arena, is taken
  // (docs/passes/remat.md#the-rewrite).
  if (plan.fits || options.privateAncestors.has_value() ||
      plan.privateClones || !options.recompute)
    return plan;
  given.privateAncestors = true;
  AutoPlan other = planFamilies(function, forward, inPlace, arenaTarget, cost,
                                given, resumeUnder(true));
  other.privateClones = true;
  if (other.fits || other.arenaBytes < plan.arenaBytes)
    return other;
  return plan;
}

/// planAuto under `options`, tied or not.
static AutoPlan planJointly(func::FuncOp function,
                            ArrayRef<Operation *> forward, bool inPlace,
                            uint64_t arenaTarget, const CostModel &cost,
                            const AutoOptions &options, AutoOptions &chosen) {
  chosen = options;
  if (!options.recompute || !options.offload)
    return planClones(function, forward, inPlace, arenaTarget, cost, options);
  // One greedy over both is no proof of the least time: recomputing
  // alone may fit where the joint choice does not, or fit faster. The two
  // searches run side by side (each one's greedies then fill the threads
  // the other's leave idle).
  AutoOptions alone = options;
  alone.offload = false;
  AutoPlan plan, recomputeOnly;
  searchSideBySide(
      function.getContext(),
      [&] {
        plan =
            planClones(function, forward, inPlace, arenaTarget, cost, options);
      },
      [&] {
        recomputeOnly =
            planClones(function, forward, inPlace, arenaTarget, cost, alone);
      });
  if (recomputeOnly.fits
          ? !plan.fits || recomputeOnly.seconds < plan.seconds
          : !plan.fits && recomputeOnly.arenaBytes < plan.arenaBytes) {
    chosen = alone;
    return recomputeOnly;
  }
  return plan;
}

/// Tied plan `plan` (which fits, chosen under `options`) pruned one copy
/// at a time: each copy of an expensive recomputed value, and each
/// offloaded copy, is stored again where the arena still fits (prune).
/// Cheap values (a copy of a BatchNorm or ReLU saves little time) and lean
/// workspaces stay as the tied prune left them: each test is a trial of
/// the whole microbatched step.
static AutoPlan untiedPrune(func::FuncOp function,
                            ArrayRef<Operation *> forward, bool inPlace,
                            uint64_t arenaTarget, const CostModel &cost,
                            AutoOptions options, AutoPlan plan) {
  options.ties = nullptr;
  options.privateAncestors = plan.privateClones;
  AutoPlan keep;
  for (Value value : plan.recomputed)
    if (isCheapToRecompute(value.getDefiningOp()))
      keep.recomputed.insert(value);
  keep.lean = plan.lean;
  prune(function, forward, inPlace, arenaTarget, cost, options,
        plan.recomputed, plan.nested, plan.cuts, plan.offloaded,
        plan.synchronous, plan.lean, plan.arenaBytes, &keep,
        /*perByte=*/false, /*skipHopeless=*/true);
  Trial final(function, forward, inPlace, plan.recomputed, plan.nested,
              plan.cuts, plan.offloaded, plan.synchronous, plan.lean, options,
              cost);
  plan.seconds = final.seconds;
  plan.secondsAdded = final.secondsAdded(cost);
  return plan;
}

AutoPlan memopt::remat::planAuto(func::FuncOp function,
                                 ArrayRef<Operation *> forward, bool inPlace,
                                 uint64_t arenaTarget, const CostModel &cost,
                                 const AutoOptions &options) {
  // A microbatched step is planned with its copies tied, then untied
  // (docs/planning.md#microbatch-ties).
  MicrobatchTies ties(function, forward);
  PruneMemo pruneMemo;
  DenseMap<Operation *, double> opSeconds;
  for (Operation &op : function.getBody().front().without_terminator())
    opSeconds[&op] = cost.cost(&op).seconds;
  AutoOptions tiedOptions = options, chosen;
  tiedOptions.pruneMemo = &pruneMemo;
  tiedOptions.opSeconds = &opSeconds;
  if (!ties.empty())
    tiedOptions.ties = &ties;
  AutoPlan tied = planJointly(function, forward, inPlace, arenaTarget, cost,
                              tiedOptions, chosen);
  if (ties.empty())
    return tied;
  // Where the tie does not fit, the received activations are tied too
  // (docs/planning.md#microbatch-ties): the tied search runs again before
  // the untied one, which takes four to eight times its rounds. Tying them
  // charges a recomputation that keeps a received value alive into the
  // backward for every copy of it, which steers the greedy off clones of
  // concats at the peak on the ResNet-34 U-Net's last stages; where the
  // first tie fits it is taken as it was (the plans it finds are faster
  // there). Where neither fits, the untied search goes on from the first.
  MicrobatchTies withTransfers(function, forward,
                               MicrobatchTies::Transfers::Tied);
  if (!tied.fits && withTransfers.size() > ties.size()) {
    AutoOptions transferOptions = tiedOptions, transferChosen;
    transferOptions.ties = &withTransfers;
    AutoPlan transfers = planJointly(function, forward, inPlace, arenaTarget,
                                     cost, transferOptions, transferChosen);
    if (transfers.fits) {
      tied = std::move(transfers);
      chosen = transferChosen;
    }
  }
  // The copies are not all alike: the gradients summed over the
  // microbatches are live in the later ones, a 1F1B stage holds more
  // microbatches in flight in its middle than at its ends. A tied plan
  // that fits is pruned one copy at a time (untiedPrune); the faster plan
  // is taken.
  if (tied.fits) {
    AutoPlan plan = untiedPrune(function, forward, inPlace, arenaTarget, cost,
                                chosen, tied);
    auto seconds = [&](const AutoPlan &p) {
      return options.linkBandwidth > 0 ? p.seconds : p.secondsAdded;
    };
    return seconds(plan) < seconds(tied) ? plan : tied;
  }
  // Where it does not fit, the tie's path may end above the untied
  // greedy's (by up to 7 % on the ResNet-34 U-Net's pipelined stages):
  // the untied greedy of its family runs from nothing. Where that fits
  // (the target lies between the two), the untied search of that family
  // runs in full, for the fastest plan; else the smaller arena is taken.
  // The other family lost the tied search, and its untied search (half
  // the time of planning such a step: a recompute-only greedy of a
  // microbatched step takes 200 rounds untied) found no faster plan on
  // any case measured (docs/planning.md#microbatch-ties). The search's
  // overshooting greedy with the same candidates walks the untied
  // greedy's path first, and goes on from where it stopped.
  AutoOptions untied = chosen, freshOptions = chosen;
  untied.ties = freshOptions.ties = nullptr;
  freshOptions.privateAncestors = tied.privateClones;
  Greedy greedy(function, forward, inPlace, arenaTarget, cost, freshOptions,
                freshOptions.recompute && freshOptions.cuts,
                freshOptions.leanWorkspaces || !tied.lean.empty(),
                /*exchange=*/nullptr);
  AutoPlan fresh = greedy.run();
  fresh.privateClones = tied.privateClones;
  if (!fresh.fits)
    return tied.arenaBytes <= fresh.arenaBytes ? tied : fresh;
  return planClones(function, forward, inPlace, arenaTarget, cost, untied,
                    Resumable{&greedy, std::move(fresh), tied.privateClones});
}

uint64_t memopt::remat::bytesBesideArena(func::FuncOp function, bool cuda) {
  // On cuda, tg-plan-memory puts the constants in the arena after the
  // planned buffers (convertTGToMBuf): beside the plan, like the rest.
  uint64_t constants = 0;
  if (cuda)
    for (auto constant : function.getBody().front().getOps<tg::ConstantOp>())
      constants += llvm::alignTo(tensorBytes(constant.getOutput()),
                                 ArenaPlan::kAlignment);
  return predictedPeak(function, cuda, constants);
}
