//===- Fit.h - Auto-fit: the fastest plan that fits a device ----*- C++ -*-===//
//
// `memopt-compile M.onnx --fit=DEVICE` (docs/user-guide.md, "Fit a model to
// your GPU"): a search over the pipeline's memory options -- precision (only
// with the user's consent, --amp=auto), remat, offload, cuDNN's workspace
// policy and, given --devices=N, pipeline stages and microbatches -- for the
// plan of least predicted step time whose predicted peak fits the device's
// memory minus a reserve (fitReserveBytes). Each candidate is a
// TrainingPipelineOptions run up to the memory plan (buildMemoryPlanPipeline)
// on a clone of the training step, then estimated (estimatePlannedModule);
// options the user gave are constraints, never searched. The search is
// pruned: each group (precision x stages x microbatches) first plans its
// plain setting; then the groups that did not fit plan the top of their
// ladder (recomputation, then with offload, then lean workspaces: the top
// plans all the lower rungs do and keeps the fastest that fits), fastest
// group first, each skipped once its plain plan (a lower bound of every
// rung's time) is no faster than a plan that fits; gpipe is never tried
// (1f1b holds fewer microbatches at the same predicted time); each setting
// is planned at most once.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINE_FIT_H
#define MEMOPT_PIPELINE_FIT_H

#include "memopt/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace memopt {

/// What --maximize grows while the model still fits.
enum class FitMaximize { none, batch, size };

/// The request: the device, the consent to change precision, the devices
/// stages may use, and what to maximize. The rest comes from the
/// TrainingPipelineOptions the user gave (constraints).
struct FitRequest {
  /// --fit=DEVICE: a device profile as --device takes it.
  std::string device;
  /// --amp=auto: bf16 and fp16 may be tried (as the device supports them).
  bool ampConsent = false;
  /// --devices=N: pipeline stages of up to N devices may be tried.
  unsigned devices = 1;
  FitMaximize maximize = FitMaximize::none;
  /// The global batch (--batch; 0: the model's) and the square input size
  /// to start --maximize=size from (0: the model's).
  int64_t batch = 0;
  int64_t size = 0;
  /// The largest batch or size --maximize tries (the importer's limits).
  int64_t maximizeLimit = 65536;
  /// Where each candidate is logged as it is planned (--verbose), or null.
  llvm::raw_ostream *log = nullptr;

  /// Fails, with the one-line message memopt-compile prints (options
  /// spelled as its flags), on a request the search cannot honour: a bad
  /// device, --devices out of range, --device or --amp=bf16|fp16 beside
  /// --amp=auto, --stages above --devices, --maximize=batch with --batch,
  /// --maximize=size with --input-shape.
  llvm::Error verify(const TrainingPipelineOptions &given, bool batchGiven,
                     bool inputShapeGiven) const;
};

/// The memory a device keeps out of the plan's reach: on a GPU the CUDA
/// context and the cuDNN/cuBLAS handles (kCudaReserveBytes), on the host
/// nothing (the plan's peak is what the binary allocates).
uint64_t fitReserveBytes(Backend target);
constexpr uint64_t kCudaReserveBytes = 512ull << 20;

/// One setting the search tried.
struct FitCandidate {
  AmpMode amp = AmpMode::none;
  std::string remat = "none";
  std::string offload = "none";
  bool leanWorkspaces = false;
  unsigned stages = 1, microbatches = 1;
  std::string schedule = "1f1b";

  /// Whether it was planned; a setting the pipeline refuses (e.g. bf16 on a
  /// device without it) or whose planner failed is not, and `note` says
  /// why.
  bool planned = false;
  uint64_t peakBytes = 0;
  /// The predicted step: per microbatch the worst stage's forward,
  /// backward, recomputation and stall, (M + S - 1) times, plus the
  /// optimizer once.
  double seconds = 0;
  bool fits = false;
  std::string note;
  /// The wall seconds its plan took (with its training step, when first
  /// built for it).
  double planSeconds = 0;
  /// A planner that refused the capacity: the smallest peak it names.
  uint64_t reachableBytes = 0;
  /// The peak planned, or else the smallest the planner could reach (0:
  /// unknown).
  uint64_t leastPeakBytes() const;

  /// The flags that give this setting to memopt-compile (those that differ
  /// from the defaults): "--remat=auto --offload=auto".
  std::string flags() const;
  /// Writes the setting into `options` (a copy of the user's).
  void apply(TrainingPipelineOptions &options) const;
};

struct FitResult {
  DeviceProfile device;
  Backend target = Backend::cpu;
  uint64_t reserveBytes = 0;
  /// What a plan may use: the device's memory minus the reserve, or the
  /// user's --budget if smaller.
  uint64_t capacityBytes = 0;
  /// The global batch and the square size the plan is for (0: the
  /// model's).
  int64_t batch = 1;
  int64_t size = 0;
  /// The spatial axes `size` is repeated over (a square, a cube).
  unsigned spatialAxes = 2;
  FitMaximize maximize = FitMaximize::none;
  /// Every setting tried, in order (for maximize, at the chosen batch or
  /// size); `frontier` indexes the planned ones no other beats in both
  /// peak and time, by increasing peak.
  llvm::SmallVector<FitCandidate> candidates;
  llvm::SmallVector<size_t> frontier;
  std::optional<size_t> winner, runnerUp;
  /// Settings planned over all sizes or batches tried (maximize).
  size_t plannedTotal = 0;
  /// Settings not planned: their group's plain plan was already no faster
  /// than one that fits, or they lie below the top rung (which plans what
  /// they would).
  size_t pruned = 0;
  double searchSeconds = 0;
  /// The winner's training step (after buildTrainingStepPipeline) and its
  /// memory plan (after buildMemoryPlanPipeline), so that the compile
  /// continues from them instead of planning the winner again.
  mlir::OwningOpRef<mlir::ModuleOp> winnerStep, winnerPlan;

  /// Sets `frontier` (the planned candidates no other is at least as good
  /// as in both peak and time, an equal earlier one counting as better),
  /// `winner` (the fitting candidate of least time, then least peak, then
  /// first) and `runnerUp` (the next in that order) from `candidates`.
  void choose();
  /// The planned candidate of least peak (what the impossible-fit message
  /// names).
  std::optional<size_t> smallestPeak() const;
  /// One sentence: why the winner won (and what the runner-up costs).
  std::string why() const;
  /// The one line memopt-compile prints when nothing fits: the smallest
  /// peak reachable, with what, and what would get there.
  std::string impossible(bool ampConsent, unsigned devices) const;
  /// The candidates as a table, one per line, the frontier and the winner
  /// marked (memopt-compile --plan-only prints it).
  void printTable(llvm::raw_ostream &os) const;
  /// The report's `fit` object (docs/contract.md).
  llvm::json::Object toJSON() const;
};

/// Imports the model at a global batch and (0: the model's) square size;
/// null (with a diagnostic) when it cannot.
using FitModelLoader =
    llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(int64_t batch,
                                                         int64_t size)>;

/// Runs the search: the fastest plan that fits `request.device` under
/// `given` (the user's options, constraints), or for maximize the largest
/// batch or size that has one. Diagnostics of candidates are kept in their
/// notes, not printed. Fails only when the model cannot be imported or its
/// training step built; a result without winner means nothing fits.
mlir::FailureOr<FitResult> fitModel(mlir::MLIRContext &context,
                                    FitModelLoader load,
                                    const TrainingPipelineOptions &given,
                                    const FitRequest &request);

} // namespace memopt

#endif // MEMOPT_PIPELINE_FIT_H
