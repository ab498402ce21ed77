//===- RematGreedy.h - auto's greedy ----------------------------*- C++ -*-===//
//
// The greedy of tg-remat's `auto` planner: the choices so far and the
// rounds over them, each a trial of the step, until the arena fits a
// target or nothing lowers the peak (docs/passes/remat.md#strategies).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_PLANNING_REMATGREEDY_H
#define MEMOPT_LIB_PLANNING_REMATGREEDY_H

#include "RematPrune.h"
#include "RematTrial.h"

namespace memopt::remat::detail {

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
  /// above the target), and what its arena packs, where kept.
  struct Unplanned {
    uint64_t peak;
    unsigned round;
    AutoPlan choices;
    std::optional<SmallVector<LiveInterval>> intervals;
  };
  std::vector<Unplanned> unplanned;
  /// smallest() packs the rounds of the lowest peaks: the intervals of the
  /// kIntervalsKept lowest so far are kept (about 100 KB each on a
  /// microbatched stage), the others' trials are made again there.
  static constexpr unsigned kIntervalsKept = 64;
  unsigned intervalsKept = 0;
  /// Adds a round to `unplanned`, with `trial`'s intervals where its peak
  /// is among the kIntervalsKept lowest.
  void keepUnplanned(const Trial &trial);
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

} // namespace memopt::remat::detail

#endif // MEMOPT_LIB_PLANNING_REMATGREEDY_H
