//===- Fit.cpp - Auto-fit: the fastest plan that fits a device ------------===//
//
// The search of Fit.h: candidates in groups (precision x stages x
// microbatches), each group its plain plan and, where that does not fit,
// the top of its ladder of memory techniques; every candidate planned on
// a clone of its group's training step, which is built once per precision
// and microbatch size.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/Fit.h"

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Pipeline/ModuleEstimate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <limits>
#include <map>

using namespace mlir;
using namespace memopt;

namespace {

StringRef ampName(AmpMode amp) {
  switch (amp) {
  case AmpMode::none:
    return "none";
  case AmpMode::bf16:
    return "bf16";
  case AmpMode::fp16:
    return "fp16";
  }
  llvm_unreachable("unknown amp mode");
}

llvm::Error fitError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The first error of a failed run, one line (its location dropped: the
/// candidate is the context).
struct FirstError {
  std::string message;
  ScopedDiagnosticHandler handler;
  explicit FirstError(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
              message.empty())
            message = StringRef(diagnostic.str()).split('\n').first.str();
          return success();
        }) {}
};

/// The smallest budget a planner's refusal names (tg-remat and tg-offload
/// end it in "(--budget=N)", docs/contract.md), or 0.
uint64_t smallestBudget(StringRef message) {
  size_t at = message.rfind("(--budget=");
  uint64_t bytes = 0;
  if (at == StringRef::npos ||
      message.drop_front(at + 10).take_while(llvm::isDigit).getAsInteger(10,
                                                                         bytes))
    return 0;
  return bytes;
}

/// Plans candidates of one batch and size. Training steps are built once
/// per (precision, microbatches): they differ in the batch imported.
class Search {
public:
  Search(MLIRContext &context, FitModelLoader load,
         const TrainingPipelineOptions &given, const FitRequest &request,
         FitResult &result)
      : context(context), load(load), given(given), request(request),
        result(result) {}

  /// Every group's plain plan, then the top rungs; fills result.candidates.
  void run();

private:
  /// The training step of `candidate`'s precision at its microbatch's
  /// batch, or null (with `why`).
  ModuleOp trainingStep(const FitCandidate &candidate, std::string &why);
  /// Plans and estimates `candidate` (its settings applied to the given
  /// options); records it in result.candidates. Whether it fits.
  bool evaluate(FitCandidate candidate);
  /// The groups: precision x stages x microbatches, as given or searched.
  SmallVector<FitCandidate> groups() const;
  /// A group's ladder: the plain plan, then recomputation, then
  /// recomputation with offload, then lean workspaces (cuda, or cpu with
  /// --workspaces=lean).
  SmallVector<FitCandidate> rungs(const FitCandidate &group) const;

  /// The user's options with `candidate` applied, priced on the device
  /// under the capacity.
  void optionsFor(const FitCandidate &candidate,
                  TrainingPipelineOptions &options) const;

  MLIRContext &context;
  FitModelLoader load;
  const TrainingPipelineOptions &given;
  const FitRequest &request;
  FitResult &result;
  std::map<std::pair<int, unsigned>, OwningOpRef<ModuleOp>> steps;
  std::map<std::pair<int, unsigned>, std::string> stepErrors;
  llvm::StringSet<> planned;
  /// The fastest candidate that fits so far (choose() takes the same).
  std::optional<FitCandidate> fastest;
};

void Search::optionsFor(const FitCandidate &candidate,
                        TrainingPipelineOptions &options) const {
  options.copyOptionValuesFrom(given);
  options.device = request.device;
  options.target = result.target;
  options.budget = result.capacityBytes;
  candidate.apply(options);
}

