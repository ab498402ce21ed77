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

/// Fails unless `attr` is an AttrT (`form`).
template <typename AttrT>
static LogicalResult verifyForm(Operation *op, NamedAttribute attr,
                                StringRef form) {
  if (!isa<AttrT>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' must be a " << form << ", got "
                           << attr.getValue();
  return success();
}

/// Fails unless `attr` sits on an OpT (`where`) and is an AttrT (`form`).
template <typename OpT, typename AttrT>
static LogicalResult verifyPlacement(Operation *op, NamedAttribute attr,
                                     StringRef where, StringRef form) {
  if (!isa<OpT>(op))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' belongs on " << where << ", not on '"
                           << op->getName() << "'";
  return verifyForm<AttrT>(op, attr, form);
}

/// #memopt.offload_results names results of the op that carries it.
static LogicalResult verifyOffloadResults(Operation *op,
                                          NamedAttribute attr) {
  if (failed(verifyForm<OffloadResultsAttr>(
          op, attr, "#memopt.offload_results<results = [...], ...>")))
    return failure();
  auto marks = cast<OffloadResultsAttr>(attr.getValue());
  for (bool synchronous : {false, true})
    if (ArrayRef<int64_t> list = marks.getNumbers(synchronous);
        !list.empty() && list.back() >= op->getNumResults())
      return op->emitError()
             << "'" << attr.getName().strref() << "' names result #"
             << list.back() << " of an op with " << op->getNumResults()
             << " results";
  return success();
}

/// `memopt.target` is a #memopt.target on a module; `memopt.stage`,
/// `memopt.schedule`, `memopt.microbatch`, `memopt.remat` and
/// `memopt.offload` are their decisions on a function;
/// `memopt.offload_copy` and `memopt.offload_results` are theirs on an op.
/// The other `memopt.*` attributes belong to the passes that write them
/// (they check them when they read them back).
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
  if (attr.getName() == kRematAttrName)
    return verifyPlacement<func::FuncOp, RematAttr>(
        op, attr, "a function", "#memopt.remat<strategy = S, ...>");
  if (attr.getName() == kOffloadAttrName)
    return verifyPlacement<func::FuncOp, OffloadAttr>(
        op, attr, "a function", "#memopt.offload<planner = P, ...>");
  if (attr.getName() == kOffloadCopyAttrName)
    return verifyForm<OffloadCopyAttr>(
        op, attr, "#memopt.offload_copy<bytes = B, seconds = S, ...>");
  if (attr.getName() == kOffloadResultsAttrName)
    return verifyOffloadResults(op, attr);
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

LogicalResult
RematMilpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      uint64_t budgetBytes, StringAttr solver,
                      StringAttr status, FloatAttr objectiveSeconds,
                      FloatAttr boundSeconds, FloatAttr gap, uint64_t solves,
                      uint64_t units, uint64_t stages, uint64_t chainUnits,
                      uint64_t chainSolves, uint64_t binBytes) {
  if (!llvm::is_contained({"none", "dp", "milp", "auto"}, solver.getValue()))
    return emitError() << "#memopt.remat_milp solver must be \"none\", "
                          "\"dp\", \"milp\" or \"auto\", got "
                       << solver;
  double relative = gap.getValueAsDouble();
  if (!(relative >= 0 && relative <= 1))
    return emitError() << "#memopt.remat_milp gap must be in [0, 1], got "
                       << relative;
  return success();
}

LogicalResult RematAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringAttr strategy,
    uint64_t budgetBytes, uint64_t persistentBytes, uint64_t plannedArenaBytes,
    uint64_t segmentOps, uint64_t rounds, bool overshoot, uint64_t exchanges,
    RematMilpAttr milp, uint64_t recomputedValues, uint64_t recomputedOps,
    uint64_t storedValues, uint64_t nestedValues, bool privateClones,
    uint64_t cuts, uint64_t flopsAdded, FloatAttr secondsAdded,
    uint64_t simulatedPeakBytesBefore, uint64_t simulatedPeakBytesAfter,
    uint64_t leanWorkspaces, uint64_t leanWorkspaceBytes,
    uint64_t offloadedValues, uint64_t offloadedBytes) {
  StringRef name = strategy.getValue();
  if (name != "sqrt" && name != "auto" && name != "optimal")
    return emitError() << "#memopt.remat strategy must be \"sqrt\", "
                          "\"auto\" or \"optimal\", got "
                       << strategy;
  if (segmentOps && name != "sqrt")
    return emitError() << "#memopt.remat segment_ops belongs to strategy "
                          "\"sqrt\", not "
                       << strategy;
  if ((rounds || overshoot || exchanges) && name != "auto")
    return emitError() << "#memopt.remat rounds, overshoot and exchanges "
                          "belong to strategy \"auto\", not "
                       << strategy;
  if (milp && name != "optimal")
    return emitError() << "#memopt.remat milp belongs to strategy "
                          "\"optimal\", not "
                       << strategy;
  return success();
}

