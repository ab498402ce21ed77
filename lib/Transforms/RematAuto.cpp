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
// docs/passes/remat.md#auto.
//
//===----------------------------------------------------------------------===//

#include "RematPlan.h"
#include "ScheduleOrder.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

namespace {

/// A recomputation to consider: a value the backward reads, with the
/// forward values that are read only in the forward and that its clone
/// needs (recomputed with it rather than kept alive: a ReLU's BatchNorm
/// input), up to kMaxGroup values.
struct Candidate {
  SmallVector<Value, 2> values; // values[0] is the one the backward reads
  SmallVector<Value, 2> kept;   // forward values the clones would extend
  double seconds = 0;
  bool cheap = true;
};

constexpr unsigned kMaxGroup = 4;

/// One round's copy of the step, rewritten with the values chosen so far.
class Trial {
public:
  Trial(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
        const DenseSet<Value> &chosen, bool privateAncestors)
      : inPlace(inPlace), copy(cast<func::FuncOp>(function->clone(mapping))) {
    for (Operation *op : forward)
      forwardOps.insert(mapping.lookup(op));
    SmallVector<Operation *> later;
    for (Operation &op : copy.getBody().front().without_terminator())
      if (!forwardOps.contains(&op))
        later.push_back(&op);
    DenseSet<Value> recomputed;
    for (Value value : chosen)
      recomputed.insert(mapping.lookup(value));
    clones = recompute(later, recomputed, privateAncestors).clones;
    // In the order tg-schedule will choose, so that the arena planned here
    // is the one tg-plan-memory will plan.
    {
      MemorySimulator given(copy, inPlace);
      applyOrder(given, chooseSchedule(given).order,
                 copy.getBody().front().getTerminator());
    }
    simulator.emplace(copy, inPlace);
    order = simulator->givenOrder();
    live = simulator->liveBytes(order);
    peak = live.empty() ? 0 : *llvm::max_element(live);
  }
  ~Trial() { copy->erase(); }

  /// Whether the copy of forward value `value` is read after the forward
  /// (by the backward, a clone, or returned): it is stored.
  bool stored(Value value) const {
    return llvm::any_of(mapping.lookup(value).getUsers(), [&](Operation *u) {
      return !forwardOps.contains(u);
    });
  }

  uint64_t arenaBytes() const {
    return ArenaPlan::compute(*simulator).totalBytes();
  }

  /// The predicted seconds of the clones.
  double secondsAdded(const CostModel &cost) const {
    double seconds = 0;
    for (Operation *clone : clones)
      seconds += cost.cost(clone).seconds;
    return seconds;
  }

  /// The bytes that recomputing `candidate` removes from the peak, net of
  /// the bytes of the values it keeps alive; 0 when it removes nothing.
  /// `atPeak`: with no single-value gain (several points at the peak), the
  /// bytes it removes from the first of them.
  uint64_t gain(const Candidate &candidate, bool atPeak) const {
    Value copied = mapping.lookup(candidate.values.front());
    unsigned index = simulator->valueIndex(copied);
    if (index == MemorySimulator::kNone)
      return 0;
    const MemorySimulator::ArenaValue &value = simulator->values()[index];
    unsigned from = value.def, to = order.size();
    for (unsigned user : value.users) {
      if (forwardOps.contains(simulator->ops()[user].op))
        from = std::max(from, user);
      else
        to = std::min(to, user);
    }
    if (value.liveOut || from + 1 >= to)
      return 0;
    uint64_t removed;
    if (!atPeak) {
      removed = peak - simulator->peakWithout(order, index, from + 1, to - 1);
    } else {
      unsigned at = std::find(live.begin(), live.end(), peak) - live.begin();
      SmallVector<unsigned> liveThere = simulator->liveAt(order, at);
      removed = from < at && at < to && llvm::is_contained(liveThere, index)
                    ? value.bytes
                    : 0;
    }
    uint64_t kept = 0;
    for (Value extended : candidate.kept) {
      unsigned keptIndex = simulator->valueIndex(mapping.lookup(extended));
      if (keptIndex != MemorySimulator::kNone)
        kept += simulator->values()[keptIndex].bytes;
    }
    return removed > kept ? removed - kept : 0;
  }

