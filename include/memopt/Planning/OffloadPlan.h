//===- OffloadPlan.h - Where the copies of offloaded values go ---*- C++ -*-===//
//
// Part of the planning library (docs/planning.md), for tg-offload, tg-remat
// and the auto planner (RematAuto.cpp): the placement of the asynchronous copies of offloaded values in a step's
// op order, and the predicted timeline of that order (compute on one
// stream, one copy at a time per link direction, as the OffMate model:
// an interval takes max(compute, d2h bytes / link, h2d bytes / link)).
// tg-offload inserts the copies; tg-remat's joint planner inserts them in
// its trial copies of the step, so both plan the same arena.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_OFFLOADPLAN_H
#define MEMOPT_PLANNING_OFFLOADPLAN_H

#include "memopt/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace memopt::offload {

/// Whether `value` may be offloaded: a tensor in the arena made by a
/// forward op, read after the forward (`isForward` is false for a reader)
/// and not returned.
bool isOffloadable(mlir::Value value,
                   llvm::function_ref<bool(mlir::Operation *)> isForward);

/// `values` (op results of one block) in program order: a set's order is
/// not deterministic.
llvm::SmallVector<mlir::Value>
inProgramOrder(const llvm::DenseSet<mlir::Value> &values);

/// The copy intervals of one offloaded value, in seconds of the step
/// without stalls (the compute time before the op where each starts).
struct Copy {
  mlir::Value value;
  uint64_t bytes = 0;
  double d2hStart = 0, d2hEnd = 0, h2dStart = 0, h2dEnd = 0;
};

/// The predicted timeline of a step with its copies.
struct Timing {
  double computeSeconds = 0;
  double stallSeconds = 0;
  uint64_t d2hBytes = 0, h2dBytes = 0, hostBytes = 0;
  unsigned values = 0;
};

/// Inserts the copies of `values` (offloadable, distinct) into `function`'s
/// block, keeping the order of its ops: tg.offload_start after the last
/// reader before the first non-forward reader (or after the definition),
/// tg.offload_wait before the first op that starts once the copy is done,
/// tg.prefetch_start before the latest op from which the copy ends in time
/// for the first non-forward reader, tg.prefetch_wait right before that
/// reader; it and every later reader read the prefetched tensor. A value
/// of `synchronous` waits right after its offload starts and prefetches
/// right before that reader instead (all of its window free, its copies
/// stall). Returns the copies' intervals.
llvm::SmallVector<Copy>
placeOffloads(mlir::func::FuncOp function, llvm::ArrayRef<mlir::Value> values,
              const llvm::DenseSet<mlir::Value> &synchronous,
              llvm::function_ref<bool(mlir::Operation *)> isForward,
              const CostModel &cost, double linkBandwidth);

/// An op's CostModel seconds, where the caller knows them already.
using OpSeconds = llvm::function_ref<double(mlir::Operation *)>;

/// placeOffloads with each op's seconds from `seconds`.
llvm::SmallVector<Copy>
placeOffloads(mlir::func::FuncOp function, llvm::ArrayRef<mlir::Value> values,
              const llvm::DenseSet<mlir::Value> &synchronous,
              llvm::function_ref<bool(mlir::Operation *)> isForward,
              OpSeconds seconds, double linkBandwidth);

/// Walks `function`'s block in order: kernels take their CostModel seconds,
/// copies take bytes / `linkBandwidth` on their direction's link from the
/// op that starts them, and a wait stalls until its copy is done.
Timing predictTiming(mlir::func::FuncOp function, const CostModel &cost,
                     double linkBandwidth);
/// predictTiming with each kernel's seconds from `seconds`.
Timing predictTiming(mlir::func::FuncOp function, OpSeconds seconds,
                     double linkBandwidth);

} // namespace memopt::offload

#endif // MEMOPT_PLANNING_OFFLOADPLAN_H
