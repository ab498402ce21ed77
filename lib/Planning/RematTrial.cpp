//===- RematTrial.cpp - auto's candidates' recompute groups ---------------===//
//
// The recomputation groups that tg-remat's `auto` greedy scores: a value
// the backward reads, with the forward-only values its clone needs, and
// what recomputing them costs.
//
//===----------------------------------------------------------------------===//

#include "RematTrial.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Planning/ScheduleOrder.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

namespace memopt::remat::detail {

Trial::Trial(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
             const DenseSet<Value> &chosen, const DenseSet<Value> &nested,
             const Cuts &cuts, const DenseSet<Value> &offloaded,
             const DenseSet<Value> &synchronous,
             const DenseSet<Operation *> &lean, const AutoOptions &options,
             const CostModel &cost, Timed timed)
    : inPlace(inPlace), link(options.linkBandwidth),
      copy(cast<func::FuncOp>(function->clone(mapping))) {
  for (Operation *op : forward)
    forwardOps.insert(mapping.lookup(op));
  for (Operation *op : lean) {
    makeLean(mapping.lookup(op));
    leanSeconds += cost.leanSeconds(mapping.lookup(op));
  }
  SmallVector<Operation *> later;
  for (Operation &op : copy.getBody().front().without_terminator())
    if (!forwardOps.contains(&op)) {
      laterPosition[&op] = later.size();
      later.push_back(&op);
    }
  DenseSet<Value> recomputed, nestedCopies;
  for (Value value : chosen)
    recomputed.insert(mapping.lookup(value));
  for (Value value : nested)
    nestedCopies.insert(mapping.lookup(value));
  Cuts cutCopies;
  for (const auto &[value, positions] : cuts)
    cutCopies[mapping.lookup(value)] = positions;
  // The policy over the originals (privateClones), and over the copies
  // for the rewrite.
  policy.privateAncestors = options.privateAncestors.value_or(!inPlace);
  policy.nested = &nested;
  ClonePolicy copyPolicy = policy;
  copyPolicy.nested = &nestedCopies;
  copyPolicy.cuts = &cutCopies;
  Rewrite rewrite = recompute(later, recomputed, copyPolicy);
  clones = std::move(rewrite.clones);
  cloneOf = std::move(rewrite.cloneOf);
  shared = std::move(rewrite.shared);
  for (auto [clone, at] : rewrite.madeFor)
    laterPosition[clone] = at;
  // In the order tg-schedule will choose, so that the arena planned here
  // is the one tg-plan-memory will plan.
  if (options.reschedule) {
    MemorySimulator given(copy, inPlace);
    SmallVector<unsigned> scheduled = chooseSchedule(given).order;
    // A fit test without copies to place needs only the layout of the
    // order, which the graph before the reordering gives as it is:
    // neither the reordering nor a second graph is built.
    if (timed == Timed::No && offloaded.empty() &&
        !given.layoutDependsOnGivenOrder()) {
      simulator.emplace(std::move(given));
      setOrder(std::move(scheduled));
      return;
    }
    applyOrder(given, scheduled, copy.getBody().front().getTerminator());
  }
  // Each op's seconds, once per trial: the copies of the function's ops
  // take theirs from the table where there is one (their lean workspaces
  // change the price of the lean ones), the clones and copies are priced.
  DenseMap<Operation *, double> secondsOf;
  if (options.opSeconds && (!offloaded.empty() || timed == Timed::Yes))
    for (auto [op, seconds] : *options.opSeconds)
      if (!lean.contains(op))
        secondsOf[mapping.lookup(op)] = seconds;
  auto opSeconds = [&](Operation *op) {
    auto [it, inserted] = secondsOf.try_emplace(op, 0.0);
    if (inserted)
      it->second = cost.cost(op).seconds;
    return it->second;
  };
  // Then the copies, where tg-offload (after tg-schedule) puts them.
  if (!offloaded.empty()) {
    SmallVector<Value> values;
    DenseSet<Value> waitAtOnce;
    for (Value value : offload::inProgramOrder(offloaded)) {
      values.push_back(mapping.lookup(value));
      if (synchronous.contains(value))
        waitAtOnce.insert(values.back());
    }
    copies = offload::placeOffloads(
        copy, values, waitAtOnce,
        [&](Operation *op) { return forwardOps.contains(op); }, opSeconds,
        link);
  }
  if (timed == Timed::Yes && link > 0) {
    offload::Timing timing = offload::predictTiming(copy, opSeconds, link);
    seconds = timing.computeSeconds + timing.stallSeconds;
  }
  simulator.emplace(copy, inPlace);
  setOrder(simulator->givenOrder());
  if (timed == Timed::No)
    return;
  liveMax.emplace(live);
  startTime.push_back(0);
  for (const MemorySimulator::Op &op : simulator->ops()) {
    positionOf[op.op] = startTime.size() - 1;
    startTime.push_back(startTime.back() + opSeconds(op.op));
  }
}

bool Trial::window(Value value, unsigned &from, unsigned &to) const {
  unsigned index = simulator->valueIndex(mapping.lookup(value));
  if (index == MemorySimulator::kNone)
    return false;
  const MemorySimulator::ArenaValue &info = simulator->values()[index];
  from = info.def;
  to = order.size();
  for (unsigned user : info.users) {
    if (forwardOps.contains(simulator->ops()[user].op))
      from = std::max(from, user);
    else
      to = std::min(to, user);
  }
  return from < to;
}

double Trial::offloadStall(Value value) const {
  unsigned from, to;
  if (!window(value, from, to))
    return 0;
  double begin = startTime[from + 1], end = startTime[to];
  double span = end - begin;
  double transfer = static_cast<double>(llvm::alignTo(tensorBytes(value),
                                                      ArenaPlan::kAlignment)) /
                    link;
  double d2hBusy = 0, h2dBusy = 0;
  auto overlap = [&](double a, double b) {
    return std::max(0.0, std::min(b, end) - std::max(a, begin));
  };
  for (const offload::Copy &placed : copies) {
    d2hBusy += overlap(placed.d2hStart, placed.d2hEnd);
    h2dBusy += overlap(placed.h2dStart, placed.h2dEnd);
  }
  return std::max({0.0, 2 * transfer - span, transfer - (span - d2hBusy),
                   transfer - (span - h2dBusy)});
}

uint64_t Trial::gain(const Candidate &candidate, bool atPeak,
                     const MicrobatchTies &ties) const {
  SmallVector<MemorySimulator::Absence, 4> absences;
  for (Value original : ties.copiesOf(candidate.values.front())) {
    unsigned index = simulator->valueIndex(mapping.lookup(original));
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
    if (value.liveOut)
      return 0;
    absences.push_back({index, from, to});
  }
  uint64_t removed = removedBetween(absences, atPeak);
  uint64_t kept = 0;
  for (Value extended : candidate.kept)
    for (Value copy : ties.copiesOf(extended)) {
      unsigned keptIndex = simulator->valueIndex(mapping.lookup(copy));
      if (keptIndex != MemorySimulator::kNone)
        kept += simulator->values()[keptIndex].bytes;
    }
  return removed > kept ? removed - kept : 0;
}

uint64_t Trial::peakIfStored(ArrayRef<Value> originals) const {
  if (positionOfOp.empty())
    for (auto [at, index] : llvm::enumerate(order))
      positionOfOp[simulator->ops()[index].op] = at;
  if (!liveMax)
    liveMax.emplace(live);
  SmallVector<std::pair<unsigned, int64_t>> changes; // position, bytes
  for (Value original : originals) {
    unsigned index = simulator->valueIndex(mapping.lookup(original));
    if (index == MemorySimulator::kNone)
      continue;
    unsigned from = layout.lastUse[index] + 1, to = order.size();
    for (Operation *user : original.getUsers()) {
      Operation *copied = mapping.lookup(user);
      if (forwardOps.contains(copied))
        continue;
      if (auto it = positionOfOp.find(copied); it != positionOfOp.end())
        to = std::min(to, it->second);
    }
    if (from >= to)
      continue;
    auto bytes = static_cast<int64_t>(simulator->values()[index].bytes);
    changes.push_back({from, bytes});
    changes.push_back({to, -bytes});
  }
  llvm::sort(changes);
  uint64_t most = peak, added = 0;
  unsigned next = 0; // the first position not yet covered
  for (auto [at, delta] : changes) {
    if (at > next) {
      most = std::max(most, liveMax->max(next, at - 1) + added);
      next = at;
    }
    added += delta;
  }
  return most;
}

uint64_t Trial::leanPeak(const DenseSet<Operation *> &leanable, bool atPeak,
                         function_ref<double(Operation *)> seconds,
                         SmallVector<Operation *, 2> &ops,
                         double &opsSeconds) const {
  DenseMap<Operation *, Operation *> originalOf; // copy -> leanable op
  for (Operation *op : leanable)
    originalOf[mapping.lookup(op)] = op;
  auto leanAt = [&](unsigned at, uint64_t &saved) -> Operation * {
    Operation *copied = simulator->ops()[order[at]].op;
    Operation *original = originalOf.lookup(copied);
    if (!original)
      return nullptr;
    saved = std::min(leanSavings(copied), live[at]);
    return saved ? original : nullptr;
  };
  if (atPeak) {
    unsigned at = std::find(live.begin(), live.end(), peak) - live.begin();
    uint64_t saved = 0;
    if (at == live.size())
      return 0;
    if (Operation *original = leanAt(at, saved)) {
      ops.push_back(original);
      opsSeconds = seconds(original);
    }
    return saved;
  }
  SmallVector<unsigned> byLive(live.size());
  std::iota(byLive.begin(), byLive.end(), 0u);
  llvm::stable_sort(byLive,
                    [&](unsigned a, unsigned b) { return live[a] > live[b]; });
  SmallVector<Operation *, 2> group;
  double groupSeconds = 0, bestRatio = 0;
  uint64_t lowered = 0, best = 0; // lowered: the group's highest point
  for (unsigned i = 0; i <= byLive.size(); ++i) {
    uint64_t level = i < byLive.size() ? live[byLive[i]] : 0;
    if (!group.empty()) {
      uint64_t gain = peak - std::max(lowered, level);
      double ratio = gain / std::max(groupSeconds, 1e-12);
      if (gain && ratio > bestRatio) {
        bestRatio = ratio;
        best = gain;
        ops = group;
        opsSeconds = groupSeconds;
      }
    }
    if (i == byLive.size() || level <= lowered)
      break;
    uint64_t saved = 0;
    Operation *original = leanAt(byLive[i], saved);
    if (!original)
      break;
    if (!llvm::is_contained(group, original)) {
      group.push_back(original);
      groupSeconds += seconds(original);
    }
    lowered = std::max(lowered, level - saved);
  }
  return best;
}

bool Trial::privateClones(Value original) const {
  return policy.isPrivate(original);
}

uint64_t Trial::nestGain(Value original, bool atPeak, unsigned &extra) const {
  extra = 0;
  Operation *clone = cloneOf.lookup(mapping.lookup(original).getDefiningOp());
  if (!clone)
    return 0;
  Value shared = clone->getResult(cast<OpResult>(original).getResultNumber());
  unsigned index = simulator->valueIndex(shared);
  if (index == MemorySimulator::kNone)
    return 0;
  const MemorySimulator::ArenaValue &info = simulator->values()[index];
  SmallVector<std::pair<unsigned, bool>> readers; // position, a clone's
  unsigned firstOwn = order.size(), lastOwn = 0, consumers = 0;
  for (unsigned user : info.users) {
    bool byClone = simulator->ops()[user].op->hasAttr(kRecomputeAttr);
    readers.push_back({user, byClone});
    if (byClone) {
      ++consumers;
    } else {
      firstOwn = std::min(firstOwn, user);
      lastOwn = std::max(lastOwn, user);
    }
  }
  bool own = firstOwn <= lastOwn;
  if (!consumers || consumers + own < 2)
    return 0;
  extra = consumers + own - 1;
  llvm::sort(readers);
  uint64_t best = 0;
  for (unsigned i = 0; i + 1 < readers.size(); ++i) {
    unsigned from = readers[i].first, to = readers[i + 1].first;
    if (own && !(to <= firstOwn || from >= lastOwn))
      continue;
    best = std::max(best, removedBetween(index, from, to, atPeak));
  }
  return best;
}

void Trial::cutCandidates(
    Value original, bool atPeak,
    function_ref<void(unsigned, uint64_t)> consider) const {
  Operation *op = mapping.lookup(original).getDefiningOp();
  unsigned result = cast<OpResult>(original).getResultNumber();
  for (auto [owner, clone] : shared) {
    if (owner != op)
      continue;
    unsigned index = simulator->valueIndex(clone->getResult(result));
    if (index == MemorySimulator::kNone)
      continue;
    // (position in the order, position in `later`) of each reader.
    SmallVector<std::pair<unsigned, unsigned>> readers;
    for (unsigned user : simulator->values()[index].users) {
      auto it = laterPosition.find(simulator->ops()[user].op);
      if (it == laterPosition.end())
        break;
      readers.push_back({user, it->second});
    }
    if (readers.size() != simulator->values()[index].users.size())
      continue;
    llvm::sort(readers);
    SmallVector<unsigned> latestBefore, earliestAfter(readers.size());
    unsigned latest = 0;
    for (auto [position, at] : readers)
      latestBefore.push_back(latest = std::max(latest, at));
    unsigned earliest = std::numeric_limits<unsigned>::max();
    for (unsigned i = readers.size(); i-- > 0;)
      earliestAfter[i] = earliest = std::min(earliest, readers[i].second);
    for (unsigned i = 0; i + 1 < readers.size(); ++i) {
      unsigned cutAt = earliestAfter[i + 1];
      if (latestBefore[i] >= cutAt)
        continue;
      if (uint64_t bytes = removedBetween(index, readers[i].first,
                                          readers[i + 1].first, atPeak))
        consider(cutAt, bytes);
    }
  }
}

uint64_t Trial::synchronousGain(Value original, bool atPeak) const {
  Value value = mapping.lookup(original);
  uint64_t best = 0;
  for (Operation *user : value.getUsers()) {
    auto start = dyn_cast<tg::OffloadStartOp>(user);
    if (!start)
      continue;
    for (Operation *hostUser : start.getHost().getUsers()) {
      if (auto wait = dyn_cast<tg::OffloadWaitOp>(hostUser))
        best = std::max(best, removedBetween(simulator->valueIndex(value),
                                             positionOf.lookup(start),
                                             positionOf.lookup(wait), atPeak));
      auto prefetch = dyn_cast<tg::PrefetchStartOp>(hostUser);
      if (!prefetch)
        continue;
      for (Operation *reader : prefetch.getOutput().getUsers())
        if (isa<tg::PrefetchWaitOp>(reader))
          best = std::max(
              best, removedBetween(simulator->valueIndex(prefetch.getOutput()),
                                   positionOf.lookup(prefetch) - 1,
                                   positionOf.lookup(reader), atPeak));
    }
  }
  return best;
}

uint64_t Trial::removedBetween(unsigned index, unsigned from, unsigned to,
                               bool atPeak) const {
  if (index == MemorySimulator::kNone || from + 1 >= to)
    return 0;
  if (!atPeak)
    return peak -
           simulator->peakWithout(layout, *liveMax, index, from + 1, to - 1);
  unsigned at = std::find(live.begin(), live.end(), peak) - live.begin();
  SmallVector<unsigned> liveThere = simulator->liveAt(layout, at);
  return from < at && at < to && llvm::is_contained(liveThere, index)
             ? simulator->values()[index].bytes
             : 0;
}

uint64_t Trial::removedBetween(ArrayRef<MemorySimulator::Absence> absences,
                               bool atPeak) const {
  if (absences.size() == 1)
    return removedBetween(absences.front().value, absences.front().from,
                          absences.front().to, atPeak);
  SmallVector<MemorySimulator::Absence, 4> strictly;
  for (auto [index, from, to] : absences)
    if (from + 1 < to)
      strictly.push_back({index, from + 1, to - 1});
  if (strictly.empty())
    return 0;
  if (!atPeak)
    return peak - simulator->peakWithout(layout, *liveMax, strictly);
  unsigned at = std::find(live.begin(), live.end(), peak) - live.begin();
  SmallVector<unsigned> liveThere = simulator->liveAt(layout, at);
  uint64_t bytes = 0;
  for (auto [index, from, to] : strictly)
    if (from <= at && at <= to && llvm::is_contained(liveThere, index))
      bytes += simulator->values()[index].bytes;
  return bytes;
}

Chain chainOf(Value value, const Trial &trial, const DenseSet<Value> &chosen,
              const CostModel &cost, DenseMap<Operation *, Chain> &memo) {
  Operation *op = value.getDefiningOp();
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  Chain chain{cost.cost(op).seconds, isCheapToRecompute(op)};
  // A shared clone (RematPlan.h) is paid for once, when it was chosen.
  if (!trial.privateClones(value))
    return memo[op] = Chain{0, chain.cheap};
  for (Value operand : op->getOperands())
    if (chosen.contains(operand)) {
      Chain below = chainOf(operand, trial, chosen, cost, memo);
      chain.seconds += below.seconds;
      chain.cheap &= below.cheap;
    }
  return memo[op] = chain;
}

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
        // Where the plan writes in place a shared clone is no group's
        // cost (as before nesting); a nested one is paid per clone.
        if (!trial.inPlace || trial.privateClones(operand)) {
          Chain below = chainOf(operand, trial, chosen, cost, memo);
          own += below.seconds;
          candidate.cheap &= below.cheap;
        }
        continue;
      }
      if (trial.stored(operand))
        continue;
      if (candidate.values.size() + worklist.size() < kMaxGroup &&
          isRecomputable(result) && !returned(operand))
        worklist.push_back(operand);
      else
        candidate.kept.push_back(operand);
    }
  }
  candidate.seconds = own * (1 + fanOut);
  return candidate;
}

} // namespace memopt::remat::detail
