//===- ModuleEstimate.cpp - The estimate of a planned module --------------===//
//
// Finds the training step (or its stages) in the planned module, estimates
// each on its recorded plan, and keeps the worst stage.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/ModuleEstimate.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace memopt;

FailureOr<ModuleEstimate>
memopt::estimatePlannedModule(ModuleOp module) {
  auto functions = module.getOps<func::FuncOp>();
  if (functions.empty())
    return module.emitError("memopt-compile: the module has no training "
                            "step to estimate");
  // The step is the module's first function; tg-partition's stages of it
  // name it in their memopt.stage.
  func::FuncOp first = *functions.begin();
  auto stageOf = [](func::FuncOp function) -> std::optional<StringRef> {
    if (StageAttr stage = getDecision<StageAttr>(function))
      if (StringAttr of = stage.getOf())
        return of.getValue();
    return std::nullopt;
  };
  StringRef stepName = stageOf(first).value_or(first.getSymName());
  ModuleEstimate result;
  std::optional<uint64_t> worstPeak;
  for (func::FuncOp function : functions) {
    std::optional<StringRef> of = stageOf(function);
    if (of ? *of != stepName : function.getSymName() != stepName)
      continue;
    FailureOr<StepArenaPlan> plan =
        readStepArenaPlan(function, "memopt-compile");
    if (failed(plan))
      return failure();
    FailureOr<StepEstimate> estimate =
        StepEstimate::compute(function, plan->plan);
    if (failed(estimate))
      return failure();
    uint64_t peak = estimate->predictedPeakBytes(plan->plan.totalBytes());
    uint64_t arenaBytes = plan->plan.totalBytes();
    const StepCost &cost = estimate->cost;
    result.microbatchSeconds = std::max(
        result.microbatchSeconds, cost.totalSeconds() - cost.seconds[2] +
                                      estimate->stallSeconds);
    result.optimizerSeconds =
        std::max(result.optimizerSeconds, cost.seconds[2]);
    if (of)
      result.stages.push_back(StageEstimate::of(function, peak, arenaBytes));
    if (worstPeak && peak <= *worstPeak)
      continue;
    worstPeak = peak;
    if (of)
      result.stageArenaBytes = arenaBytes;
    if (ScheduleAttr decision = getDecision<ScheduleAttr>(function))
      result.schedule = decision.getStrategy().str();
    result.step = std::move(*estimate);
  }
  return result;
}

double ModuleEstimate::stepSeconds(unsigned microbatches,
                                  unsigned stages) const {
  return (microbatches + stages - 1) * microbatchSeconds + optimizerSeconds;
}

llvm::json::Object
ModuleEstimate::report(const TrainingPipelineOptions &options,
                       uint64_t arenaBytes, std::optional<uint64_t> budget,
                       int64_t batchPerRank, double compileSeconds) const {
  llvm::json::Object report =
      compileReport(step, arenaBytes, schedule, budget, compileSeconds);
  addStagesToReport(report, stages);
  if (unsigned m = options.microbatches; m > 1)
    if (llvm::json::Object *strategy = report.getObject("strategy")) {
      (*strategy)["microbatches"] = static_cast<int64_t>(m);
      if (options.stages > 1)
        (*strategy)["pipeline_schedule"] = options.schedule;
    }
  addRanksToReport(report, stages, step.predictedPeakBytes(arenaBytes),
                   options.dataParallel, options.zero, batchPerRank);
  addExchangeToReport(report, stages, step.exchangeBytes,
                      options.dataParallel, options.target);
  return report;
}
