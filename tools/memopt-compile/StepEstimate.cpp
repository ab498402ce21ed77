//===- StepEstimate.cpp - What memopt-compile predicts of the step --------===//

#include "StepEstimate.h"

#include "memopt/Analysis/Workspace.h"


using namespace mlir;
using namespace memopt;
namespace json = llvm::json;

FailureOr<StepEstimate> StepEstimate::compute(func::FuncOp step,
                                              const DeviceProfile &device,
                                              WorkspaceTarget target,
                                              const ArenaPlan *plan) {
  // oneDNN answers each workspace query in microseconds, but the cost model
  // and the timeline both ask: remember the answers.
  DenseMap<Operation *, uint64_t> workspaces;
  bool failedQuery = false;
  auto workspace = [&](Operation *op) -> uint64_t {
    auto [it, inserted] = workspaces.try_emplace(op, 0);
    if (inserted) {
      FailureOr<uint64_t> bytes = queryWorkspaceBytes(op, target);
      failedQuery |= failed(bytes);
      it->second = succeeded(bytes) ? *bytes : 0;
    }
    return it->second;
  };
  StepPhases phases(step);
  StepEstimate estimate{device, target, StepCost(), MemoryTimeline()};
  // The CUDA trainer keeps the step number and the seed in host memory
  // (the generated step reads them on the host).
  if (target == WorkspaceTarget::CUDA)
    for (auto [index, type] : llvm::enumerate(step.getArgumentTypes()))
      if (step.getArgAttr(index, "tg.step") || step.getArgAttr(index, "tg.seed"))
        estimate.hostScalarBytes += sizeof(int64_t);
  estimate.cost = estimateStepCost(step, CostModel(device, workspace), phases);
  estimate.timeline = MemoryTimeline::compute(step, phases, workspace, plan);
  if (failedQuery)
    return failure();
  return estimate;
}

uint64_t StepEstimate::predictedPeakBytes(uint64_t arenaBytes) const {
  return arenaBytes + timeline.persistentBytes(MemoryCategory::Weights) +
         timeline.persistentBytes(MemoryCategory::OptimizerState) +
         timeline.persistentBytes(MemoryCategory::Data) - hostScalarBytes;
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
  // Nothing is recomputed, offloaded or sent yet: those passes do not
  // exist in this build, so their numbers are 0 and the baseline is the
  // step itself.
  double compute = cost.totalSeconds();
  json::Object peakOp;
  if (!timeline.points().empty()) {
    const MemoryTimeline::Point &at = timeline.points()[timeline.peakIndex()];
    peakOp["index"] = timeline.peakIndex();
    peakOp["op"] = at.opName;
    peakOp["onnx_node"] = at.node;
  }
  return json::Object{
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
                    {"recompute", 0},
                    {"optimizer", jsonInt(cost.flops[2])}}},
      {"transfer_bytes",
       json::Object{{"offload", 0}, {"prefetch", 0}, {"send", 0}}},
      {"budget_bytes",
       budgetBytes ? json::Value(jsonInt(*budgetBytes)) : json::Value(nullptr)},
      {"predicted_seconds",
       json::Object{{"compute", compute},
                    {"forward", cost.seconds[0]},
                    {"backward", cost.seconds[1]},
                    {"optimizer", cost.seconds[2]},
                    {"recompute", 0.0},
                    {"transfer_stall", 0.0},
                    {"total", compute}}},
      {"baseline_predicted_seconds", compute},
      {"strategy",
       json::Object{
           {"target",
            estimate.target == WorkspaceTarget::CUDA ? "cuda" : "cpu"},
           {"device",
            json::Object{{"name", device.name},
                         {"memory_bytes", jsonInt(device.memoryBytes)},
                         {"fp32_flops", device.fp32Flops},
                         {"tf32_flops", device.tf32Flops},
                         {"bf16_flops", device.bf16Flops},
                         {"fp16_flops", device.fp16Flops},
                         {"memory_bandwidth", device.memoryBandwidth},
                         {"link_bandwidth", device.linkBandwidth},
                         {"launch_seconds", device.launchSeconds}}},
           {"schedule", schedule},
           {"memory_plan", "liveness best-fit, in place, concat slices"},
           {"remat", "none"},
           {"amp", "none"},
           {"offload", "none"},
           {"stages", 1}}},
      {"compile_seconds", compileSeconds}};
}
