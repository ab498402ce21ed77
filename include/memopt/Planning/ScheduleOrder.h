//===- ScheduleOrder.h - tg-schedule's choice of op order -------*- C++ -*-===//
//
// Part of the planning library (docs/planning.md): the order tg-schedule
// gives a function, for tg-schedule itself and for the planners, which plan
// against the order the schedule will choose (not the program order) so
// that their arena target holds for the arena tg-plan-memory will plan.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_SCHEDULEORDER_H
#define MEMOPT_PLANNING_SCHEDULEORDER_H

#include "memopt/Analysis/MemorySimulator.h"

#include <string>
#include <utility>

namespace memopt {

/// tg-schedule's strategies, in the order they are tried.
constexpr llvm::StringLiteral kScheduleStrategies[] = {"given", "free-first",
                                                       "frees-asap"};

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

#endif // MEMOPT_PLANNING_SCHEDULEORDER_H
