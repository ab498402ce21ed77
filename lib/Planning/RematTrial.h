//===- RematTrial.h - auto's choices tried on the step ----------*- C++ -*-===//
//
// One round of tg-remat's `auto` planner tried on a copy of the step: the
// choices so far rewritten into it (recomputation, offload copies, lean
// workspaces), ordered as tg-schedule will order it and simulated, so that
// its live peak, arena and seconds are those the passes after it will
// find; what each candidate would remove from that peak; and the
// candidates' recomputation groups (docs/passes/remat.md#strategies).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_PLANNING_REMATTRIAL_H
#define MEMOPT_LIB_PLANNING_REMATTRIAL_H

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Planning/OffloadPlan.h"
#include "memopt/Planning/RematPlan.h"

#include "mlir/IR/IRMapping.h"

#include <optional>

namespace memopt::remat::detail {
// The MLIR and LLVM names the planner's code uses unqualified.
using mlir::ArrayRef;
using mlir::DenseMap;
using mlir::DenseSet;
using mlir::function_ref;
using mlir::IRMapping;
using mlir::Operation;
using mlir::SmallVector;
using mlir::Value;
namespace func = mlir::func;

/// A recomputation to consider: a value the backward reads, with the
/// forward values that are read only in the forward and that its clone
/// needs (recomputed with it rather than kept alive: a ReLU's BatchNorm
/// input), up to kMaxGroup values.
struct Candidate {
  SmallVector<Value, 2> values; // values[0] is the one the backward reads
  SmallVector<Value, 2> kept;   // forward values the clones would extend
  double seconds = 0;
  bool cheap = true;
  bool offload = false;     // values[0] goes to host memory and back
  bool synchronous = false; // ... with copies that wait at once
  bool upgrade = false;     // values[0] was offloaded already, overlapped
  bool nest = false;        // values[0], chosen, gets private clones
  bool cut = false;         // values[0], chosen, gets a fresh clone at cutAt
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
        const DenseSet<Value> &synchronous, const DenseSet<Operation *> &lean,
        const AutoOptions &options, const CostModel &cost,
        Timed timed = Timed::Yes);
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
    return llvm::any_of(mapping.lookup(value).getUsers(),
                        [&](Operation *u) { return !forwardOps.contains(u); });
  }

  uint64_t arenaBytes() const { return ArenaPlan::computeTotal(layout); }
  /// What arenaBytes() packs.
  SmallVector<LiveInterval> arenaIntervals() const {
    return ArenaPlan::liveIntervals(layout);
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
  bool window(Value value, unsigned &from, unsigned &to) const;

  /// The stall that offloading `value` is predicted to add: its two copies
  /// (bytes / link each, one after the other) in the compute time between
  /// its last forward reader and its first backward reader, each sharing
  /// its direction's link with the copies already placed.
  double offloadStall(Value value) const;

  /// The bytes that recomputing `candidate` removes from the peak, net of
  /// the bytes of the values it keeps alive; 0 when it removes nothing.
  /// `atPeak`: with no single-value gain (several points at the peak), the
  /// bytes it removes from the first of them. With the microbatches'
  /// copies of its values (`ties`) recomputed too.
  uint64_t gain(const Candidate &candidate, bool atPeak,
                const MicrobatchTies &ties) const;

  /// The live peak of this trial's order if recomputed `originals` were
  /// stored instead, each live from its last forward use to its first
  /// backward reader: an estimate (the order stays, and the clones and the
  /// values they keep alive are not taken off), for prune to skip a store
  /// that cannot fit.
  uint64_t peakIfStored(ArrayRef<Value> originals) const;

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
                    SmallVector<Operation *, 2> &ops, double &opsSeconds) const;

  /// Whether chosen `original`'s clones are private (ClonePolicy).
  bool privateClones(Value original) const;

  /// What nesting chosen `original` (private clones: one per clone that
  /// needs it, one for its own backward readers) removes from the peak:
  /// its shared clone's bytes in the gaps between its readers that lie
  /// outside the span of its own backward readers (the best such gap);
  /// `extra`: the clones of it that nesting adds.
  uint64_t nestGain(Value original, bool atPeak, unsigned &extra) const;

  /// The cuts of chosen `original`'s shared clones that lower the peak:
  /// each gap between two consecutive readers of one (in the order) where
  /// its absence lowers it, as the position in `later` from which a fresh
  /// clone serves the readers after the gap. Only where program order
  /// splits the readers as the order does: the rewrite cuts by the former.
  void cutCandidates(Value original, bool atPeak,
                     function_ref<void(unsigned, uint64_t)> consider) const;

  /// The bytes that making offloaded `original`'s copies synchronous
  /// removes from the peak: the device tensor is absent from its
  /// offload_start to its offload_wait, the prefetched one from its
  /// prefetch_start to its prefetch_wait (the larger of the two).
  uint64_t synchronousGain(Value original, bool atPeak) const;

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
                          bool atPeak) const;

  /// removedBetween for several values at once, each absent strictly
  /// between its own `from` and `to` (the copies of a tie).
  uint64_t removedBetween(ArrayRef<MemorySimulator::Absence> absences,
                          bool atPeak) const;

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
              const CostModel &cost, DenseMap<Operation *, Chain> &memo);

/// The candidate of backward-read value `value` in `trial`: its op, and the
/// recomputable forward-only values its clone reads (recursively, up to
/// kMaxGroup values), the others it reads that would outlive the forward
/// for it in `kept`. Where clones of cheap operands are private (the plan
/// does not write in place: RematPlan.h), its seconds count the chosen
/// values its clones recompute privately, and its own ops once more per
/// chosen value whose op reads it (each of their clones recomputes it too).
Candidate group(Value value, const Trial &trial, const DenseSet<Value> &chosen,
                const DenseSet<Operation *> &forward, const CostModel &cost,
                DenseMap<Operation *, Chain> &memo);

} // namespace memopt::remat::detail

#endif // MEMOPT_LIB_PLANNING_REMATTRIAL_H
