//===- StepEstimate.cpp - What memopt predicts of the planned step --------===//

#include "memopt/Pipeline/StepEstimate.h"

#include "memopt/Analysis/Workspace.h"
#include "memopt/Analysis/DeviceProfile.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Planning/PredictedPeak.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>

using namespace mlir;
using namespace memopt;
namespace json = llvm::json;

/// The report's summary of remat=optimal's program.
static json::Object summarize(RematMilpAttr milp) {
  return json::Object{
      {"budget_bytes", milp.getBudgetBytes()},
      {"solver", milp.getSolver().str()},
      {"status", milp.getStatus().str()},
      {"objective_seconds", milp.getObjectiveSeconds().getValueAsDouble()},
      {"bound_seconds", milp.getBoundSeconds().getValueAsDouble()},
      {"gap", milp.getGap().getValueAsDouble()},
      {"solves", milp.getSolves()},
      {"units", milp.getUnits()},
      {"stages", milp.getStages()},
      {"chain_units", milp.getChainUnits()},
      {"chain_solves", milp.getChainSolves()},
      {"bin_bytes", milp.getBinBytes()}};
}

FailureOr<StepEstimate> StepEstimate::compute(func::FuncOp step,
                                              const ArenaPlan &plan) {
  FailureOr<TargetAttr> target = lookupTarget(step, "memopt-compile");
  if (failed(target))
    return failure();
  StepPhases phases(step);
  DeviceProfile device = target->getDeviceProfile();
  StepEstimate estimate{device, target->getBackend(), StepCost(),
                        MemoryTimeline()};
  estimate.defaultDevice =
      target->getDevice() ==
      DeviceAttr::getDefault(step.getContext(), target->getBackend());
  estimate.inPlace = target->getInPlace();
  estimate.bytesBesideArena =
      predictedPeak(step, estimate.target == Backend::cuda, /*arenaBytes=*/0);
  estimate.exchangeBytes = largestExchangeBytes(step);
  estimate.cost =
      estimateStepCost(step, CostModel(device, workspaceBytes), phases);
  estimate.timeline = MemoryTimeline::compute(step, phases, plan);
  if (RematAttr remat = getDecision<RematAttr>(step)) {
    estimate.remat = remat.getStrategy().str();
    if (RematMilpAttr milp = remat.getMilp())
      estimate.rematMilp = summarize(milp);
  }
  if (auto module = step->getParentOfType<ModuleOp>())
    if (auto amp = module->getAttrOfType<StringAttr>("memopt.amp"))
      estimate.amp = amp.str();
  if (OffloadAttr offload = getDecision<OffloadAttr>(step)) {
    estimate.offload = "auto";
    estimate.offloadBytes = offload.getD2hBytes();
    estimate.prefetchBytes = offload.getH2dBytes();
    estimate.hostBytes = offload.getHostBytes();
    estimate.stallSeconds = offload.getStallSeconds().getValueAsDouble();
  }
  // What each value got, in program order: its op's ONNX node names it.
  auto name = [](Operation *op) {
    if (auto loc = op->getLoc()->findInstanceOf<NameLoc>())
      return loc.getName().str();
    return op->getName().getStringRef().str();
  };
  for (Operation &op : step.getBody().front()) {
    if (auto start = dyn_cast<tg::OffloadStartOp>(op)) {
      OffloadCopyAttr copy = getDecision<OffloadCopyAttr>(start);
      estimate.decisions.push_back(
          {name(start.getInput().getDefiningOp()),
           tensorBytes(start.getInput()),
           copy && copy.getSynchronous() ? "offload-synchronous"
                                         : "offload"});
    }
    else if (isRecomputation(&op) && op.getNumResults())
      estimate.decisions.push_back(
          {name(&op), tensorBytes(op.getResult(0)), "recompute"});
    // The bytes of a lean workspace are the workspace it runs in.
    else if (op.hasAttr(kLeanWorkspaceAttr))
      estimate.decisions.push_back(
          {name(&op), workspaceBytes(&op), "lean-workspace"});
  }
  return estimate;
}

void StepEstimate::printDecisions(raw_ostream &os) const {
  for (const Decision &decision : decisions)
    os << "memopt-compile: " << decision.decision << " " << decision.value
       << " (" << decision.bytes << " bytes)\n";
  if (offload != "none")
    os << llvm::formatv("memopt-compile: offload: {0} bytes to the host, {1} "
                        "bytes back, host memory {2} bytes, predicted stall "
                        "{3:f6} s\n",
                        offloadBytes, prefetchBytes, hostBytes, stallSeconds);
}