  uint64_t peak = 0;
  bool inPlace;

private:
  IRMapping mapping;
  func::FuncOp copy;
  DenseSet<Operation *> forwardOps;
  std::optional<MemorySimulator> simulator;
  SmallVector<unsigned> order;
  SmallVector<uint64_t> live;
  SmallVector<Operation *> clones;
};

/// What recomputing chosen value `value` privately costs: its op and,
/// recursively, the chosen values that op reads (the rewrite clones a
/// recomputed operand anew for each clone that reads it: RematPlan.h).
struct Chain {
  double seconds = 0;
  bool cheap = true;
};

Chain chainOf(Value value, const DenseSet<Value> &chosen, const CostModel &cost,
              DenseMap<Operation *, Chain> &memo) {
  Operation *op = value.getDefiningOp();
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  Chain chain{cost.cost(op).seconds, isCheapToRecompute(op)};
  // An expensive op's clone is shared (RematPlan.h): paid for once, when
  // it was chosen.
  if (!chain.cheap)
    return memo[op] = Chain{0, false};
  for (Value operand : op->getOperands())
    if (chosen.contains(operand)) {
      Chain below = chainOf(operand, chosen, cost, memo);
      chain.seconds += below.seconds;
      chain.cheap &= below.cheap;
    }
  return memo[op] = chain;
}

/// The candidate of backward-read value `value` in `trial`: its op, and the
/// recomputable forward-only values its clone reads (recursively, up to
/// kMaxGroup values), the others it reads that would outlive the forward
/// for it in `kept`. Where clones of cheap operands are private (the plan
/// does not write in place: RematPlan.h), its seconds count the chosen
/// values its clones recompute privately, and its own ops once more per
/// chosen value whose op reads it (each of their clones recomputes it too).
Candidate group(Value value, const Trial &trial, const DenseSet<Value> &chosen,
                const DenseSet<Operation *> &forward, const CostModel &cost,
                DenseMap<Operation *, Chain> &memo) {
  Candidate candidate;
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen{value};
  double own = 0, fanOut = 0;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    Operation *op = next.getDefiningOp();
    candidate.values.push_back(next);
    own += cost.cost(op).seconds;
    candidate.cheap &= isCheapToRecompute(op);
    if (!trial.inPlace)
      fanOut += llvm::count_if(next.getUsers(), [&](Operation *user) {
        return llvm::any_of(user->getResults(), [&](Value result) {
          return chosen.contains(result);
        });
      });
    for (Value operand : op->getOperands()) {
      auto result = dyn_cast<OpResult>(operand);
      if (!result || !forward.contains(result.getOwner()) ||
          !seen.insert(operand).second)
        continue;
      if (chosen.contains(operand)) {
        if (!trial.inPlace) {
          Chain below = chainOf(operand, chosen, cost, memo);
          own += below.seconds;
          candidate.cheap &= below.cheap;
        }
        continue;
      }
      if (trial.stored(operand))
        continue;
      if (candidate.values.size() + worklist.size() < kMaxGroup &&
          autoRecomputable(result, trial.inPlace) && !returned(operand))
        worklist.push_back(operand);
      else
        candidate.kept.push_back(operand);
    }
  }
  candidate.seconds = own * (1 + fanOut);
  return candidate;
}

/// The greedy adds values one group at a time, so a value chosen early
/// may be needless once later ones are recomputed. Stores them again, the
/// most expensive first, while the arena still fits (one trial each).
DenseSet<Value> prune(func::FuncOp function, ArrayRef<Operation *> forward,
                      bool inPlace, uint64_t arenaTarget, const CostModel &cost,
                      DenseSet<Value> chosen, bool privateAncestors,
                      uint64_t &arenaBytes) {
  SmallVector<std::pair<double, Value>> byCost;
  for (Value value : chosen)
    byCost.push_back({cost.cost(value.getDefiningOp()).seconds, value});
  // Ties (and the set's order) broken by program order: deterministic.
  DenseMap<Operation *, unsigned> position;
  for (auto [at, op] : llvm::enumerate(forward))
    position[op] = at;
  llvm::sort(byCost, [&](const auto &a, const auto &b) {
    if (a.first != b.first)
      return a.first > b.first;
    Operation *x = a.second.getDefiningOp(), *y = b.second.getDefiningOp();
    if (x != y)
      return position.lookup(x) < position.lookup(y);
    return cast<OpResult>(a.second).getResultNumber() <
           cast<OpResult>(b.second).getResultNumber();
  });
  for (auto [seconds, value] : byCost) {
    chosen.erase(value);
    Trial trial(function, forward, inPlace, chosen, privateAncestors);
    uint64_t arena = trial.arenaBytes();
    if (arena <= arenaTarget)
      arenaBytes = arena;
    else
      chosen.insert(value);
  }
  return chosen;
}

} // namespace

