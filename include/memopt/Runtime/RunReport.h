//===- RunReport.h - The run report and the Chrome trace --------*- C++ -*-===//
//
// `BIN --report FILE.json` (docs/contract.md, reports):
//   {"model": "...", "steps": S, "batch_size": B,
//    "device": "cpu" | "cuda", "threads": T, "measured_peak_bytes": N,
//    "arena_bytes": A,
//    "driver_peak_bytes": D,                       (CUDA: cudaMemGetInfo)
//    "low_precision_convolutions": "onednn-native" | "convert-compute-convert"
//                                                  (mixed precision, --amp)
//    "loss_scale": S, "skipped_steps": K           (--amp=fp16)
//    "loss": [per step], "step_seconds": [per step],
//    "val_loss": [{"step": S, "loss": L}, ...],   (with --val-data)
//    "resumed_from_step": R,                       (with --resume)
//    "exchange": "nccl" | "mpi", "exchange_note": "...",
//    "comm_device_bytes": C, "staging_host_bytes": H,
//    "ranks": [{"rank", "stage", "replica", "measured_peak_bytes",
//               "comm_device_bytes", "staging_host_bytes"}, ...]}
//                                                  (several processes)
// `loss` and `step_seconds` cover every step from 1, those before a resume
// included (from the checkpoint). `step_seconds` times the step function
// only; loading data, validation and checkpoints are in the trace.
//
// `BIN --trace FILE.json`: Chrome's trace event format ("X" events in
// microseconds), which chrome://tracing and ui.perfetto.dev open: data
// loading, each step and, nested in it, each kernel call of the generated
// step (StepTrace.h), validation, checkpoints and --out.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_RUNREPORT_H
#define MEMOPT_RUNTIME_RUNREPORT_H

#include "memopt/Runtime/Exchange.h"
#include "memopt/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memopt::rt {

struct RunRecord {
  struct Validation {
    int64_t step;
    double loss;
  };

  std::string model;
  int64_t batchSize = 0;
  std::string device = "cpu";
  /// The host threads the kernels ran on (0 on CUDA).
  int threads = 0;
  size_t measuredPeakBytes = 0;
  /// The most device memory the driver reported in use after a step (the
  /// CUDA context and library handles included); 0: not measured (CPU).
  size_t driverPeakBytes = 0;
  size_t arenaBytes = 0;
  /// device::lowPrecisionConvolutions() after the run; empty: none ran.
  std::string lowPrecisionConvolutions;
  /// fp16 loss scaling: the scale after the last step and the steps whose
  /// updates were skipped (inf/NaN gradients), those before a resume
  /// included.
  bool lossScaling = false;
  double lossScale = 0.0;
  int64_t skippedSteps = 0;
  int64_t resumedFromStep = 0; // 0: not resumed
  std::vector<float> losses;
  std::vector<double> stepSeconds;
  std::vector<Validation> validations;
  bool validated = false; // whether the run had --val-data
  /// A multi-process run (StageGroup): each rank's measured peak, by rank;
  /// empty for one process. Rank r runs stage r % stages of replica
  /// r / stages.
  std::vector<int64_t> rankPeakBytes;
  int stages = 1;
  /// A multi-process run: rank 0's exchange (the kind is the same on every
  /// rank), and every rank's bytes outside the arena that its exchange
  /// allocated (NCCL's device buffers, the pinned staging buffer), by rank.
  ExchangeReport exchange;
  std::vector<int64_t> rankCommDeviceBytes;
  std::vector<int64_t> rankStagingHostBytes;
};

/// The report as JSON text.
std::string runReportJson(const RunRecord &record);

/// Collects timed events and writes them as a Chrome trace.
class Trace {
public:
  /// An event of `seconds` that started `start` seconds after the run began,
  /// with its category (a kernel's tg op, "step", "data", ...) and the step
  /// it belongs to. `name` and `category` must outlive the trace.
  /// The track of the step's kernels and of tg-offload's copies.
  static constexpr int kComputeTrack = 1, kCopyTrack = 2;
  void add(const char *name, const char *category, double start,
           double seconds, int64_t step, int track = kComputeTrack);
  /// The trace as JSON text.
  std::string json(const std::string &model) const;

private:
  struct Event {
    const char *name;
    const char *category;
    double start, seconds;
    int64_t step;
    int track;
  };
  std::vector<Event> events;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_RUNREPORT_H