ModuleOp Search::trainingStep(const FitCandidate &candidate,
                              std::string &why) {
  std::pair<int, unsigned> key{static_cast<int>(candidate.amp),
                               candidate.microbatches};
  if (auto it = steps.find(key); it != steps.end())
    return it->second.get();
  if (auto it = stepErrors.find(key); it != stepErrors.end()) {
    why = it->second;
    return nullptr;
  }
  int64_t perStep = result.batch / (candidate.microbatches *
                                    std::max(1u, unsigned(given.dataParallel)));
  FirstError error(context);
  OwningOpRef<ModuleOp> step = load(perStep, result.size);
  if (!step) {
    why = "the model does not import at this batch or size: " + error.message;
    stepErrors[key] = why;
    return nullptr;
  }
  TrainingPipelineOptions options;
  optionsFor(candidate, options);
  PassManager pm(&context);
  buildTrainingStepPipeline(pm, options);
  if (failed(pm.run(*step))) {
    why = error.message;
    stepErrors[key] = why;
    return nullptr;
  }
  return (steps[key] = std::move(step)).get();
}

bool Search::evaluate(FitCandidate candidate) {
  std::string key = candidate.flags();
  if (!planned.insert(key).second)
    return false;
  auto start = std::chrono::steady_clock::now();
  auto record = [&](std::string note) {
    candidate.note = std::move(note);
    candidate.planSeconds = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
    if (request.log)
      *request.log << llvm::formatv(
          "memopt-compile: fit: batch {0}: {1}: {2:f1} s, {3}\n",
          result.batch, candidate.flags(), candidate.planSeconds,
          candidate.planned
              ? formatBytes(candidate.peakBytes) +
                    (candidate.fits ? " fits" : " does not fit")
              : candidate.note);
    result.candidates.push_back(candidate);
    return candidate.fits;
  };
  TrainingPipelineOptions options;
  optionsFor(candidate, options);
  if (llvm::Error refused =
          options.verify(TrainingPipelineOptions::Spelling::flag))
    return record("refused: " + llvm::toString(std::move(refused)));
  std::string why;
  ModuleOp step = trainingStep(candidate, why);
  if (!step)
    return record("no training step: " + why);
  OwningOpRef<ModuleOp> module = step.clone();
  FirstError error(context);
  PassManager pm(&context);
  buildMemoryPlanPipeline(pm, options);
  if (failed(pm.run(*module))) {
    candidate.reachableBytes = smallestBudget(error.message);
    return record("planner failed: " + error.message);
  }
  FailureOr<ModuleEstimate> estimate = estimatePlannedModule(*module);
  if (failed(estimate))
    return record("no estimate: " + error.message);
  // The plan before the lowering below changes it: the compile goes on
  // from the winner's.
  OwningOpRef<ModuleOp> plan = module->clone();
  // The peak memopt-compile predicts: with stages the worst stage's own
  // arena, else the program's, which the lowering fixes (the training and
  // evaluation steps' plans, CUDA constants).
  uint64_t arenaBytes = estimate->stageArenaBytes;
  if (estimate->stages.empty()) {
    PassManager lower(&context);
    buildBufferPipeline(lower);
    buildLoweringPipeline(lower, options);
    if (failed(lower.run(*module)))
      return record("lowering failed: " + error.message);
    arenaBytes =
        (*module)->getAttrOfType<IntegerAttr>(kArenaBytesAttr).getInt();
  }
  candidate.planned = true;
  ++result.plannedTotal;
  candidate.peakBytes = estimate->step.predictedPeakBytes(arenaBytes);
  candidate.seconds =
      estimate->stepSeconds(candidate.microbatches, candidate.stages);
  candidate.fits = candidate.peakBytes <= result.capacityBytes;
  if (candidate.fits && (!fastest || candidate.seconds < fastest->seconds ||
                         (candidate.seconds == fastest->seconds &&
                          candidate.peakBytes < fastest->peakBytes))) {
    fastest = candidate;
    result.winnerStep = step.clone();
    result.winnerPlan = std::move(plan);
  }
  return record("");
}

