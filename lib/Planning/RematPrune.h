//===- RematPrune.h - auto's prune and its memo -----------------*- C++ -*-===//
//
// The prune of tg-remat's `auto` planner: a plan that fits, with the
// values the greedy chose early stored again where the arena still fits;
// the memo of the fit tests that failed; and the exchange, the local search
// that restarts the greedy from a plan with one value stored again.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_PLANNING_REMATPRUNE_H
#define MEMOPT_LIB_PLANNING_REMATPRUNE_H

#include "RematTrial.h"

#include <mutex>
#include <set>
#include <vector>

/// The choices prune found not to fit, per target and clone policy. The
/// prunes of planAuto's searches (each greedy variant's, its overshoot's,
/// its exchanges', the untied prune's) store back the same values from
/// the same choices again and again: on a microbatched ResNet-34 U-Net
/// stage, half of the fit tests had been made before, each a trial of
/// the whole step and a packing. A trial is a function of its choices,
/// so a test that failed would fail again and is not repeated (one that
/// passed is: prune goes on from its trial).
namespace memopt::remat {

class PruneMemo {
public:
  /// The target, the clone policy and the choices as sorted addresses.
  using Key = std::vector<uintptr_t>;

  static Key key(uint64_t target, bool privateAncestors,
                 const llvm::DenseSet<mlir::Value> &chosen,
                 const llvm::DenseSet<mlir::Value> &nested, const Cuts &cuts,
                 const llvm::DenseSet<mlir::Value> &offloaded,
                 const llvm::DenseSet<mlir::Value> &synchronous,
                 const llvm::DenseSet<mlir::Operation *> &lean);

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

} // namespace memopt::remat

namespace memopt::remat::detail {

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
           bool perByte = false, bool skipHopeless = false);

} // namespace memopt::remat::detail

#endif // MEMOPT_LIB_PLANNING_REMATPRUNE_H
