//===- ScheduleOrder.h - tg-schedule's choice of op order -------*- C++ -*-===//
//
// Internal to lib/Transforms: the order tg-schedule gives a function, for
// tg-schedule itself and for tg-remat, which plans against the order the
// schedule will choose (not the program order) so that its arena target
// holds for the arena tg-plan-memory will plan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_SCHEDULEORDER_H
#define MEMOPT_LIB_TRANSFORMS_SCHEDULEORDER_H

#include "memopt/Analysis/MemorySimulator.h"

#include <string>
#include <utility>

namespace memopt {

struct ScheduleChoice {
  /// The chosen strategy and its order of op indices.
  std::string name;
  llvm::SmallVector<unsigned> order;
  /// Per strategy tried: its simulated peak; `best` indexes the chosen one.
  llvm::SmallVector<std::pair<std::string, uint64_t>, 3> peaks;
  unsigned best = 0;
};

/// Tries tg-schedule's strategies (all when `strategies` is empty: given,
/// free-first, frees-asap, each with its recomputations sunk to their
/// readers) and keeps the least simulated peak (the first of equals).
ScheduleChoice chooseSchedule(const MemorySimulator &graph,
                              llvm::ArrayRef<std::string> strategies = {});

/// Moves `graph`'s ops into `order`, before `terminator`.
void applyOrder(const MemorySimulator &graph, llvm::ArrayRef<unsigned> order,
                mlir::Operation *terminator);

} // namespace memopt

#endif // MEMOPT_LIB_TRANSFORMS_SCHEDULEORDER_H