SmallVector<FitCandidate> Search::rungs(const FitCandidate &group) const {
  // The given options are constraints: a rung that becomes an earlier
  // one under them is dropped.
  struct Rung {
    StringRef remat, offload;
    bool lean;
  };
  bool cuda = result.target == Backend::cuda;
  SmallVector<FitCandidate> ladder;
  for (Rung rung : {Rung{"none", "none", false}, Rung{"auto", "none", false},
                    Rung{"auto", "auto", false}, Rung{"auto", "auto", true}}) {
    // On cpu a lean filter gradient sums in another order: like a
    // precision change, it needs the user's --workspaces=lean.
    if (rung.lean && !cuda && !given.leanWorkspaces.hasValue())
      continue;
    FitCandidate candidate = group;
    candidate.remat = given.remat.hasValue() ? std::string(given.remat)
                                             : rung.remat.str();
    candidate.offload = given.offload.hasValue() ? std::string(given.offload)
                                                 : rung.offload.str();
    // Lean workspaces are tg-remat's choice: none without recomputation.
    candidate.leanWorkspaces = (given.leanWorkspaces.hasValue()
                                    ? bool(given.leanWorkspaces)
                                    : rung.lean) &&
                               candidate.remat == "auto";
    if (llvm::none_of(ladder, [&](const FitCandidate &earlier) {
          return earlier.flags() == candidate.flags();
        }))
      ladder.push_back(candidate);
  }
  return ladder;
}

SmallVector<FitCandidate> Search::groups() const {
  SmallVector<AmpMode> precisions;
  if (given.amp.hasValue())
    precisions.push_back(given.amp);
  else if (request.ampConsent)
    precisions = {AmpMode::none, AmpMode::bf16, AmpMode::fp16};
  else
    precisions.push_back(AmpMode::none);
  SmallVector<unsigned> stageCounts;
  if (given.stages.hasValue())
    stageCounts.push_back(given.stages);
  else
    for (unsigned s = 1; s <= request.devices; ++s)
      stageCounts.push_back(s);
  int64_t replicaBatch =
      result.batch / std::max(1u, unsigned(given.dataParallel));
  SmallVector<FitCandidate> all;
  for (AmpMode amp : precisions)
    for (unsigned stages : stageCounts) {
      // Microbatches: as given, else one on one device and S or 2S (those
      // that split the batch) through S stages, so that the pipeline
      // fills.
      SmallVector<unsigned> counts;
      if (given.microbatches.hasValue())
        counts.push_back(given.microbatches);
      else if (stages == 1)
        counts.push_back(1);
      else
        for (unsigned m : {stages, 2 * stages})
          if (replicaBatch % m == 0)
            counts.push_back(m);
      if (counts.empty())
        counts.push_back(1);
      for (unsigned microbatches : counts) {
        FitCandidate group;
        group.amp = amp;
        group.stages = stages;
        group.microbatches = microbatches;
        if (given.schedule.hasValue())
          group.schedule = given.schedule;
        all.push_back(group);
      }
    }
  return all;
}

void Search::run() {
  // First every group's first rung (the plain plan: one cheap planner
  // run each), then, for the groups that did not fit, fastest first, the
  // top of their ladder. The top rung plans all the lower ones do
  // (tg-remat plans recomputation alone beside the joint plan, and plans
  // without lean workspaces beside those with, and keeps the fastest that
  // fits), so a lower rung neither fits where it does not nor fits faster
  // (offloading a value can cost less than recomputing it: stopping at the
  // first rung that fits took plans up to 9 % slower). No rung's plan is
  // faster than its group's plain plan, so a group is skipped once that is
  // no faster than a plan that fits.
  struct Open {
    FitCandidate top;
    /// Its plain plan's seconds: a lower bound of every rung's (0 when it
    /// could not be planned: no bound), and the order (last then).
    double bound, order;
  };
  SmallVector<Open> open;
  for (const FitCandidate &group : groups()) {
    SmallVector<FitCandidate> ladder = rungs(group);
    size_t before = result.candidates.size();
    if (evaluate(ladder.front()) || result.candidates.size() == before)
      continue;
    const FitCandidate &first = result.candidates.back();
    // A group the pipeline refuses (a precision the device lacks) is
    // refused on every rung: one entry says so.
    if (StringRef(first.note).starts_with("refused") || ladder.size() < 2)
      continue;
    // The rungs between the plain plan and the top are planned within it.
    result.pruned += ladder.size() - 2;
    if (first.planned)
      open.push_back({ladder.back(), first.seconds, first.seconds});
    else
      open.push_back(
          {ladder.back(), 0, std::numeric_limits<double>::infinity()});
  }
  llvm::stable_sort(open, [](const Open &a, const Open &b) {
    return a.order < b.order;
  });
  for (Open &group : open) {
    if (fastest && group.bound >= fastest->seconds)
      ++result.pruned;
    else
      evaluate(group.top);
  }
}

