//===- TimelineJson.cpp - The memory timeline as JSON ---------------------===//

#include "memopt/Analysis/TimelineJson.h"

#include "llvm/Support/JSON.h"

using namespace memopt;
using llvm::raw_ostream;
namespace json = llvm::json;

namespace {

/// The categories only the arena holds (the optimizer state is also
/// persistent).
constexpr MemoryCategory kTransient[] = {
    MemoryCategory::Activations, MemoryCategory::Gradients,
    MemoryCategory::Offloading, MemoryCategory::Prefetched,
    MemoryCategory::Workspace};
/// The categories beside the arena, constant over the step.
constexpr MemoryCategory kPersistent[] = {MemoryCategory::Weights,
                                          MemoryCategory::OptimizerState,
                                          MemoryCategory::Data};

uint64_t bytesOf(const MemoryTimeline::Point &point, MemoryCategory category) {
  return point.bytes[static_cast<unsigned>(category)];
}

} // namespace

void memopt::writeTimelineJson(raw_ostream &os, const MemoryTimeline &timeline,
                               const TimelineLabels &labels) {
  json::Object persistent;
  for (MemoryCategory category : kPersistent)
    persistent[memoryCategoryName(category)] =
        timeline.persistentBytes(category);
  json::Array ops;
  for (auto [index, point] : llvm::enumerate(timeline.points())) {
    // The arena's bytes by category; they sum to transient_bytes. The
    // optimizer state's are its temporaries, beyond the persistent state.
    json::Object live;
    for (MemoryCategory category : kTransient)
      live[memoryCategoryName(category)] = bytesOf(point, category);
    live[memoryCategoryName(MemoryCategory::OptimizerState)] =
        bytesOf(point, MemoryCategory::OptimizerState) -
        timeline.persistentBytes(MemoryCategory::OptimizerState);
    json::Object entry{{"index", static_cast<int64_t>(index)},
                       {"op", point.opName},
                       {"onnx_node", point.node},
                       {"phase", stringifyStepPhase(point.phase)},
                       {"transient_bytes", point.transientBytes},
                       {"bytes", std::move(live)}};
    if (timeline.offloads())
      entry["host_bytes"] = point.hostBytes;
    ops.push_back(std::move(entry));
  }
  json::Object root{
      {"model", labels.model},
      {"device", labels.device},
      {"device_memory_bytes", labels.deviceMemoryBytes},
      {"peak_index", static_cast<int64_t>(timeline.peakIndex())},
      {"peak_bytes", timeline.peakBytes()},
      {"activation_peak_bytes", timeline.transientPeakBytes()},
      {"persistent_bytes", std::move(persistent)},
      {"ops", std::move(ops)}};
  if (labels.plannedPeakBytes)
    root["planned_peak_bytes"] = *labels.plannedPeakBytes;
  if (labels.budgetBytes)
    root["budget_bytes"] = *labels.budgetBytes;
  if (timeline.offloads())
    root["host_peak_bytes"] = timeline.hostPeakBytes();
  os << json::Value(std::move(root)) << "\n";
}