void StepEstimate::printPeak(raw_ostream &os) const {
  if (timeline.points().empty())
    return;
  const MemoryTimeline::Point &at = timeline.points()[timeline.peakIndex()];
  std::array<uint64_t, kNumMemoryCategories> bytes{};
  for (const MemoryTimeline::PeakBuffer &buffer : timeline.peakBuffers())
    bytes[static_cast<unsigned>(buffer.category)] += buffer.bytes;
  SmallVector<unsigned, kNumMemoryCategories> order;
  for (unsigned c = 0; c < kNumMemoryCategories; ++c)
    if (bytes[c])
      order.push_back(c);
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return bytes[a] > bytes[b]; });
  os << "memopt-compile: the peak is at " << at.opName;
  if (!at.node.empty())
    os << " (" << at.node << ")";
  os << ":";
  for (unsigned c : order)
    os << (c == order.front() ? " " : ", ")
       << memoryCategoryName(static_cast<MemoryCategory>(c)) << " "
       << formatBytes(bytes[c]);
  os << " beside the persistent bytes\n";
}

uint64_t StepEstimate::predictedPeakBytes(uint64_t arenaBytes) const {
  return bytesBesideArena + arenaBytes;
}

llvm::Error memopt::checkBudget(std::optional<uint64_t> budget,
                                uint64_t peak, StringRef remat) {
  if (!budget || *budget >= peak)
    return llvm::Error::success();
  // remat=auto and optimal fitted the planned arena of the step's order; the
  // schedule may still choose an order whose arena packs worse.
  return llvm::createStringError(llvm::formatv(
      "--budget={0} bytes ({1}) is below the predicted peak of {2} bytes "
      "({3}) with --remat={4}, so the smallest budget these flags reach is "
      "{2} bytes (--budget={2}){5}",
      *budget, formatBytes(*budget), peak, formatBytes(peak), remat,
      remat == "auto" || remat == "optimal"
          ? "; the final schedule's arena came out above the one tg-remat "
            "planned: give the budget a margin"
          : "; --remat=auto recomputes forward values to fit the budget"));
}

static int64_t jsonInt(uint64_t value) { return static_cast<int64_t>(value); }