/// The model's global batch, square (cubic) size and spatial axes, from
/// the training step's first input (N, C, then 1 to 3 spatial axes): the
/// size is the first spatial one.
struct ModelShape {
  int64_t batch = 1, size = 0;
  unsigned spatialAxes = 2;
};
ModelShape modelShape(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>())
    if (function.getNumArguments() > 0)
      if (auto type = dyn_cast<ShapedType>(function.getArgumentTypes()[0]))
        if (type.hasStaticShape() && type.getRank() >= 1) {
          if (type.getRank() < 3 || type.getRank() > 5)
            return {type.getDimSize(0), 0};
          return {type.getDimSize(0), type.getDimSize(2),
                  static_cast<unsigned>(type.getRank() - 2)};
        }
  return {};
}

/// One search at `batch` and `size`.
FitResult searchAt(MLIRContext &context, FitModelLoader load,
                   const TrainingPipelineOptions &given,
                   const FitRequest &request, const FitResult &base,
                   int64_t batch, int64_t size) {
  FitResult result;
  result.device = base.device;
  result.target = base.target;
  result.maximize = base.maximize;
  result.reserveBytes = base.reserveBytes;
  result.capacityBytes = base.capacityBytes;
  result.batch = batch;
  result.size = size;
  Search(context, load, given, request, result).run();
  result.choose();
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// FitRequest, FitCandidate
//===----------------------------------------------------------------------===//

uint64_t memopt::fitReserveBytes(Backend target) {
  return target == Backend::cuda ? kCudaReserveBytes : 0;
}

llvm::Error FitRequest::verify(const TrainingPipelineOptions &given,
                               bool batchGiven, bool inputShapeGiven) const {
  llvm::Expected<DeviceProfile> profile = parseDeviceProfile(device);
  if (!profile)
    return fitError("--fit: " + llvm::toString(profile.takeError()));
  if (given.device.hasValue())
    return fitError("--fit=" + device +
                    " names the device to fit: drop --device (or drop --fit "
                    "and plan for --device by hand)");
  if (ampConsent && given.amp.hasValue())
    return fitError("--amp=auto lets --fit choose the precision; drop "
                    "--amp=" + ampName(given.amp) + " (a second --amp)");
  if (devices < 1 || devices > kMaxStages)
    return fitError("--devices expects an integer from 1 to " +
                    llvm::Twine(kMaxStages) + ", got '" +
                    llvm::Twine(devices) + "'");
  if (given.stages.hasValue() && given.stages > devices)
    return fitError("--stages=" + llvm::Twine(unsigned(given.stages)) +
                    " needs as many devices: give --devices=" +
                    llvm::Twine(unsigned(given.stages)) +
                    " or more, or drop --stages");
  if (maximize == FitMaximize::batch && batchGiven)
    return fitError("--maximize=batch searches the batch: drop --batch");
  if (maximize == FitMaximize::size && inputShapeGiven)
    return fitError("--maximize=size searches the input size: drop "
                    "--input-shape");
  // The user's options on the device to fit (bf16 on a GPU without it).
  TrainingPipelineOptions onDevice;
  onDevice.copyOptionValuesFrom(given);
  onDevice.device = device;
  if (llvm::Error refused =
          onDevice.verify(TrainingPipelineOptions::Spelling::flag))
    return fitError("--fit=" + device + ": " +
                    llvm::toString(std::move(refused)));
  return llvm::Error::success();
}

std::string FitCandidate::flags() const {
  SmallVector<std::string> parts;
  if (amp != AmpMode::none)
    parts.push_back(("--amp=" + ampName(amp)).str());
  if (remat != "none")
    parts.push_back("--remat=" + remat);
  if (offload != "none")
    parts.push_back("--offload=" + offload);
  if (leanWorkspaces)
    parts.push_back("--workspaces=lean");
  if (stages > 1)
    parts.push_back("--stages=" + std::to_string(stages));
  if (microbatches > 1)
    parts.push_back("--microbatches=" + std::to_string(microbatches));
  if (stages > 1 && microbatches > 1)
    parts.push_back("--schedule=" + schedule);
  return parts.empty() ? "(plain)" : llvm::join(parts, " ");
}

void FitCandidate::apply(TrainingPipelineOptions &options) const {
  options.amp = amp;
  options.remat = remat;
  options.offload = offload;
  options.leanWorkspaces = leanWorkspaces;
  options.stages = stages;
  options.microbatches = microbatches;
  // A schedule is refused without stages and microbatches (verify).
  if (stages > 1 && microbatches > 1)
    options.schedule = schedule;
}

//===----------------------------------------------------------------------===//
// FitResult
//===----------------------------------------------------------------------===//

uint64_t FitCandidate::leastPeakBytes() const {
  return planned ? peakBytes : reachableBytes;
}

std::optional<size_t> FitResult::smallestPeak() const {
  std::optional<size_t> best;
  for (auto [i, candidate] : llvm::enumerate(candidates))
    if (candidate.leastPeakBytes() &&
        (!best || candidate.leastPeakBytes() <
                      candidates[*best].leastPeakBytes()))
      best = i;
  return best;
}

void FitResult::choose() {
  const auto &all = candidates;
  auto better = [&](size_t a, size_t b) {
    return all[a].seconds < all[b].seconds ||
           (all[a].seconds == all[b].seconds &&
            all[a].peakBytes < all[b].peakBytes);
  };
  auto dominates = [&](size_t j, size_t i) {
    return all[j].planned && all[j].peakBytes <= all[i].peakBytes &&
           all[j].seconds <= all[i].seconds &&
           (all[j].peakBytes < all[i].peakBytes ||
            all[j].seconds < all[i].seconds || j < i);
  };
  frontier.clear();
  winner = runnerUp = std::nullopt;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i].planned)
      continue;
    if (llvm::none_of(llvm::seq<size_t>(0, all.size()),
                      [&](size_t j) { return j != i && dominates(j, i); }))
      frontier.push_back(i);
    if (!all[i].fits)
      continue;
    if (!winner || better(i, *winner)) {
      runnerUp = winner;
      winner = i;
    } else if (!runnerUp || better(i, *runnerUp)) {
      runnerUp = i;
    }
  }
  llvm::stable_sort(frontier, [&](size_t a, size_t b) {
    return all[a].peakBytes < all[b].peakBytes;
  });
}

