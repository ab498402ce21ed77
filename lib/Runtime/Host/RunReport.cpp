//===- RunReport.cpp - The run report and the Chrome trace ----------------===//

#include "memopt/Runtime/RunReport.h"

#include <algorithm>

#include <cmath>
#include <cstdio>

namespace memopt::rt {

namespace {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Shortest text that reads back as the same float (9 digits) or double
/// (17 digits); JSON has no NaN or infinity: null.
std::string jsonNumber(double value, int digits) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.*g", digits, value);
  return text;
}

template <typename T>
std::string jsonArray(const std::vector<T> &values, int digits) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + jsonNumber(values[i], digits);
  return out + "]";
}

} // namespace

std::string runReportJson(const RunRecord &record) {
  std::string out = "{\n";
  out += "  \"model\": " + jsonString(record.model) + ",\n";
  out += "  \"steps\": " + std::to_string(record.losses.size()) + ",\n";
  out += "  \"batch_size\": " + std::to_string(record.batchSize) + ",\n";
  out += "  \"device\": " + jsonString(record.device) + ",\n";
  out += "  \"threads\": " + std::to_string(record.threads) + ",\n";
  out +=
      "  \"measured_peak_bytes\": " + std::to_string(record.measuredPeakBytes) +
      ",\n";
  out += "  \"arena_bytes\": " + std::to_string(record.arenaBytes) + ",\n";
  // A multi-process run: rank 0's report gives every rank's peak
  // (measured_peak_bytes above is rank 0's own), stage and replica.
  // Its exchange's bytes outside the arena are apart from the peak: NCCL's
  // buffers and the pinned staging buffer are not the plan's.
  if (!record.rankPeakBytes.empty()) {
    auto byRank = [](const std::vector<int64_t> &values, size_t rank) {
      return std::to_string(rank < values.size() ? values[rank] : 0);
    };
    out += "  \"exchange\": " + jsonString(record.exchange.kind) + ",\n";
    if (!record.exchange.note.empty())
      out += "  \"exchange_note\": " + jsonString(record.exchange.note) +
             ",\n";
    out += "  \"comm_device_bytes\": " + byRank(record.rankCommDeviceBytes, 0) +
           ",\n";
    out += "  \"staging_host_bytes\": " +
           byRank(record.rankStagingHostBytes, 0) + ",\n";
    out += "  \"ranks\": [";
    size_t stages = static_cast<size_t>(std::max(record.stages, 1));
    for (size_t i = 0; i < record.rankPeakBytes.size(); ++i)
      out += std::string(i ? ", " : "") + "{\"rank\": " + std::to_string(i) +
             ", \"stage\": " + std::to_string(i % stages) +
             ", \"replica\": " + std::to_string(i / stages) +
             ", \"measured_peak_bytes\": " +
             std::to_string(record.rankPeakBytes[i]) +
             ", \"comm_device_bytes\": " +
             byRank(record.rankCommDeviceBytes, i) +
             ", \"staging_host_bytes\": " +
             byRank(record.rankStagingHostBytes, i) + "}";
    out += "],\n";
  }
  if (record.driverPeakBytes > 0)
    out += "  \"driver_peak_bytes\": " +
           std::to_string(record.driverPeakBytes) + ",\n";
  if (!record.lowPrecisionConvolutions.empty())
    out += "  \"low_precision_convolutions\": " +
           jsonString(record.lowPrecisionConvolutions) + ",\n";
  if (record.lossScaling) {
    out += "  \"loss_scale\": " + jsonNumber(record.lossScale, 17) + ",\n";
    out += "  \"skipped_steps\": " + std::to_string(record.skippedSteps) +
           ",\n";
  }
  if (record.resumedFromStep > 0)
    out +=
        "  \"resumed_from_step\": " + std::to_string(record.resumedFromStep) +
        ",\n";
  if (record.validated) {
    out += "  \"val_loss\": [";
    for (size_t i = 0; i < record.validations.size(); ++i)
      out += std::string(i ? ", " : "") +
             "{\"step\": " + std::to_string(record.validations[i].step) +
             ", \"loss\": " + jsonNumber(record.validations[i].loss, 17) + "}";
    out += "],\n";
  }
  out += "  \"loss\": " + jsonArray(record.losses, 9) + ",\n";
  out += "  \"step_seconds\": " + jsonArray(record.stepSeconds, 9) + "\n";
  return out + "}\n";
}

void Trace::add(const char *name, const char *category, double start,
                double seconds, int64_t step, int track) {
  events.push_back({name, category, start, seconds, step, track});
}

std::string Trace::json(const std::string &model) const {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  out += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
         "\"args\": {\"name\": " +
         jsonString(model) + "}}";
  // The copies of tg-offload on a track of their own, beside the kernels.
  if (std::any_of(events.begin(), events.end(), [](const Event &event) {
        return event.track == kCopyTrack;
      }))
    out += ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
           "\"tid\": 2, \"args\": {\"name\": \"copies\"}}";
  for (const Event &event : events) {
    char times[160];
    std::snprintf(times, sizeof(times),
                  "\"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, "
                  "\"dur\": %.3f, \"args\": {\"step\": %lld}}",
                  event.track, event.start * 1e6, event.seconds * 1e6,
                  static_cast<long long>(event.step));
    out += ",\n{\"name\": " + jsonString(event.name) +
           ", \"cat\": " + jsonString(event.category) + ", " + times;
  }
  return out + "\n]}\n";
}

} // namespace memopt::rt
