//===- MemoptDialect.cpp - memopt's core dialect --------------------------===//

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;

#include "memopt/Dialect/Memopt/IR/MemoptDialect.cpp.inc"
#include "memopt/Dialect/Memopt/IR/MemoptEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "memopt/Dialect/Memopt/IR/MemoptAttrs.cpp.inc"

void MemoptDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "memopt/Dialect/Memopt/IR/MemoptAttrs.cpp.inc"
      >();
}

/// Fails unless `attr` sits on an OpT (`where`) and is an AttrT (`form`).
template <typename OpT, typename AttrT>
static LogicalResult verifyPlacement(Operation *op, NamedAttribute attr,
                                     StringRef where, StringRef form) {
  if (!isa<OpT>(op))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' belongs on " << where << ", not on '"
                           << op->getName() << "'";
  if (!isa<AttrT>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' must be a " << form << ", got "
                           << attr.getValue();
  return success();
}

/// `memopt.target` is a #memopt.target on a module, `memopt.stage` a
/// #memopt.stage, `memopt.schedule` a #memopt.schedule and
/// `memopt.microbatch` a #memopt.microbatch on a function; the other `memopt.*` attributes belong to
/// the passes that write them (they check them when they read them back).
LogicalResult MemoptDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kTargetAttrName)
    return verifyPlacement<ModuleOp, TargetAttr>(op, attr, "the module",
                                                 "#memopt.target<cpu|cuda>");
  if (attr.getName() == kStageAttrName)
    return verifyPlacement<func::FuncOp, StageAttr>(
        op, attr, "a function", "#memopt.stage<index = I, stages = N, ...>");
  if (attr.getName() == kScheduleAttrName)
    return verifyPlacement<func::FuncOp, ScheduleAttr>(
        op, attr, "a function",
        "#memopt.schedule<strategy = S, simulated_peak_bytes = B, "
        "candidates = {...}>");
  if (attr.getName() == kMicrobatchAttrName)
    return verifyPlacement<func::FuncOp, MicrobatchAttr>(
        op, attr, "a function",
        "#memopt.microbatch<microbatches = M, in_flight = K, order = O, "
        "...>");
  return success();
}

LogicalResult StageAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t index, int64_t stages, StringAttr of,
                                int64_t forwardBegin, int64_t forwardEnd,
                                uint64_t persistentBytes,
                                uint64_t simulatedPeakBytes, FloatAttr seconds,
                                uint64_t sendBytes) {
  if (stages < 1 || index < 0 || index >= stages)
    return emitError() << "#memopt.stage index " << index
                       << " must be in [0, stages) with stages >= 1, got "
                          "stages = "
                       << stages;
  if (forwardBegin < 0 || forwardBegin > forwardEnd)
    return emitError() << "#memopt.stage forward ops [" << forwardBegin
                       << ", " << forwardEnd
                       << ") must be a range of positions, begin <= end";
  return success();
}



LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     StringAttr strategy, uint64_t simulatedPeakBytes,
                     DictionaryAttr candidates) {
  for (NamedAttribute candidate : candidates)
    if (!isa<IntegerAttr>(candidate.getValue()))
      return emitError() << "#memopt.schedule candidate '"
                         << candidate.getName().strref()
                         << "' must be an integer number of bytes, got "
                         << candidate.getValue();
  auto chosen = candidates.getAs<IntegerAttr>(strategy);
  if (!chosen)
    return emitError() << "#memopt.schedule strategy '" << strategy.strref()
                       << "' is not among its candidates";
  if (chosen.getValue().getZExtValue() != simulatedPeakBytes)
    return emitError() << "#memopt.schedule simulated_peak_bytes "
                       << simulatedPeakBytes << " differs from candidate '"
                       << strategy.strref() << "''s " << chosen.getInt();
  return success();
}



LogicalResult
MicrobatchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t microbatches, int64_t inFlight,
                       StringAttr order, StringAttr schedule,
                       uint64_t peakBytesGpipe, uint64_t peakBytesOneFOneB) {
  if (microbatches < 1 || inFlight < 0 || inFlight > microbatches)
    return emitError() << "#memopt.microbatch in_flight " << inFlight
                       << " must be in [0, microbatches] with microbatches "
                          ">= 1, got microbatches = "
                       << microbatches;
  if (schedule && schedule.getValue() != "gpipe" &&
      schedule.getValue() != "1f1b")
    return emitError() << "#memopt.microbatch schedule must be \"gpipe\" or "
                          "\"1f1b\", got "
                       << schedule;
  return success();
}