bool memopt::remat::autoRecomputable(OpResult value, bool inPlace) {
  return !(inPlace && isa<tg::ConcatOp>(value.getOwner())) &&
         isRecomputable(value.getOwner(), value.getResultNumber());
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
                                     const CostModel *cost,
                                     double *secondsAdded) {
  Trial trial(function, forward, inPlace, recomputed, privateAncestors);
  if (cost && secondsAdded)
    *secondsAdded = trial.secondsAdded(*cost);
  return trial.arenaBytes();
}

AutoPlan memopt::remat::planAuto(func::FuncOp function,
                                 ArrayRef<Operation *> forward, bool inPlace,
                                 uint64_t arenaTarget, const CostModel &cost,
                                 bool privateAncestors) {
  DenseSet<Operation *> forwardOps(forward.begin(), forward.end());
  // Candidates: recomputable forward values that the backward reads.
  SmallVector<Value> readLater;
  for (Operation *op : forward)
    for (OpResult result : op->getResults())
      if (autoRecomputable(result, inPlace) && !returned(result) &&
          llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !forwardOps.contains(user);
          }))
        readLater.push_back(result);

  AutoPlan plan;
  DenseSet<Value> chosen, best, rejected;
  uint64_t bestArena = std::numeric_limits<uint64_t>::max();
  uint64_t lastPeak = std::numeric_limits<uint64_t>::max();
  std::optional<Candidate> last;
  for (;; ++plan.rounds) {
    Trial trial(function, forward, inPlace, chosen, privateAncestors);
    // A pick whose estimate was wrong (the peak rose: the clones or the
    // values they keep alive made a new one) is undone and not tried again.
    if (last && trial.peak > lastPeak) {
      for (Value value : last->values)
        chosen.erase(value);
      rejected.insert(last->values.front());
      last.reset();
      continue;
    }
    lastPeak = trial.peak;
    uint64_t arena = trial.arenaBytes();
    if (arena < bestArena) {
      bestArena = arena;
      best = chosen;
    }
    if (arena <= arenaTarget) {
      plan.fits = true;
      plan.arenaBytes = arena;
      plan.recomputed =
          prune(function, forward, inPlace, arenaTarget, cost,
                std::move(chosen), privateAncestors, plan.arenaBytes);
      return plan;
    }
    // The best ratio of bytes removed to seconds, cheap groups first; with
    // no single value lowering the peak, the bytes at its first point.
    std::optional<Candidate> pick;
    for (bool atPeak : {false, true}) {
      double pickRatio = -1;
      bool pickCheap = false;
      DenseMap<Operation *, Chain> memo;
      for (Value value : readLater) {
        if (chosen.contains(value) || rejected.contains(value))
          continue;
        Candidate candidate =
            group(value, trial, chosen, forwardOps, cost, memo);
        uint64_t bytes = trial.gain(candidate, atPeak);
        if (!bytes)
          continue;
        double ratio = static_cast<double>(bytes) /
                       std::max(candidate.seconds, 1e-12);
        if (!pick || (candidate.cheap && !pickCheap) ||
            (candidate.cheap == pickCheap && ratio > pickRatio)) {
          pick = std::move(candidate);
          pickRatio = ratio;
          pickCheap = pick->cheap;
        }
      }
      if (pick)
        break;
    }
    if (!pick)
      break;
    for (Value value : pick->values)
      chosen.insert(value);
    last = std::move(pick);
  }
  // Nothing more lowers the peak: the smallest arena reached.
  plan.recomputed = std::move(best);
  plan.arenaBytes = bestArena;
  return plan;
}
