//===- PlannerThreads.h - The planners' own threads -------------*- C++ -*-===//
//
// Part of the planning library (docs/planning.md#planner-threads): the
// runs of a planner (auto's greedies and exchanges) side by side, on
// threads of their own rather than the context's.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_PLANNERTHREADS_H
#define MEMOPT_PLANNING_PLANNERTHREADS_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>

namespace memopt {

/// Calls `body(i)` for every i in [0, count), side by side on the
/// planners' threads (as many as `context`'s pool has), and returns once
/// all have returned; on the caller's thread where there is one body, or
/// `context` has multithreading disabled (then one after the other).
/// Which thread runs which i is not fixed: each body writes its own
/// result.
///
/// The context's pool runs the pass manager's functions (a pipelined
/// step's stages, planned side by side), and a worker of an LLVM pool
/// that waits for its group takes any queued task meanwhile: a stage's
/// planner waiting for its greedies took the other stage's whole planning
/// and stalled for its length (measured: 9 of 13 s on the ResNet-34
/// U-Net's two stages at 4192x4192). The callers here wait without
/// taking work, and the planners' threads run every stage's runs in the
/// order they were asked for.
void planInParallel(mlir::MLIRContext *context, size_t count,
                    llvm::function_ref<void(size_t)> body);

/// Calls `body(i)` for i in [0, count) in order on the caller's thread,
/// while planners' threads that are idle take the next indices alongside
/// it; returns once every index has been taken and every body taken has
/// returned. A planner's thread that is busy is not waited for: a helper
/// that starts after the caller took the last index does nothing. For
/// work that is cheap to have done in vain (a prune's fit tests, tried
/// ahead of the one that decides: docs/planning.md#planner-threads), run
/// from any thread, a planner's included, without taking another
/// planner's queued run meanwhile.
void planAlongside(mlir::MLIRContext *context, size_t count,
                   llvm::function_ref<void(size_t)> body);

/// Runs two searches (each a caller of planInParallel) side by side:
/// `second` on a thread of its own, not one of the planners' (a thread of
/// the pool that waits takes any queued run, perhaps a whole search; the
/// searches' threads only wait, so every greedy runs on the planners'
/// threads in the order asked). One after the other where `context` has
/// multithreading disabled.
void searchSideBySide(mlir::MLIRContext *context,
                      llvm::function_ref<void()> first,
                      llvm::function_ref<void()> second);

} // namespace memopt

#endif // MEMOPT_PLANNING_PLANNERTHREADS_H