llvm::json::Object memopt::compileReport(const StepEstimate &estimate,
                                   uint64_t arenaBytes,
                                   llvm::StringRef schedule,
                                   std::optional<uint64_t> budgetBytes,
                                   double compileSeconds) {
  const MemoryTimeline &timeline = estimate.timeline;
  const StepCost &cost = estimate.cost;
  const DeviceProfile &device = estimate.device;
  // Sends are added by addStagesToReport. The baseline is the step without
  // its recomputation and its transfer stalls.
  double compute = cost.totalSeconds();
  json::Array decisions;
  for (const StepEstimate::Decision &decision : estimate.decisions)
    decisions.push_back(json::Object{{"value", decision.value},
                                     {"bytes", jsonInt(decision.bytes)},
                                     {"decision", decision.decision}});
  json::Object peakOp;
  if (!timeline.points().empty()) {
    const MemoryTimeline::Point &at = timeline.points()[timeline.peakIndex()];
    peakOp["index"] = timeline.peakIndex();
    peakOp["op"] = at.opName;
    peakOp["onnx_node"] = at.node;
    // What holds the peak, the largest first: a reader sees which stored,
    // recomputed or gradient values (and which workspace) set it.
    json::Array live;
    for (const MemoryTimeline::PeakBuffer &buffer : timeline.peakBuffers())
      live.push_back(json::Object{
          {"value", buffer.node.empty() ? buffer.opName : buffer.node},
          {"op", buffer.opName},
          {"bytes", jsonInt(buffer.bytes)},
          {"category", memoryCategoryName(buffer.category)},
          {"recomputed", buffer.recomputed},
          {"first", buffer.first},
          {"last", buffer.last}});
    peakOp["live"] = std::move(live);
  }
  json::Object report{
      {"predicted_peak_bytes", jsonInt(estimate.predictedPeakBytes(arenaBytes))},
      {"persistent_bytes",
       json::Object{
           {"weights",
            jsonInt(timeline.persistentBytes(MemoryCategory::Weights))},
           {"gradients", 0},
           {"optimizer_state",
            jsonInt(timeline.persistentBytes(MemoryCategory::OptimizerState))},
           {"master_weights", 0},
           {"inputs_outputs",
            jsonInt(timeline.persistentBytes(MemoryCategory::Data))}}},
      {"activation_peak_bytes", jsonInt(timeline.transientPeakBytes())},
      {"arena_bytes", jsonInt(arenaBytes)},
      {"peak_op", std::move(peakOp)},
      {"flops",
       json::Object{{"forward", jsonInt(cost.flops[0])},
                    {"backward", jsonInt(cost.flops[1])},
                    {"recompute", jsonInt(cost.recomputeFlops)},
                    {"optimizer", jsonInt(cost.flops[2])}}},
      {"transfer_bytes",
       json::Object{{"offload", jsonInt(estimate.offloadBytes)},
                    {"prefetch", jsonInt(estimate.prefetchBytes)},
                    {"send", 0}}},
      {"host_bytes", jsonInt(estimate.hostBytes)},
      {"decisions", std::move(decisions)},
      {"budget_bytes",
       budgetBytes ? json::Value(jsonInt(*budgetBytes)) : json::Value(nullptr)},
      {"predicted_seconds",
       json::Object{{"compute", compute},
                    {"forward", cost.seconds[0]},
                    {"backward", cost.seconds[1]},
                    {"optimizer", cost.seconds[2]},
                    {"recompute", cost.recomputeSeconds},
                    {"lean_workspaces", cost.leanSeconds},
                    {"transfer_stall", estimate.stallSeconds},
                    {"total", compute + estimate.stallSeconds}}},
      {"baseline_predicted_seconds",
       compute - cost.recomputeSeconds - cost.leanSeconds},
      {"strategy",
       json::Object{
           {"target",
            stringifyBackend(estimate.target)},
           {"device",
            json::Object{{"name", device.name},
                         {"memory_bytes", jsonInt(device.memoryBytes)},
                         {"fp32_flops", device.fp32Flops},
                         {"tf32_flops", device.tf32Flops},
                         {"bf16_flops", device.bf16Flops},
                         {"fp16_flops", device.fp16Flops},
                         {"memory_bandwidth", device.memoryBandwidth},
                         {"link_bandwidth", device.linkBandwidth},
                         {"launch_seconds", device.launchSeconds},
                         {"lean_slowdown", device.leanSlowdown},
                         {"default", estimate.defaultDevice}}},
           {"schedule", schedule},
           {"memory_plan", estimate.inPlace
                               ? "liveness best-fit, in place, concat slices"
                               : "liveness best-fit"},
           {"remat", estimate.remat},
           {"amp", estimate.amp},
           {"offload", estimate.offload},
           {"stages", 1}}},
      {"compile_seconds", compileSeconds}};
  if (estimate.rematMilp) {
    report["remat_milp"] = json::Object(*estimate.rematMilp);
    // Which planner's plan optimal took (dp, milp, auto), at the top level.
    if (std::optional<StringRef> solver =
            estimate.rematMilp->getString("solver"))
      report["remat_solver"] = solver->str();
  }
  return report;
}

/// Whether a memory pass traded on `function`: tg-remat recomputes or
/// tg-offload moves some of its values.
static bool tradesMemory(func::FuncOp function) {
  RematAttr remat = getDecision<RematAttr>(function);
  OffloadAttr offload = getDecision<OffloadAttr>(function);
  return (remat && remat.getRecomputedValues() > 0) ||
         (offload && offload.getValues() > 0);
}

StageEstimate StageEstimate::of(func::FuncOp stage, uint64_t peak,
                                uint64_t arenaBytes) {
  StageEstimate estimate;
  estimate.predictedPeakBytes = peak;
  estimate.arenaBytes = arenaBytes;
  estimate.exchangeBytes = largestExchangeBytes(stage);
  StageAttr attr = getDecision<StageAttr>(stage);
  if (!attr)
    return estimate;
  estimate.index = attr.getIndex();
  estimate.sendBytes = attr.getSendBytes();
  estimate.forwardBegin = attr.getForwardBegin();
  estimate.forwardEnd = attr.getForwardEnd();
  if (MicrobatchAttr microbatch = getDecision<MicrobatchAttr>(stage)) {
    estimate.microbatches = microbatch.getMicrobatches();
    estimate.inFlight = microbatch.getInFlight();
    // The schedules' peaks are simulated before the memory passes: on a
    // stage they traded on they are the peaks of another step than the one
    // planned (above the budget that the plan fits), so they are left out.
    if (!tradesMemory(stage)) {
      estimate.gpipePeakBytes = microbatch.getPeakBytesGpipe();
      estimate.oneFOneBPeakBytes = microbatch.getPeakBytes_1f1b();
    }
    if (StringAttr schedule = microbatch.getSchedule())
      estimate.schedule = schedule.str();
  }
  return estimate;
}