std::string FitResult::why() const {
  if (!winner)
    return "";
  const FitCandidate &won = candidates[*winner];
  size_t fitting = llvm::count_if(
      candidates, [](const FitCandidate &c) { return c.fits; });
  std::string text = llvm::formatv(
      "{0} is the fastest of {1} plan(s) that fit {2} ({3:f3} s per step, "
      "peak {4})",
      won.flags(), fitting, formatBytes(capacityBytes), won.seconds,
      formatBytes(won.peakBytes));
  if (won.flags() == "(plain)")
    text += "; the plain plan fits, so no memory technique is needed";
  if (runnerUp) {
    const FitCandidate &next = candidates[*runnerUp];
    text += llvm::formatv("; the runner-up {0} would take {1:f3} s "
                          "(+{2:f1}%), peak {3}",
                          next.flags(), next.seconds,
                          100.0 * (next.seconds / won.seconds - 1),
                          formatBytes(next.peakBytes));
  }
  return text;
}

std::string FitResult::impossible(bool ampConsent, unsigned devices) const {
  std::string fitWhat = llvm::formatv(
      "the model does not fit {0}: {1} usable of {2} after a {3} reserve",
      device.name, formatBytes(capacityBytes),
      formatBytes(device.memoryBytes), formatBytes(reserveBytes));
  std::optional<size_t> least = smallestPeak();
  if (!least)
    return fitWhat + "; no setting could be planned (memopt-compile "
                     "--plan-only with the flags of one says why)";
  const FitCandidate &best = candidates[*least];
  uint64_t peak = best.leastPeakBytes();
  SmallVector<std::string> ways;
  ways.push_back("a device with at least " + formatBytes(peak + reserveBytes));
  if (devices == 1)
    ways.push_back("more devices (--devices=N)");
  if (!ampConsent && best.amp == AmpMode::none)
    ways.push_back("lower precision (--amp=auto)");
  if (maximize == FitMaximize::none)
    ways.push_back("a smaller --batch or --input-shape");
  return llvm::formatv("{0}; the smallest peak reachable is {1}, with {2}; "
                       "to fit, use {3}",
                       fitWhat, formatBytes(peak), best.flags(),
                       llvm::join(ways, ", or "))
      .str();
}