LogicalResult OffloadAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringAttr planner,
    uint64_t budgetBytes, uint64_t persistentBytes, uint64_t plannedArenaBytes,
    uint64_t rounds, uint64_t values, uint64_t synchronous, uint64_t d2hBytes,
    uint64_t h2dBytes, uint64_t hostBytes, FloatAttr linkBytesPerSecond,
    FloatAttr computeSeconds, FloatAttr stallSeconds) {
  if (planner.getValue() != "tg-offload" && planner.getValue() != "tg-remat")
    return emitError() << "#memopt.offload planner must be \"tg-offload\" "
                          "or \"tg-remat\", got "
                       << planner;
  if (synchronous > values)
    return emitError() << "#memopt.offload synchronous " << synchronous
                       << " must be at most values = " << values;
  if (!(linkBytesPerSecond.getValueAsDouble() > 0))
    return emitError() << "#memopt.offload link_bytes_per_second must be "
                          "positive, got "
                       << linkBytesPerSecond.getValueAsDouble();
  return success();
}

LogicalResult
OffloadCopyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        uint64_t bytes, FloatAttr seconds, bool synchronous) {
  if (!(seconds.getValueAsDouble() >= 0))
    return emitError() << "#memopt.offload_copy seconds must not be "
                          "negative, got "
                       << seconds.getValueAsDouble();
  return success();
}

/// Fails unless `list` (`name`) is increasing and not negative.
static LogicalResult
verifyResultNumbers(function_ref<InFlightDiagnostic()> emitError,
                    StringRef name, ArrayRef<int64_t> list) {
  for (auto [at, number] : llvm::enumerate(list))
    if (number < 0 || (at && list[at - 1] >= number))
      return emitError() << "#memopt.offload_results " << name
                         << " must be result numbers in increasing order, "
                            "got "
                         << number << " at " << at;
  return success();
}

/// `numbers`, or none when null.
static ArrayRef<int64_t> numbersOf(DenseI64ArrayAttr numbers) {
  return numbers ? numbers.asArrayRef() : ArrayRef<int64_t>();
}

OffloadResultsAttr OffloadResultsAttr::get(MLIRContext *context,
                                           ArrayRef<int64_t> results,
                                           ArrayRef<int64_t> synchronous) {
  auto orNull = [&](ArrayRef<int64_t> numbers) {
    return numbers.empty() ? DenseI64ArrayAttr()
                           : DenseI64ArrayAttr::get(context, numbers);
  };
  return Base::get(context, orNull(results), orNull(synchronous));
}

ArrayRef<int64_t> OffloadResultsAttr::getNumbers(bool synchronous) const {
  return numbersOf(synchronous ? getSynchronous() : getResults());
}

LogicalResult
OffloadResultsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           DenseI64ArrayAttr resultsAttr,
                           DenseI64ArrayAttr synchronousAttr) {
  ArrayRef<int64_t> results = numbersOf(resultsAttr);
  ArrayRef<int64_t> synchronous = numbersOf(synchronousAttr);
  if (results.empty() && synchronous.empty())
    return emitError() << "#memopt.offload_results must name a result";
  if (failed(verifyResultNumbers(emitError, "results", results)) ||
      failed(verifyResultNumbers(emitError, "synchronous", synchronous)))
    return failure();
  for (int64_t number : results)
    if (llvm::is_contained(synchronous, number))
      return emitError() << "#memopt.offload_results result #" << number
                         << " is both in results and synchronous";
  return success();
}
