//===- PredictedPeak.h - The one definition of the predicted peak -*- C++ -*-===//
//
// Part of the planning library (docs/planning.md): what the trainer of a
// step allocates on the device, the arena and the bytes that persist beside
// it. tg-partition and tg-microbatch compare it before the arena is
// planned, tg-remat and tg-offload fit it to the budget, the compile report
// prints it; all of them ask here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_PREDICTEDPEAK_H
#define MEMOPT_PLANNING_PREDICTEDPEAK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace memopt {

/// The predicted peak of `step` with an arena of `arenaBytes`: the arena
/// plus the bytes that persist beside it (weights, optimizer state, inputs
/// and outputs, less the scalars a `cuda` step keeps on the host).
uint64_t predictedPeak(mlir::func::FuncOp step, bool cuda,
                       uint64_t arenaBytes);

/// predictedPeak with the arena's simulated peak in the order tg-schedule
/// will choose (chooseSchedule), before the arena is planned.
uint64_t simulatedPredictedPeak(mlir::func::FuncOp step, bool inPlace,
                                bool cuda);

} // namespace memopt

#endif // MEMOPT_PLANNING_PREDICTEDPEAK_H