void FitResult::printTable(llvm::raw_ostream &os) const {
  os << llvm::formatv("memopt-compile: fit {0}: {1} usable ({2} minus a {3} "
                      "reserve), batch {4}",
                      describeDeviceProfile(device), formatBytes(capacityBytes),
                      formatBytes(device.memoryBytes),
                      formatBytes(reserveBytes), batch);
  if (size) {
    os << ", size " << size;
    for (unsigned axis = 1; axis < spatialAxes; ++axis)
      os << "x" << size;
  }
  os << llvm::formatv("; {0} candidate(s), {1} plan(s) in all, {2} "
                      "skipped (no faster than a fit, or planned within a "
                      "higher rung), {3:f1} s\n",
                      candidates.size(), plannedTotal, pruned, searchSeconds);
  os << llvm::formatv("  {0,-2} {1,-60} {2,14} {3,12} {4,-5} {5,7} {6}\n", "",
                      "plan", "peak", "seconds", "fits", "plan s", "note");
  for (auto [i, candidate] : llvm::enumerate(candidates)) {
    std::string mark = winner && i == *winner       ? "*"
                       : runnerUp && i == *runnerUp ? "2"
                                                    : " ";
    if (llvm::is_contained(frontier, i))
      mark += "P";
    std::string peak = candidate.planned ? formatBytes(candidate.peakBytes)
                                         : std::string("-");
    std::string seconds = candidate.planned
                              ? llvm::formatv("{0:f4}", candidate.seconds).str()
                              : std::string("-");
    os << llvm::formatv("  {0,-2} {1,-60} {2,14} {3,12} {4,-5} {5,7:f1} {6}\n",
                        mark, candidate.flags(), peak, seconds,
                        candidate.planned ? (candidate.fits ? "yes" : "no")
                                          : "-",
                        candidate.planSeconds, candidate.note);
  }
  os << "  (* chosen, 2 runner-up, P on the Pareto frontier of peak and "
        "time)\n";
  if (winner)
    os << "memopt-compile: fit: " << why() << "\n";
}