void memopt::addStagesToReport(json::Object &report,
                               ArrayRef<StageEstimate> stages) {
  if (stages.empty())
    return;
  SmallVector<StageEstimate> sorted(stages);
  llvm::sort(sorted, [](const StageEstimate &a, const StageEstimate &b) {
    return a.index < b.index;
  });
  json::Array list;
  uint64_t sent = 0;
  for (const StageEstimate &stage : sorted) {
    sent += stage.sendBytes;
    json::Object entry{
        {"index", stage.index},
        {"predicted_peak_bytes", jsonInt(stage.predictedPeakBytes)},
        {"arena_bytes", jsonInt(stage.arenaBytes)},
        {"send_bytes", jsonInt(stage.sendBytes)},
        {"forward_ops", json::Array{stage.forwardBegin, stage.forwardEnd}}};
    // Pipelining: the simulated peaks (persistent bytes and the live peak
    // of tg-schedule's order) of both schedules, so that the report shows
    // what the other one would cost; where no memory pass traded on the
    // stage only (StageEstimate::of), so that the chosen schedule's is at
    // most the stage's predicted peak (which adds the arena's packing).
    if (stage.microbatches > 1) {
      entry["microbatches"] = stage.microbatches;
      entry["in_flight"] = stage.inFlight;
      entry["schedule"] = stage.schedule;
      if (stage.gpipePeakBytes && stage.oneFOneBPeakBytes)
        entry["simulated_peak_bytes"] =
            json::Object{{"gpipe", jsonInt(stage.gpipePeakBytes)},
                         {"1f1b", jsonInt(stage.oneFOneBPeakBytes)}};
    }
    list.push_back(std::move(entry));
  }
  report["stages"] = std::move(list);
  if (json::Object *transfers = report.getObject("transfer_bytes"))
    (*transfers)["send"] = jsonInt(sent);
  if (json::Object *strategy = report.getObject("strategy"))
    (*strategy)["stages"] = static_cast<int64_t>(sorted.size());
}

void memopt::addRanksToReport(json::Object &report,
                              ArrayRef<StageEstimate> stages, uint64_t onePeak,
                              unsigned replicas, bool zero,
                              int64_t batchPerRank) {
  if (stages.empty() && replicas <= 1)
    return;
  SmallVector<uint64_t> stagePeaks;
  for (const StageEstimate &stage : stages) {
    if (stagePeaks.size() <= static_cast<size_t>(stage.index))
      stagePeaks.resize(stage.index + 1);
    stagePeaks[stage.index] = stage.predictedPeakBytes;
  }
  if (stagePeaks.empty())
    stagePeaks.push_back(onePeak);
  int64_t numStages = static_cast<int64_t>(stagePeaks.size());
  json::Array ranks;
  for (int64_t rank = 0; rank < numStages * replicas; ++rank)
    ranks.push_back(json::Object{
        {"rank", rank},
        {"stage", rank % numStages},
        {"replica", rank / numStages},
        {"predicted_peak_bytes", jsonInt(stagePeaks[rank % numStages])}});
  report["ranks"] = std::move(ranks);
  if (replicas > 1)
    report["data_parallel"] =
        json::Object{{"replicas", static_cast<int64_t>(replicas)},
                     {"zero", static_cast<int64_t>(zero)},
                     {"batch_per_rank", batchPerRank},
                     {"global_batch", batchPerRank * replicas}};
}

void memopt::addExchangeToReport(json::Object &report,
                                 ArrayRef<StageEstimate> stages,
                                 uint64_t oneExchangeBytes, unsigned replicas,
                                 Backend target) {
  json::Array *ranks = report.getArray("ranks");
  if (!ranks || (stages.empty() && replicas <= 1))
    return;
  uint64_t largest = 0;
  for (json::Value &entry : *ranks) {
    json::Object *rank = entry.getAsObject();
    int64_t stage = rank->getInteger("stage").value_or(0);
    uint64_t bytes = oneExchangeBytes;
    for (const StageEstimate &each : stages)
      if (each.index == stage)
        bytes = each.exchangeBytes;
    (*rank)["exchange_bytes"] = jsonInt(bytes);
    largest = std::max(largest, bytes);
  }
  bool cuda = target == Backend::cuda;
  report["exchange"] = json::Object{
      {"default", cuda ? "nccl" : "mpi"},
      {"staging_host_bytes", jsonInt(cuda ? largest : 0)},
      {"not_predicted",
       cuda ? "NCCL's device buffers (outside predicted_peak_bytes: NCCL "
              "sizes them at run time from the GPUs' topology and "
              "NCCL_BUFFSIZE; the run report measures them as "
              "comm_device_bytes); with --exchange=mpi the pinned "
              "staging_host_bytes instead, host memory"
            : "MPI's own host buffers"}};
}
