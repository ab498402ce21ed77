//===- RematGreedy.cpp - auto's greedy ------------------------------------===//
//
// The rounds of tg-remat's `auto` greedy: a trial of the choices, a
// repair or undo of a pick the trial proves wrong, the candidates scored
// by the bytes they remove from the peak per second, the best committed.
//
//===----------------------------------------------------------------------===//

#include "RematGreedy.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

namespace memopt::remat::detail {

Greedy::Greedy(func::FuncOp function, ArrayRef<Operation *> forward,
               bool inPlace, uint64_t arenaTarget, const CostModel &cost,
               const AutoOptions &options, bool withCuts, bool withLean,
               const Exchange *exchange)
    : function(function), forward(forward), inPlace(inPlace),
      arenaTarget(arenaTarget), cost(cost), options(options),
      withCuts(withCuts), withLean(withLean), exchange(exchange),
      forwardOps(forward.begin(), forward.end()),
      ties(options.ties ? *options.ties : noTies) {
  auto isForwardOp = [&](Operation *op) { return isForward(op); };
  for (Operation *op : forward)
    for (OpResult result : op->getResults()) {
      bool recomputable = options.recompute && isRecomputable(result) &&
                          !returned(result) &&
                          llvm::any_of(result.getUsers(), [&](Operation *user) {
                            return !forwardOps.contains(user);
                          });
      if (recomputable ||
          (options.offload && offload::isOffloadable(result, isForwardOp))) {
        everyCopy.push_back(result);
        if (ties.representative(result))
          readLater.push_back(result);
      }
    }
  if (withLean)
    for (Operation &op : function.getBody().front())
      if (!forwardOps.contains(&op) && leanSavings(&op))
        leanable.insert(&op);
  best.arenaBytes = std::numeric_limits<uint64_t>::max();
  // An exchange starts from its plan with its value stored again, for
  // good.
  if (exchange) {
    const AutoPlan &from = *exchange->plan;
    chosen = from.recomputed;
    nested = from.nested;
    cuts = from.cuts;
    offloaded = from.offloaded;
    synchronous = from.synchronous;
    lean = from.lean;
    for (Operation *op : lean)
      leanable.erase(op);
    eraseCopies(chosen, exchange->stored);
    eraseCopies(nested, exchange->stored);
    for (Value copy : ties.copiesOf(exchange->stored))
      cuts.erase(copy);
    rejected.insert(exchange->stored);
  }
}

AutoPlan Greedy::choices() const {
  AutoPlan now;
  now.recomputed = chosen;
  now.nested = nested;
  now.cuts = cuts;
  now.offloaded = offloaded;
  now.synchronous = synchronous;
  now.lean = lean;
  return now;
}

AutoPlan Greedy::run() {
  for (;; ++plan.rounds) {
    // The round run() returned at, when lowerTarget goes on from it.
    std::unique_ptr<Trial> trial = std::move(held);
    std::optional<uint64_t> arena;
    if (trial) {
      arena = heldArena;
    } else {
      if (exchange && plan.rounds > exchange->maxRounds)
        return plan; // does not fit
      trial = std::make_unique<Trial>(function, forward, inPlace, chosen,
                                      nested, cuts, offloaded, synchronous,
                                      lean, options, cost);
      if (lastPickFailed(*trial)) {
        if (!repair(*trial))
          undoLastPick();
        continue; // after a repair, lastPeak stays the peak before the pick
      }
      repairing.reset();
      repairs.clear();
      lastPeak = trial->peak;
      arena = planArena(*trial);
      takeCheckpointAt(*trial, arena);
    }
    if (arena && *arena <= arenaTarget) {
      AutoPlan fit = fitted(*arena);
      held = std::move(trial);
      heldArena = *arena;
      return fit;
    }
    // With no single value lowering the peak, the bytes at its first point.
    std::optional<Candidate> pick;
    bool atPeak = false;
    for (bool at : {false, true}) {
      atPeak = at;
      if ((pick = bestCandidate(*trial, atPeak)))
        break;
    }
    if (!pick)
      break;
    lastAtPeak = atPeak;
    commit(std::move(*pick));
  }
  if (exchange)
    return plan; // does not fit
  return smallest();
}

bool Greedy::lastPickFailed(const Trial &trial) const {
  return last && (trial.peak > lastPeak ||
                  (last->offload && !lastAtPeak && trial.peak == lastPeak));
}

bool Greedy::repair(const Trial &trial) {
  if (!options.recompute || trial.peak <= lastPeak ||
      !(repairing ||
        (!last->nest && !last->cut && !last->offload && last->lean.empty())) ||
      repairs.size() >= kMaxRepairs)
    return false;
  std::optional<Candidate> nest;
  double nestRatio = -1;
  nestCandidates(trial, /*atPeak=*/false,
                 [&](Candidate candidate, uint64_t bytes) {
                   double ratio = static_cast<double>(bytes) /
                                  std::max(candidate.seconds, 1e-12);
                   if (ratio > nestRatio) {
                     nest = std::move(candidate);
                     nestRatio = ratio;
                   }
                 });
  if (!nest)
    return false;
  if (!repairing)
    repairing = std::move(last);
  repairs.push_back(nest->values.front());
  nested.insert(nest->values.front());
  last = std::move(nest);
  return true;
}

void Greedy::undoLastPick() {
  if (repairing) {
    for (Value value : repairs)
      nested.erase(value);
    for (Value value : repairing->values)
      eraseCopies(chosen, value);
    rejected.insert(repairing->values.front());
    repairing.reset();
    repairs.clear();
    last.reset();
    return;
  }
  if (last->nest) {
    nested.erase(last->values.front());
    rejectedNest.insert(last->values.front());
  } else if (!last->lean.empty()) {
    for (Operation *op : last->lean) {
      lean.erase(op);
      leanable.erase(op);
    }
  } else if (last->cut) {
    llvm::erase(cuts[last->values.front()], last->cutAt);
    if (cuts[last->values.front()].empty())
      cuts.erase(last->values.front());
    rejectedCuts.insert({last->values.front(), last->cutAt});
  } else if (last->offload) {
    // An upgrade to synchronous copies is one copy's; an offload is the
    // tie's.
    if (last->upgrade) {
      synchronous.erase(last->values.front());
    } else {
      eraseCopies(offloaded, last->values.front());
      eraseCopies(synchronous, last->values.front());
    }
    (last->synchronous ? rejectedSynchronous : rejectedOffload)
        .insert(last->values.front());
  } else {
    for (Value value : last->values)
      eraseCopies(chosen, value);
    rejected.insert(last->values.front());
  }
  last.reset();
}

std::optional<uint64_t> Greedy::planArena(const Trial &trial) {
  // No arena is below its live peak: a round whose peak is above the
  // target cannot fit, and its arena (packing it is most of a round's
  // time) matters only if no round fits, as a candidate for the
  // smallest one; it is kept for then.
  if (trial.peak > arenaTarget) {
    keepUnplanned(trial);
    return std::nullopt;
  }
  uint64_t arena = trial.arenaBytes();
  if (arena < best.arenaBytes) {
    best = choices();
    best.arenaBytes = arena;
    bestRound = plan.rounds;
  }
  return arena;
}

void Greedy::keepUnplanned(const Trial &trial) {
  unplanned.push_back({trial.peak, plan.rounds, choices(), std::nullopt});
  if (intervalsKept == kIntervalsKept) {
    // The kept round of the highest peak gives its place to a lower one.
    Unplanned *highest = nullptr;
    for (Unplanned &round : unplanned)
      if (round.intervals && (!highest || round.peak > highest->peak))
        highest = &round;
    if (highest->peak <= trial.peak)
      return;
    highest->intervals.reset();
    --intervalsKept;
  }
  unplanned.back().intervals = trial.arenaIntervals();
  ++intervalsKept;
}

/// Nested recomputation: a chosen value whose shared clone other clones
/// read gets private clones, recomputed once per clone that needs it, so
/// that it no longer lives from the first of them to its own backward
/// readers. Its seconds are its private chain's, once per clone added.
/// It is tried before new expensive recomputations (cheap, in the
/// greedy's order): it reuses what is recomputed already, and measured on
/// the ResNet-34 U-Net it reaches each peak with fewer added FLOPs and
/// seconds than ranking it by its ratio alone.
void Greedy::nestCandidates(const Trial &trial, bool atPeak,
                            Consider consider) {
  for (Value value : everyCopy) {
    if (!chosen.contains(value) || nested.contains(value) ||
        rejectedNest.contains(value) || trial.privateClones(value))
      continue;
    unsigned extra = 0;
    uint64_t bytes = trial.nestGain(value, atPeak, extra);
    if (!bytes)
      continue;
    Candidate candidate;
    candidate.values.push_back(value);
    candidate.nest = true;
    // Each added clone recomputes its op and the private chain below.
    Operation *op = value.getDefiningOp();
    double seconds = cost.cost(op).seconds;
    DenseMap<Operation *, Chain> memo;
    for (Value operand : op->getOperands())
      if (chosen.contains(operand))
        seconds += chainOf(operand, trial, chosen, cost, memo).seconds;
    candidate.seconds = extra * seconds;
    consider(std::move(candidate), bytes);
  }
}

/// Cuts: a fresh shared clone for the readers after a gap in which the
/// shared clone's bytes count at the peak (Cuts), where nesting would
/// recompute it for every clone that reads it. Its seconds are one more
/// recomputation of the value and its private chain.
void Greedy::cutCandidates(const Trial &trial, bool atPeak, Consider consider) {
  if (!withCuts)
    return;
  for (Value value : everyCopy) {
    if (!chosen.contains(value) || nested.contains(value))
      continue;
    Operation *op = value.getDefiningOp();
    double seconds = cost.cost(op).seconds;
    DenseMap<Operation *, Chain> memo;
    for (Value operand : op->getOperands())
      if (chosen.contains(operand) && trial.privateClones(operand))
        seconds += chainOf(operand, trial, chosen, cost, memo).seconds;
    const SmallVector<unsigned, 2> &made = cuts.lookup(value);
    trial.cutCandidates(value, atPeak, [&](unsigned at, uint64_t bytes) {
      if (llvm::is_contained(made, at) || rejectedCuts.contains({value, at}))
        return;
      Candidate candidate;
      candidate.values.push_back(value);
      candidate.cut = true;
      candidate.cutAt = at;
      candidate.seconds = seconds;
      consider(std::move(candidate), bytes);
    });
  }
}

std::optional<Candidate> Greedy::bestCandidate(const Trial &trial,
                                               bool atPeak) {
  std::optional<Candidate> pick;
  double pickRatio = -1;
  bool pickCheap = false;
  DenseMap<Operation *, Chain> memo;
  auto consider = [&](Candidate candidate, uint64_t bytes) {
    if (!bytes)
      return;
    double ratio =
        static_cast<double>(bytes) / std::max(candidate.seconds, 1e-12);
    if (!pick || (candidate.cheap && !pickCheap) ||
        (candidate.cheap == pickCheap && ratio > pickRatio)) {
      pick = std::move(candidate);
      pickRatio = ratio;
      pickCheap = pick->cheap;
    }
  };
  // Nested recomputation (nestCandidates).
  if (options.recompute) {
    nestCandidates(trial, atPeak, consider);
    cutCandidates(trial, atPeak, consider);
  }
  // Lean workspaces for the ops at the peak: they run slower
  // (CostModel::leanSeconds) and add no FLOPs; ranked by that time
  // like an expensive group.
  if (!leanable.empty()) {
    Candidate candidate;
    candidate.cheap = false;
    uint64_t bytes = trial.leanPeak(
        leanable, atPeak, [&](Operation *op) { return cost.leanSeconds(op); },
        candidate.lean, candidate.seconds);
    if (!candidate.lean.empty())
      consider(std::move(candidate), bytes);
  }
  auto isForwardOp = [&](Operation *op) { return isForward(op); };
  for (Value value : everyCopy) {
    if (chosen.contains(value) || synchronous.contains(value))
      continue;
    double transfer =
        static_cast<double>(tensorBytes(value)) / options.linkBandwidth;
    if (offloaded.contains(value)) {
      // Its copies wait at once instead: where its overlapped copy
      // holds the bytes at the peak (a busy link), the stall frees them.
      if (rejectedSynchronous.contains(value))
        continue;
      if (uint64_t bytes = trial.synchronousGain(value, atPeak)) {
        double ratio = static_cast<double>(bytes) / (2 * transfer);
        if (!pick || (!pickCheap && ratio > pickRatio)) {
          pick = Candidate{{value}, {}, 2 * transfer, false, true, true, true};
          pickRatio = ratio;
          pickCheap = false;
        }
      }
      continue;
    }
    // The tie's other copies are chosen with it.
    if (!ties.representative(value))
      continue;
    unsigned copies = ties.copiesOf(value).size();
    auto result = cast<OpResult>(value);
    if (options.recompute && !rejected.contains(value) &&
        isRecomputable(result) && !returned(value)) {
      Candidate candidate = group(value, trial, chosen, forwardOps, cost, memo);
      candidate.seconds *= copies;
      uint64_t bytes = trial.gain(candidate, atPeak, ties);
      consider(std::move(candidate), bytes);
    }
    if (!options.offload || tensorBytes(value) < leastOffloadBytes(trial) ||
        !offload::isOffloadable(value, isForwardOp))
      continue;
    // Overlapped: priced by its predicted stall; one the compute hides
    // costs a hundredth of its copy time (the link it takes from
    // others), as cheap as a value can get.
    if (!rejectedOffload.contains(value)) {
      Candidate candidate;
      candidate.values.push_back(value);
      candidate.offload = true;
      double stall = 0;
      for (Value copy : ties.copiesOf(value))
        stall += trial.offloadStall(copy);
      candidate.cheap = stall == 0;
      candidate.seconds = stall + 0.01 * transfer * copies;
      uint64_t bytes = trial.gain(candidate, atPeak, ties);
      consider(std::move(candidate), bytes);
    }
    // Synchronous: both copies stall, the whole window is free.
    if (!rejectedSynchronous.contains(value)) {
      Candidate candidate;
      candidate.values.push_back(value);
      candidate.offload = candidate.synchronous = true;
      candidate.cheap = false;
      candidate.seconds = 2 * transfer * copies;
      uint64_t bytes = trial.gain(candidate, atPeak, ties);
      consider(std::move(candidate), bytes);
    }
  }
  return pick;
}

void Greedy::commit(Candidate pick) {
  if (!pick.lean.empty()) {
    leanCommitted = true;
    for (Operation *op : pick.lean) {
      lean.insert(op);
      leanable.erase(op);
    }
  } else if (pick.nest) {
    nested.insert(pick.values.front());
  } else if (pick.cut) {
    cuts[pick.values.front()].push_back(pick.cutAt);
    cutBeforeCheckpoint |= !checkpoint;
  } else if (pick.upgrade) {
    synchronous.insert(pick.values.front());
  } else if (pick.offload) {
    insertCopies(offloaded, pick.values.front());
    if (pick.synchronous)
      insertCopies(synchronous, pick.values.front());
  } else
    for (Value value : pick.values)
      insertCopies(chosen, value);
  last = std::move(pick);
}

AutoPlan Greedy::fitted(uint64_t arena) {
  return fittedAt(choices(), arena, arenaTarget);
}

AutoPlan Greedy::fittedAt(AutoPlan choices, uint64_t arena,
                          uint64_t target) const {
  AutoPlan fitted = std::move(choices);
  fitted.rounds = plan.rounds;
  fitted.fits = true;
  fitted.arenaBytes = arena;
  prune(function, forward, inPlace, target, cost, options, fitted.recomputed,
        fitted.nested, fitted.cuts, fitted.offloaded, fitted.synchronous,
        fitted.lean, fitted.arenaBytes, exchange ? exchange->plan : nullptr,
        /*perByte=*/false, /*skipHopeless=*/options.ties != nullptr);
  Trial final(function, forward, inPlace, fitted.recomputed, fitted.nested,
              fitted.cuts, fitted.offloaded, fitted.synchronous, fitted.lean,
              options, cost);
  fitted.seconds = final.seconds;
  fitted.secondsAdded = final.secondsAdded(cost);
  return fitted;
}

void Greedy::takeCheckpointAt(const Trial &trial,
                              std::optional<uint64_t> arenaPlanned) {
  if (!checkpointTarget || checkpoint ||
      (!arenaPlanned && !trial.arenaFits(*checkpointTarget)))
    return;
  uint64_t arena = arenaPlanned ? *arenaPlanned : trial.arenaBytes();
  if (arena <= *checkpointTarget)
    checkpoint = fittedAt(choices(), arena, *checkpointTarget);
}

AutoPlan Greedy::smallest() {
  // The smallest arena reached, the earliest round's on ties. The rounds
  // not planned are planned now, the lowest peak first, until a peak is
  // above the smallest arena found.
  llvm::stable_sort(unplanned, [](const Unplanned &a, const Unplanned &b) {
    return a.peak < b.peak;
  });
  for (Unplanned &round : unplanned) {
    if (round.peak > best.arenaBytes)
      break;
    // The round's own trial had the layout an untimed trial of its
    // choices has (the same step in the same order): its intervals, where
    // kept, are packed without making the trial again.
    uint64_t arena;
    if (round.intervals) {
      arena = packedBytes(*round.intervals);
    } else {
      const AutoPlan &c = round.choices;
      Trial trial(function, forward, inPlace, c.recomputed, c.nested, c.cuts,
                  c.offloaded, c.synchronous, c.lean, options, cost, Timed::No);
      arena = trial.arenaBytes();
    }
    if (arena < best.arenaBytes ||
        (arena == best.arenaBytes && round.round < bestRound)) {
      best = std::move(round.choices);
      best.arenaBytes = arena;
      bestRound = round.round;
    }
  }
  best.rounds = plan.rounds;
  return best;
}

} // namespace memopt::remat::detail