llvm::json::Object FitResult::toJSON() const {
  auto entry = [&](const FitCandidate &c) {
    llvm::json::Object object{{"flags", c.flags()},
                              {"amp", ampName(c.amp)},
                              {"remat", c.remat},
                              {"offload", c.offload},
                              {"workspaces",
                               c.leanWorkspaces ? "lean" : "full"},
                              {"stages", int64_t(c.stages)},
                              {"microbatches", int64_t(c.microbatches)},
                              {"planned", c.planned},
                              {"fits", c.fits},
                              {"plan_seconds", c.planSeconds}};
    if (c.planned) {
      object["predicted_peak_bytes"] = int64_t(c.peakBytes);
      object["predicted_seconds"] = c.seconds;
    }
    if (!c.note.empty())
      object["note"] = c.note;
    return object;
  };
  llvm::json::Array all, pareto;
  for (const FitCandidate &candidate : candidates)
    all.push_back(entry(candidate));
  for (size_t i : frontier)
    pareto.push_back(int64_t(i));
  auto index = [](std::optional<size_t> i) {
    return i ? llvm::json::Value(int64_t(*i)) : llvm::json::Value(nullptr);
  };
  llvm::json::Object object{
      {"device", device.name},
      {"memory_bytes", int64_t(device.memoryBytes)},
      {"reserve_bytes", int64_t(reserveBytes)},
      {"capacity_bytes", int64_t(capacityBytes)},
      {"batch", batch},
      {"candidates", std::move(all)},
      {"planned", int64_t(plannedTotal)},
      {"pruned", int64_t(pruned)},
      {"frontier", std::move(pareto)},
      {"winner", index(winner)},
      {"runner_up", index(runnerUp)},
      {"why", why()},
      {"search_seconds", searchSeconds}};
  if (size)
    object["size"] = size;
  if (maximize != FitMaximize::none)
    object["maximize"] = maximize == FitMaximize::batch ? "batch" : "size";
  return object;
}

//===----------------------------------------------------------------------===//
// fitModel
//===----------------------------------------------------------------------===//

FailureOr<FitResult> memopt::fitModel(MLIRContext &context, FitModelLoader load,
                                      const TrainingPipelineOptions &given,
                                      const FitRequest &request) {
  auto start = std::chrono::steady_clock::now();
  FitResult base;
  base.device = cantFail(parseDeviceProfile(request.device));
  base.target = given.target;
  base.maximize = request.maximize;
  base.reserveBytes = std::min(fitReserveBytes(base.target),
                               base.device.memoryBytes);
  base.capacityBytes = base.device.memoryBytes - base.reserveBytes;
  if (given.budget.hasValue() && given.budget > 0)
    base.capacityBytes = std::min<uint64_t>(base.capacityBytes, given.budget);
  int64_t batch = request.batch, size = request.size;
  unsigned spatialAxes = 2;
  if (batch == 0 || (request.maximize == FitMaximize::size && size == 0)) {
    OwningOpRef<ModuleOp> model = load(0, 0);
    if (!model)
      return failure();
    ModelShape shape = modelShape(*model);
    batch = batch ? batch : shape.batch;
    size = size ? size : shape.size;
    spatialAxes = shape.spatialAxes;
  }
  size_t plannedTotal = 0;
  auto at = [&](int64_t b, int64_t s) {
    FitResult result = searchAt(context, load, given, request, base, b, s);
    plannedTotal += result.plannedTotal;
    return result;
  };
  FitResult best;
  if (request.maximize == FitMaximize::none) {
    best = at(batch, request.size);
  } else {
    // Doubling, then bisection, over the batch or over the size in the
    // steps its downsampling allows (the largest power of two, up to 64,
    // that divides the model's size).
    bool batchMode = request.maximize == FitMaximize::batch;
    int64_t unit = 1;
    if (!batchMode)
      while (unit < 64 && size % (unit * 2) == 0)
        unit *= 2;
    int64_t limit = request.maximizeLimit / unit;
    auto fitsAt = [&](int64_t k) {
      FitResult result = batchMode ? at(k, request.size) : at(batch, k * unit);
      bool fits = result.winner.has_value();
      if (fits || !best.winner)
        best = std::move(result);
      return fits;
    };
    int64_t good = 0, bad = limit + 1;
    for (int64_t k = 1; k <= limit; k *= 2) {
      if (!fitsAt(k)) {
        bad = k;
        break;
      }
      good = k;
    }
    while (good > 0 && bad - good > 1) {
      int64_t mid = good + (bad - good) / 2;
      if (fitsAt(mid))
        good = mid;
      else
        bad = mid;
    }
  }
  best.plannedTotal = plannedTotal;
  best.spatialAxes = spatialAxes;
  best.searchSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return best;
}
