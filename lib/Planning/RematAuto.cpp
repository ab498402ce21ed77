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
// workspaces, with them); the fastest plan is taken.
// docs/passes/remat.md#strategies, docs/passes/offload.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/OffloadPlan.h"
#include "memopt/Planning/PlannerThreads.h"
#include "memopt/Planning/PredictedPeak.h"
#include "memopt/Planning/RematPlan.h"
#include "memopt/Planning/ScheduleOrder.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <utility>

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
  bool offload = false; // values[0] goes to host memory and back
  bool synchronous = false; // ... with copies that wait at once
  bool upgrade = false; // values[0] was offloaded already, overlapped
  bool nest = false;    // values[0], chosen, gets private clones
  bool cut = false;     // values[0], chosen, gets a fresh clone at cutAt
  unsigned cutAt = 0;
  /// These backward ops get their lean workspace.
  SmallVector<Operation *, 2> lean;
};

constexpr unsigned kMaxGroup = 4;

/// What a trial is for: scoring candidates and predicting the step's
/// seconds (timed), or only its live peak and arena (a prune's fit test,
/// an arena to compare), which skip pricing every op of the copy.
enum class Timed { No, Yes };

/// One round's copy of the step, rewritten with the values chosen so far.
class Trial {
public:
  Trial(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
        const DenseSet<Value> &chosen, const DenseSet<Value> &nested,
        const Cuts &cuts, const DenseSet<Value> &offloaded,
        const DenseSet<Value> &synchronous,
        const DenseSet<Operation *> &lean, const AutoOptions &options,
        const CostModel &cost, Timed timed = Timed::Yes)
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
          [&](Operation *op) { return forwardOps.contains(op); }, cost, link);
    }
    if (timed == Timed::Yes && link > 0) {
      offload::Timing timing = offload::predictTiming(copy, cost, link);
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
      startTime.push_back(startTime.back() + cost.cost(op.op).seconds);
    }
  }
  ~Trial() { copy->erase(); }

  /// The order the simulator's ops run in (the given one, but for a fit
  /// test), with its layout and live bytes.
  void setOrder(SmallVector<unsigned> ops) {
    order = std::move(ops);
    layout = simulator->layout(order);
    live = simulator->liveBytes(order, layout);
    peak = live.empty() ? 0 : *llvm::max_element(live);
  }

  /// Whether the copy of forward value `value` is read after the forward
  /// (by the backward, a clone, or returned): it is stored.
  bool stored(Value value) const {
    return llvm::any_of(mapping.lookup(value).getUsers(), [&](Operation *u) {
      return !forwardOps.contains(u);
    });
  }

  uint64_t arenaBytes() const {
    return ArenaPlan::computeTotal(layout);
  }

  /// Whether arenaBytes() is at most `limit`, with less packing.
  bool arenaFits(uint64_t limit) const {
    return peak <= limit && ArenaPlan::fitsWithin(layout, limit);
  }

  /// The predicted seconds of the clones and the lean workspaces.
  double secondsAdded(const CostModel &cost) const {
    double seconds = leanSeconds;
    for (Operation *clone : clones)
      seconds += cost.cost(clone).seconds;
    return seconds;
  }

  /// The positions in the order of `value`'s last forward reader (or its
  /// op) and its first other reader; false for a value outside the arena.
  bool window(Value value, unsigned &from, unsigned &to) const {
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

  /// The stall that offloading `value` is predicted to add: its two copies
  /// (bytes / link each, one after the other) in the compute time between
  /// its last forward reader and its first backward reader, each sharing
  /// its direction's link with the copies already placed.
  double offloadStall(Value value) const {
    unsigned from, to;
    if (!window(value, from, to))
      return 0;
    double begin = startTime[from + 1], end = startTime[to];
    double span = end - begin;
    double transfer =
        static_cast<double>(llvm::alignTo(tensorBytes(value),
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
    return std::max({0.0, 2 * transfer - span,
                     transfer - (span - d2hBusy), transfer - (span - h2dBusy)});
  }

  /// The bytes that recomputing `candidate` removes from the peak, net of
  /// the bytes of the values it keeps alive; 0 when it removes nothing.
  /// `atPeak`: with no single-value gain (several points at the peak), the
  /// bytes it removes from the first of them. With the microbatches'
  /// copies of its values (`ties`) recomputed too.
  uint64_t gain(const Candidate &candidate, bool atPeak,
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

  /// The live peak of this trial's order if recomputed `originals` were
  /// stored instead, each live from its last forward use to its first
  /// backward reader: an estimate (the order stays, and the clones and the
  /// values they keep alive are not taken off), for prune to skip a store
  /// that cannot fit.
  uint64_t peakIfStored(ArrayRef<Value> originals) const {
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

  /// Lean workspaces for the ops of `leanable` (originals) that run at
  /// the highest points of the live bytes: the points from the peak down,
  /// each leaned op lowering its own point by its saving, until a point
  /// without a leanable op (or one that leaning cannot lower further)
  /// bounds the new peak. Of these prefixes, the one that removes the most
  /// bytes per second of slowdown (`seconds` of an op), in `ops`; returns
  /// the bytes it removes from the peak. A plateau of near-equal points (a
  /// filter gradient and the data gradient after it) is thus lowered as a
  /// whole. atPeak: the op at the first point of the peak and its saving.
  uint64_t leanPeak(const DenseSet<Operation *> &leanable, bool atPeak,
                    function_ref<double(Operation *)> seconds,
                    SmallVector<Operation *, 2> &ops, double &opsSeconds) const {
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
    llvm::stable_sort(byLive, [&](unsigned a, unsigned b) {
      return live[a] > live[b];
    });
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

  /// Whether chosen `original`'s clones are private (ClonePolicy).
  bool privateClones(Value original) const {
    return policy.isPrivate(original);
  }

  /// What nesting chosen `original` (private clones: one per clone that
  /// needs it, one for its own backward readers) removes from the peak:
  /// its shared clone's bytes in the gaps between its readers that lie
  /// outside the span of its own backward readers (the best such gap);
  /// `extra`: the clones of it that nesting adds.
  uint64_t nestGain(Value original, bool atPeak, unsigned &extra) const {
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

  /// The cuts of chosen `original`'s shared clones that lower the peak:
  /// each gap between two consecutive readers of one (in the order) where
  /// its absence lowers it, as the position in `later` from which a fresh
  /// clone serves the readers after the gap. Only where program order
  /// splits the readers as the order does: the rewrite cuts by the former.
  void cutCandidates(Value original, bool atPeak,
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

  /// The bytes that making offloaded `original`'s copies synchronous
  /// removes from the peak: the device tensor is absent from its
  /// offload_start to its offload_wait, the prefetched one from its
  /// prefetch_start to its prefetch_wait (the larger of the two).
  uint64_t synchronousGain(Value original, bool atPeak) const {
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
                                               positionOf.lookup(wait),
                                               atPeak));
        auto prefetch = dyn_cast<tg::PrefetchStartOp>(hostUser);
        if (!prefetch)
          continue;
        for (Operation *reader : prefetch.getOutput().getUsers())
          if (isa<tg::PrefetchWaitOp>(reader))
            best = std::max(
                best, removedBetween(
                          simulator->valueIndex(prefetch.getOutput()),
                          positionOf.lookup(prefetch) - 1,
                          positionOf.lookup(reader), atPeak));
      }
    }
    return best;
  }

  uint64_t peak = 0;
  /// Predicted step seconds (with a link: clones and stalls included; a
  /// trial not timed leaves it 0).
  double seconds = 0;
  bool inPlace;

private:
  /// The bytes that arena value `index`'s absence strictly between
  /// positions `from` and `to` removes from the peak (atPeak: its bytes
  /// when it is live at the first peak point there).
  uint64_t removedBetween(unsigned index, unsigned from, unsigned to,
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

  /// removedBetween for several values at once, each absent strictly
  /// between its own `from` and `to` (the copies of a tie).
  uint64_t removedBetween(ArrayRef<MemorySimulator::Absence> absences,
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

  DenseMap<Operation *, unsigned> positionOf;
  ClonePolicy policy;
  /// Forward op (of the copy) -> the clone its backward readers share.
  DenseMap<Operation *, Operation *> cloneOf;
  /// The shared clones (Rewrite::shared).
  SmallVector<std::pair<Operation *, Operation *>> shared;
  /// The position in `later` of each op after the forward, and of the
  /// reader each clone was made for.
  DenseMap<Operation *, unsigned> laterPosition;
  double link;
  IRMapping mapping;
  func::FuncOp copy;
  DenseSet<Operation *> forwardOps;
  std::optional<MemorySimulator> simulator;
  SmallVector<unsigned> order;
  /// The order's layout, computed once for every query of the round.
  MemorySimulator::Layout layout;
  SmallVector<uint64_t> live;
  /// Range maxima of `live`, for removedBetween's queries (and
  /// peakIfStored's, built on its first).
  mutable std::optional<MemorySimulator::LiveMax> liveMax;
  /// Each op's position in the order, for peakIfStored (built on its
  /// first query).
  mutable DenseMap<Operation *, unsigned> positionOfOp;
  SmallVector<Operation *> clones;
  /// Compute seconds before each position of the order (no stalls).
  SmallVector<double> startTime;
  SmallVector<offload::Copy> copies;
  /// The seconds the lean workspaces add (CostModel::leanSeconds).
  double leanSeconds = 0;
};

/// What recomputing chosen value `value` privately costs: its op and,
/// recursively, the chosen values that op reads (the rewrite clones a
/// recomputed operand anew for each clone that reads it: RematPlan.h).
struct Chain {
  double seconds = 0;
  bool cheap = true;
};

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

} // namespace

/// The choices prune found not to fit, per target and clone policy. The
/// prunes of planAuto's searches (each greedy variant's, its overshoot's,
/// its exchanges', the untied prune's) store back the same values from
/// the same choices again and again: on a microbatched ResNet-34 U-Net
/// stage, half of the fit tests had been made before, each a trial of
/// the whole step and a packing. A trial is a function of its choices,
/// so a test that failed would fail again and is not repeated (one that
/// passed is: prune goes on from its trial).
class memopt::remat::PruneMemo {
public:
  /// The target, the clone policy and the choices as sorted addresses.
  using Key = std::vector<uintptr_t>;

  static Key key(uint64_t target, bool privateAncestors,
                 const DenseSet<Value> &chosen, const DenseSet<Value> &nested,
                 const Cuts &cuts, const DenseSet<Value> &offloaded,
                 const DenseSet<Value> &synchronous,
                 const DenseSet<Operation *> &lean) {
    Key key{static_cast<uintptr_t>(target), privateAncestors};
    // Each set as its size, then its sorted elements.
    auto append = [&](auto &&addresses) {
      size_t at = key.size();
      key.push_back(0);
      for (uintptr_t address : addresses)
        key.push_back(address);
      std::sort(key.begin() + at + 1, key.end());
      key[at] = key.size() - at - 1;
    };
    auto ofValues = [](const DenseSet<Value> &set) {
      return llvm::map_range(set, [](Value value) {
        return reinterpret_cast<uintptr_t>(value.getAsOpaquePointer());
      });
    };
    append(ofValues(chosen));
    append(ofValues(nested));
    append(ofValues(offloaded));
    append(ofValues(synchronous));
    append(llvm::map_range(lean, [](Operation *op) {
      return reinterpret_cast<uintptr_t>(op);
    }));
    SmallVector<std::pair<uintptr_t, ArrayRef<unsigned>>> cut;
    for (const auto &[value, positions] : cuts)
      cut.push_back({reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()),
                     positions});
    llvm::sort(cut, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    key.push_back(cut.size());
    for (const auto &[value, positions] : cut) {
      key.push_back(value);
      key.push_back(positions.size());
      key.insert(key.end(), positions.begin(), positions.end());
    }
    return key;
  }

  bool missed(const Key &key) {
    std::lock_guard<std::mutex> lock(mutex);
    return misses.count(key) != 0;
  }

  void insert(Key key) {
    std::lock_guard<std::mutex> lock(mutex);
    misses.insert(std::move(key));
  }

private:
  std::mutex mutex;
  std::set<Key> misses;
};

namespace {

/// An exchange (planAuto's local search): the greedy restarted from a
/// plan that fits, with one of its recomputed values stored again and
/// never chosen again, for at most `maxRounds` rounds.
struct Exchange {
  const AutoPlan *plan;
  Value stored;
  unsigned maxRounds;
};

/// The greedy adds values one group at a time, so a value chosen early
/// may be needless once later ones are recomputed. Stores them again (and
/// gives lean workspaces back their full size), the most expensive first
/// (`perByte`: the most seconds per byte stored first), while the arena
/// still fits (one trial each, a value with its microbatches' copies:
/// options.ties); those of `keep` (an exchange's start, pruned already)
/// stay.
void prune(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
           uint64_t arenaTarget, const CostModel &cost,
           const AutoOptions &options, DenseSet<Value> &chosen,
           DenseSet<Value> &nested, Cuts &cuts, DenseSet<Value> &offloaded,
           DenseSet<Value> &synchronous, DenseSet<Operation *> &lean,
           uint64_t &arenaBytes, const AutoPlan *keep = nullptr,
           bool perByte = false, bool skipHopeless = false) {
  // A value, or a lean op (null value).
  struct Choice {
    double seconds;
    Value value;
    Operation *lean;
  };
  // An offload costs at most its two copies; a lean workspace frees the
  // bytes leanSavings says.
  auto per = [&](double seconds, uint64_t bytes) {
    return perByte ? seconds / std::max<double>(bytes, 1) : seconds;
  };
  const MicrobatchTies none;
  const MicrobatchTies &ties = options.ties ? *options.ties : none;
  // A value stands for the copies of it in `set`: the first of them.
  auto standsFor = [&](const DenseSet<Value> &set, Value value) {
    return *llvm::find_if(ties.copiesOf(value), [&](Value copy) {
      return set.contains(copy);
    }) == value;
  };
  SmallVector<Choice> byCost;
  for (Value value : chosen)
    if ((!keep || !keep->recomputed.contains(value)) &&
        standsFor(chosen, value))
      byCost.push_back({per(cost.cost(value.getDefiningOp()).seconds,
                            tensorBytes(value)),
                        value,
                        {}});
  for (Value value : offloaded)
    if ((!keep || !keep->offloaded.contains(value)) &&
        standsFor(offloaded, value))
      byCost.push_back({per(2 * static_cast<double>(tensorBytes(value)) /
                                options.linkBandwidth,
                            tensorBytes(value)),
                        value,
                        {}});
  for (Operation *op : lean)
    if (!keep || !keep->lean.contains(op))
      byCost.push_back({per(cost.leanSeconds(op), leanSavings(op)), {}, op});
  // Ties (and the sets' order) broken by program order: deterministic.
  DenseMap<Operation *, unsigned> position;
  for (auto [at, op] : llvm::enumerate(function.getBody().front()))
    position[&op] = at;
  llvm::sort(byCost, [&](const Choice &a, const Choice &b) {
    if (a.seconds != b.seconds)
      return a.seconds > b.seconds;
    Operation *x = a.value ? a.value.getDefiningOp() : a.lean;
    Operation *y = b.value ? b.value.getDefiningOp() : b.lean;
    if (x != y)
      return position.lookup(x) < position.lookup(y);
    return cast<OpResult>(a.value).getResultNumber() <
           cast<OpResult>(b.value).getResultNumber();
  });
  // The choices now, copied: each fit test changes a copy of its own.
  struct Choices {
    DenseSet<Value> chosen, nested;
    Cuts cuts;
    DenseSet<Value> offloaded, synchronous;
    DenseSet<Operation *> lean;
  } now{chosen, nested, cuts, offloaded, synchronous, lean};
  bool privateAncestors = options.privateAncestors.value_or(!inPlace);
  // The trial of `choices` where its arena fits the target. Each fit test
  // only asks whether an arena is within the target; the arena of the
  // choices prune returns is computed once, at the end.
  auto fits = [&](const Choices &choices) -> std::unique_ptr<Trial> {
    std::optional<PruneMemo::Key> key;
    if (options.pruneMemo) {
      key = PruneMemo::key(arenaTarget, privateAncestors, choices.chosen,
                           choices.nested, choices.cuts, choices.offloaded,
                           choices.synchronous, choices.lean);
      if (options.pruneMemo->missed(*key))
        return nullptr;
    }
    auto trial = std::make_unique<Trial>(
        function, forward, inPlace, choices.chosen, choices.nested,
        choices.cuts, choices.offloaded, choices.synchronous, choices.lean,
        options, cost, Timed::No);
    if (!trial->arenaFits(arenaTarget)) {
      if (key)
        options.pruneMemo->insert(std::move(*key));
      return nullptr;
    }
    return trial;
  };
  // `choice` stored again (or its workspace made full) in `choices`, a
  // copy of `now`; where that does not fit, a recomputed value that was
  // nested is tried recomputed without nesting. The trial where one fits.
  auto store = [&](const Choice &choice,
                   Choices &choices) -> std::unique_ptr<Trial> {
    if (choice.lean) {
      choices.lean.erase(choice.lean);
      return fits(choices);
    }
    bool recomputed = choices.chosen.contains(choice.value);
    DenseSet<Value> &set = recomputed ? choices.chosen : choices.offloaded;
    // The value and its copies in `set`, with what goes with them (a
    // stored value's cuts go with it).
    SmallVector<Value, 4> wereNested;
    for (Value copy : ties.copiesOf(choice.value)) {
      if (!set.erase(copy))
        continue;
      choices.synchronous.erase(copy);
      choices.cuts.erase(copy);
      if (choices.nested.erase(copy))
        wereNested.push_back(copy);
    }
    if (std::unique_ptr<Trial> trial = fits(choices))
      return trial;
    if (wereNested.empty())
      return nullptr;
    // Still recomputed: perhaps they need not be nested.
    choices = now;
    for (Value copy : wereNested)
      choices.nested.erase(copy);
    return fits(choices);
  };
  // The trial of the choices now (skipHopeless): the last that fit, or
  // the choices prune started from.
  std::unique_ptr<Trial> lastFit, start;
  auto current = [&]() -> const Trial & {
    if (lastFit)
      return *lastFit;
    if (!start)
      start = std::make_unique<Trial>(
          function, forward, inPlace, now.chosen, now.nested, now.cuts,
          now.offloaded, now.synchronous, now.lean, options, cost, Timed::No);
    return *start;
  };
  // A recomputed value whose bytes would lift the live peak above the
  // target stays recomputed, untested (an estimate: see peakIfStored).
  auto hopeless = [&](const Choice &choice) {
    if (!skipHopeless || choice.lean || !now.chosen.contains(choice.value))
      return false;
    SmallVector<Value, 4> copies;
    for (Value copy : ties.copiesOf(choice.value))
      if (now.chosen.contains(copy))
        copies.push_back(copy);
    return current().peakIfStored(copies) > arenaTarget;
  };
  // The choices in order, each stored where the arena still fits. Nearly
  // all tests fail (measured: 95 % on the ResNet-34 U-Net's pipelined
  // stages), and a test that fails leaves the choices as they were: the
  // tests after it are made alongside it on idle planners' threads
  // (planAlongside), each on the choices now, and the first that fits
  // decides. The ones after that one are dropped and made again on its
  // choices; those not begun are not made. So prune returns what one test
  // after the other returns, on any number of threads.
  for (size_t from = 0; from < byCost.size();) {
    SmallVector<size_t> tests;
    for (size_t at = from; at < byCost.size(); ++at)
      if (!hopeless(byCost[at]))
        tests.push_back(at);
    std::atomic<size_t> firstFit{tests.size()};
    SmallVector<std::unique_ptr<Trial>> trials(tests.size());
    SmallVector<std::optional<Choices>> stored(tests.size());
    planAlongside(function.getContext(), tests.size(), [&](size_t test) {
      if (test > firstFit.load())
        return;
      Choices choices = now;
      std::unique_ptr<Trial> trial = store(byCost[tests[test]], choices);
      if (!trial)
        return;
      trials[test] = std::move(trial);
      stored[test] = std::move(choices);
      for (size_t seen = firstFit.load();
           test < seen && !firstFit.compare_exchange_weak(seen, test);)
        ;
    });
    size_t fit = firstFit.load();
    if (fit == tests.size())
      break;
    now = std::move(*stored[fit]);
    lastFit = std::move(trials[fit]);
    from = tests[fit] + 1;
  }
  chosen = std::move(now.chosen);
  nested = std::move(now.nested);
  cuts = std::move(now.cuts);
  offloaded = std::move(now.offloaded);
  synchronous = std::move(now.synchronous);
  lean = std::move(now.lean);
  if (lastFit)
    arenaBytes = lastFit->arenaBytes();
}

} // namespace

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

namespace {

/// planAuto's greedy: the choices so far and the rounds over them. Each
/// round tries the choices on a copy of the step (trial: a pick that the
/// trial proves wrong is repaired or undone), scores every candidate
/// against that trial and commits the best one, until the arena fits or
/// nothing lowers the peak.
class Greedy {
public:
  Greedy(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
         uint64_t arenaTarget, const CostModel &cost,
         const AutoOptions &options, bool withCuts, bool withLean,
         const Exchange *exchange);

  AutoPlan run();
  /// Also the plan this greedy would have returned under `target` (above
  /// its own): the same picks up to the round whose arena first fits
  /// `target` (no pick depends on the target), taken there; else, where
  /// no round fits it, the smallest arena run() finds (the same then).
  void alsoPlanAt(uint64_t target) { checkpointTarget = target; }
  std::optional<AutoPlan> takeCheckpoint() { return std::move(checkpoint); }
  /// After run() returned `fit` (a plan that fits its target): the next
  /// run() goes on from that round toward `lower`, as a greedy run from
  /// nothing toward `lower` with alsoPlanAt(the target) would (the same
  /// picks, `fit` its checkpoint), without repeating the rounds so far.
  void lowerTarget(uint64_t lower, AutoPlan fit) {
    checkpointTarget = arenaTarget;
    checkpoint = std::move(fit);
    arenaTarget = lower;
  }
  bool cutsAmongCandidates() const { return withCuts; }
  bool leanAmongCandidates() const { return withLean; }
  /// Whether no cut was committed before the checkpoint (in the whole
  /// run, where none was taken): a greedy without cuts toward the
  /// checkpoint's target, from nothing, would have made the same picks
  /// (a cut that never won a round changes no other pick) and returned
  /// the checkpoint (where none was taken, the same smallest arena).
  bool walkedWithoutCuts() const { return !cutBeforeCheckpoint; }
  /// Whether a lean workspace was committed (in the whole run).
  bool committedLean() const { return leanCommitted; }

private:
  bool isForward(Operation *op) const { return forwardOps.contains(op); }
  /// The choices so far, as a plan (its sets only).
  AutoPlan choices() const;

  // Trial: what the last pick did.
  /// Whether `trial` proves the last pick wrong: the peak rose (the clones
  /// or the values they keep alive made a new one), or an offload freed
  /// nothing (its copy ends too late on a busy link to release the bytes
  /// where they count).
  bool lastPickFailed(const Trial &trial) const;
  /// Repairs the last pick (a recomputation whose new peak comes from the
  /// shared clones its clone needs) by nesting one of them; false when
  /// none can be nested or the repairs are spent.
  bool repair(const Trial &trial);
  /// Undoes the repaired pick with its repairs, or else the last pick, and
  /// does not try it again.
  void undoLastPick();
  /// The arena of `trial` where its live peak is at most the target (else
  /// its choices are kept for smallest()); remembers the smallest.
  std::optional<uint64_t> planArena(const Trial &trial);

  // Scoring: the candidates against a trial.
  using Consider = llvm::function_ref<void(Candidate, uint64_t)>;
  void nestCandidates(const Trial &trial, bool atPeak, Consider consider);
  void cutCandidates(const Trial &trial, bool atPeak, Consider consider);
  /// The best ratio of bytes removed to seconds, cheap groups first, by
  /// the bytes they remove from the live peak (`atPeak` false) or at its
  /// first point.
  std::optional<Candidate> bestCandidate(const Trial &trial, bool atPeak);
  /// The fewest bytes a value must hold to be offloaded: 1/2^14 of the
  /// live peak. A copy's launch latency is not priced, and on a large step
  /// hundreds of small values (a BatchNorm's saved statistics) each took
  /// a round, a trial of the whole step, to lower a peak of gigabytes by
  /// bytes: half the rounds of the ResNet-34 U-Net's offload plans at
  /// 4192x4192 (docs/planning.md#small-values-are-not-offloaded).
  uint64_t leastOffloadBytes(const Trial &trial) const {
    return trial.peak >> 14;
  }

  // Commit: the choices change.
  void commit(Candidate pick);
  /// The plan once the arena of the choices fits the target (`arena`).
  AutoPlan fitted(uint64_t arena);
  /// `choices` (the sets, at round plan.rounds), whose arena `arena` fits
  /// `target`, pruned to it, with their predicted seconds.
  AutoPlan fittedAt(AutoPlan choices, uint64_t arena, uint64_t target) const;
  /// alsoPlanAt's plan, once a round's arena fits its target.
  void takeCheckpointAt(const Trial &trial,
                        std::optional<uint64_t> arenaPlanned);
  /// Nothing more lowers the peak: the choices of the smallest arena.
  AutoPlan smallest();

  func::FuncOp function;
  ArrayRef<Operation *> forward;
  bool inPlace;
  uint64_t arenaTarget;
  const CostModel &cost;
  const AutoOptions &options;
  bool withCuts, withLean;
  const Exchange *exchange;
  DenseSet<Operation *> forwardOps;
  /// The microbatches' copies of the forward values (options.ties): a
  /// recomputation or offload is chosen for all copies at once; nesting,
  /// cuts and synchronous copies (which repair or refine the copies'
  /// clones and copies one at a time) for one copy.
  MicrobatchTies noTies;
  const MicrobatchTies &ties;
  /// Candidates: forward values that the backward reads, recomputable or
  /// offloadable as the options allow, one per tie; `everyCopy` with
  /// all copies.
  SmallVector<Value> readLater, everyCopy;
  /// Inserts `value`'s copies into `set`, or erases them.
  void insertCopies(DenseSet<Value> &set, Value value) const {
    for (Value copy : ties.copiesOf(value))
      set.insert(copy);
  }
  void eraseCopies(DenseSet<Value> &set, Value value) const {
    for (Value copy : ties.copiesOf(value))
      set.erase(copy);
  }

  AutoPlan plan;
  DenseSet<Value> chosen, nested, offloaded, synchronous, rejected,
      rejectedNest, rejectedOffload, rejectedSynchronous;
  Cuts cuts;
  DenseSet<std::pair<Value, unsigned>> rejectedCuts;
  /// Backward ops whose workspace can be lean, and those made lean.
  DenseSet<Operation *> leanable, lean;
  /// The choices of the round with the smallest arena so far.
  AutoPlan best;
  unsigned bestRound = ~0u;
  /// The choices of a round whose arena was not planned (its live peak is
  /// above the target).
  struct Unplanned {
    uint64_t peak;
    unsigned round;
    AutoPlan choices;
  };
  std::vector<Unplanned> unplanned;
  uint64_t lastPeak = std::numeric_limits<uint64_t>::max();
  std::optional<Candidate> last;
  bool lastAtPeak = false;
  /// A recomputation whose new peak comes from the shared clones its clone
  /// needs (an encoder's convolutions, recreated for a concat, living until
  /// their own backward) is repaired by nesting them, up to kMaxRepairs
  /// values, before it is undone with them.
  static constexpr unsigned kMaxRepairs = 4;
  std::optional<Candidate> repairing;
  SmallVector<Value> repairs;
  std::optional<uint64_t> checkpointTarget;
  std::optional<AutoPlan> checkpoint;
  bool cutBeforeCheckpoint = false;
  bool leanCommitted = false;
  /// The trial of the round whose arena (`heldArena`) fitted when run()
  /// returned, for lowerTarget to go on from.
  std::unique_ptr<Trial> held;
  uint64_t heldArena = 0;
};

} // namespace

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
      bool recomputable =
          options.recompute && isRecomputable(result) &&
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
      !(repairing || (!last->nest && !last->cut && !last->offload &&
                      last->lean.empty())) ||
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
    unplanned.push_back({trial.peak, plan.rounds, choices()});
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
void Greedy::cutCandidates(const Trial &trial, bool atPeak,
                           Consider consider) {
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
    const AutoPlan &c = round.choices;
    Trial trial(function, forward, inPlace, c.recomputed, c.nested, c.cuts,
                c.offloaded, c.synchronous, c.lean, options, cost,
                Timed::No);
    uint64_t arena = trial.arenaBytes();
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
  AutoOptions tiedOptions = options, chosen;
  tiedOptions.pruneMemo = &pruneMemo;
  if (!ties.empty())
    tiedOptions.ties = &ties;
  AutoPlan tied = planJointly(function, forward, inPlace, arenaTarget, cost,
                              tiedOptions, chosen);
  if (ties.empty())
    return tied;
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
