//===- PredictedPeak.cpp - The one definition of the predicted peak -------===//

#include "memopt/Planning/PredictedPeak.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Planning/ScheduleOrder.h"

using namespace mlir;
using namespace memopt;

uint64_t memopt::predictedPeak(func::FuncOp step, bool cuda,
                               uint64_t arenaBytes) {
  return persistentDeviceBytes(step, cuda) + arenaBytes;
}

uint64_t memopt::simulatedPredictedPeak(func::FuncOp step, bool inPlace,
                                        bool cuda) {
  MemorySimulator simulator(step, inPlace);
  ScheduleChoice order = chooseSchedule(simulator);
  return predictedPeak(step, cuda, order.peaks[order.best].second);
}
