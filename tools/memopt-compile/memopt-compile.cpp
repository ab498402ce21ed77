//===- memopt-compile.cpp - ONNX model to training binary -----------------===//
//
//   memopt-compile model.onnx -o BIN [options]        (docs/contract.md)
//
// import (memopt::importONNX) -> the training pipeline of
// memopt/Pipeline/Pipeline.h (training step, memory plan) -> cost model,
// memory timeline and budget on --device (estimatePlannedModule) -> the
// step in buffers -> [--plan-only: stop] -> the pipeline's lowering -> emitc::translateToCpp -> the C++
// compiler (CUDA: nvcc, then the C++ compiler links), linking the memopt
// runtime. This file only parses flags into TrainingPipelineOptions (with
// parseFromString, as memopt-opt does; TrainingPipelineOptions::verify
// checks them) and drives; every decision lives in the library. The binary
// is code only: the model it was compiled from, with its initial weights,
// is written beside it as BIN.weights.onnx (memopt/Runtime/ModelWeights.h),
// which the binary reads at start. Bad flags are a one-line error and exit
// code 2; a model memopt cannot compile is exit code 1.
//
//===----------------------------------------------------------------------===//

#include "CompileConfig.h"
#include "OutputPaths.h"
#include "PhaseTimes.h"
#include "SourceDirectory.h"
#include "Toolchain.h"

#include "memopt/Analysis/TimelineJson.h"
#include "memopt/Analysis/TimelineSvg.h"
#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"
#include "memopt/InitAllDialects.h"
#include "memopt/Pipeline/Fit.h"
#include "memopt/Pipeline/ModuleEstimate.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Pipeline/StepEstimate.h"
#include "memopt/Runtime/ModelWeights.h"
#include "memopt/Runtime/OptionRules.h"
#include "memopt/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

using namespace mlir;
using namespace memopt;
using memopt::tool::writeFile;

namespace {

constexpr int kUsageError = 2;
constexpr const char *kUsage =
    "usage: memopt-compile model.onnx -o BIN [--target=cpu|cuda] [--batch=N] "
    "[--input-shape=C,H,W] [--freeze-batchnorm] "
    "[--loss=mse|l1|bce|ce|dice|ce+dice|ms-ssim|ms-ssim+l1|graph] "
    "[--deep-supervision=nnunet|halving|W0,W1,...] [--optimizer=sgd|adam|adamw] [--lr=F] [--momentum=F] [--dampening=F] "
    "[--nesterov=true|false] [--weight-decay=F] [--beta1=F] [--beta2=F] [--eps=F] [--save-temps=DIR] "
    "[--device=NAME[,KEY=VALUE]...|FILE.json|list] [--budget=SIZE] "
    "[--report=FILE.json] "
    "[--timeline=FILE.svg|FILE.json] [--remat=none|sqrt|auto|optimal] "
    "[--remat-time-limit=SECONDS] [--workspaces=full|lean] "
    "[--offload=none|auto] "
    "[--amp=none|bf16|fp16] "
    "[--amp-fp32-ops=OP,...] [--amp-low-ops=OP,...] [--stages=N] "
    "[--microbatches=M] [--schedule=gpipe|1f1b] "
    "[--data-parallel=N] [--zero=0|1] "
    "[--fit=DEVICE [--amp=auto] [--devices=N] [--maximize=batch|size]] "
    "[--verbose] [-c | --plan-only]\n";

struct Options {
  std::string input;
  std::string output;
  /// The model with the initial weights, beside -o (ModelWeights.h).
  std::string weights;
  bool compileOnly = false;
  /// Stop after the memory plan: report, timeline and budget, no binary.
  bool planOnly = false;
  bool verbose = false; // --verbose: the time of each phase on stderr
  ONNXImportOptions import;
  TrainingPipelineOptions pipeline;
  std::string saveTemps;
  std::string report;
  std::string timeline;
  DeviceProfile device;
  std::optional<uint64_t> budget;
  /// --fit=DEVICE and its options (--amp=auto, --devices, --maximize).
  std::optional<FitRequest> fit;
  /// The search's result for the report (docs/contract.md, `fit`).
  std::optional<llvm::json::Object> fitReport;
  bool deviceGiven = false;
};

/// Prints `memopt-compile: error: <message>` and exits with status 2.
[[noreturn]] void usageError(const llvm::Twine &message) {
  llvm::errs() << "memopt-compile: error: " << message << "\n";
  std::exit(kUsageError);
}

/// Fails unless `text` is a number (its range is the pipeline's rule,
/// TrainingPipelineOptions::verify); exits otherwise.
void checkReal(StringRef flag, StringRef text) {
  double value;
  if (text.getAsDouble(value))
    usageError("--" + flag + " expects a number, got '" + text + "'");
}

/// A positive integer of --batch; exits otherwise.
unsigned parsePositive(StringRef flag, StringRef text) {
  unsigned value;
  if (text.getAsInteger(10, value) || value < 1)
    usageError("--" + flag + " expects a positive integer, got '" + text +
               "'");
  return value;
}

/// --microbatches=M splits the batch (a replica's, with --data-parallel)
/// into M microbatches, and the step is compiled for one.
void checkMicrobatches(Options &options) {
  unsigned m = options.pipeline.microbatches;
  if (m <= 1)
    return;
  bool replicas = options.pipeline.dataParallel > 1;
  if (!options.import.batch)
    usageError("--microbatches=" + llvm::Twine(m) +
               " needs --batch=B, the batch that the " + llvm::Twine(m) +
               " microbatches split");
  if (*options.import.batch % m != 0)
    usageError((replicas ? "each replica's batch of " : "--batch=") +
               llvm::Twine(*options.import.batch) +
               " does not split into --microbatches=" + llvm::Twine(m) +
               ": use a batch" + (replicas ? " per replica" : "") +
               " that is a multiple of " + llvm::Twine(m));
  options.import.batch = *options.import.batch / m;
}

/// Parses the command line into `options`; exits on a bad flag.
void parseOptions(int argc, char **argv, Options &options) {
  const llvm::StringSet<llvm::MallocAllocator> known = {
      "target",   "batch",     "input-shape", "loss",         "deep-supervision", "optimizer",
      "lr",       "momentum",  "dampening",   "nesterov",     "weight-decay",
      "beta1",    "beta2",     "eps",         "save-temps",   "report",
      "device",   "budget",    "timeline",    "remat",        "amp",
      "amp-fp32-ops", "amp-low-ops", "stages", "offload", "data-parallel",
      "zero", "remat-time-limit", "microbatches", "schedule", "workspaces",
      "fit", "devices", "maximize"};
  // The pipeline's options as TrainingPipelineOptions parses them (as
  // memopt-opt does), so that verify() knows which were given.
  SmallVector<std::string> pipelineArgs;
  auto pipelineArg = [&](StringRef option, StringRef value) {
    pipelineArgs.push_back((option + "=" + value).str());
  };
  // A repeated option is an error, not "the last one wins": the training
  // binary refuses repeats too.
  llvm::StringSet<> seen;
  FitRequest fit;
  bool ampAuto = false;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      llvm::outs() << kUsage;
      std::exit(0);
    }
    if (arg == "-c") {
      options.compileOnly = true;
      continue;
    }
    if (arg == "--plan-only") {
      options.planOnly = true;
      continue;
    }
    if (arg == "--verbose") {
      options.verbose = true;
      continue;
    }
    if (arg == "--freeze-batchnorm") {
      options.import.freezeBatchNorm = true;
      continue;
    }
    if (arg == "-o") {
      if (++i == argc)
        usageError("-o expects a file name");
      if (!options.output.empty())
        usageError("-o given twice, expected one -o BIN");
      options.output = argv[i];
      continue;
    }
    if (!arg.starts_with("--")) {
      if (arg.starts_with("-") || !options.input.empty())
        usageError("unexpected argument '" + arg + "'");
      options.input = arg.str();
      continue;
    }
    auto [name, value] = arg.drop_front(2).split('=');
    if (name == "verbose" || name == "plan-only" || name == "freeze-batchnorm")
      usageError("--" + name + " takes no value (got '" + arg + "')");
    if (!known.contains(name))
      usageError("unknown option '--" + name + "'");
    if (!arg.contains('=')) {
      if (++i == argc)
        usageError("--" + name + " expects a value");
      value = argv[i];
    }
    if (!seen.insert(name).second)
      usageError("--" + name + " given twice, expected one");
    if (name == "target") {
      if (value != "cpu" && value != "cuda")
        usageError("--target must be cpu or cuda, got '" + value + "'");
      pipelineArg(name, value);
    } else if (name == "batch") {
      options.import.batch = parsePositive(name, value);
      if (*options.import.batch > kMaxBatch)
        usageError("--batch=" + value + ": memopt compiles batches of at "
                   "most " + llvm::Twine(kMaxBatch) + "; use a smaller batch "
                   "(--microbatches splits one)");
    } else if (name == "input-shape") {
      SmallVector<StringRef> parts;
      value.split(parts, ',');
      for (StringRef part : parts) {
        int64_t dim;
        if (part.getAsInteger(10, dim) || dim < 1 || dim > kMaxInputDim)
          parts.clear();
        else
          options.import.inputShape.push_back(dim);
      }
      if (options.import.inputShape.size() != parts.size() ||
          parts.size() < 2 || parts.size() > 4)
        usageError("--input-shape expects C,L or C,H,W or C,D,H,W with "
                   "integers from 1 to " +
                   llvm::Twine(kMaxInputDim) + ", got '" + value + "'");
    } else if (name == "loss") {
      if (!llvm::is_contained({"mse", "l1", "bce", "ce", "dice", "ce+dice",
                               "ms-ssim", "ms-ssim+l1", "graph"},
                              value))
        usageError("--loss must be mse, l1, bce, ce, dice, ce+dice, "
                   "ms-ssim, ms-ssim+l1 or graph, got '" +
                   value + "'");
      pipelineArg(name, value);
    } else if (name == "optimizer") {
      if (!llvm::is_contained({"sgd", "adam", "adamw"}, value))
        usageError("--optimizer must be sgd, adam or adamw, got '" + value +
                   "'");
      pipelineArg(name, value);
    } else if (llvm::is_contained({"lr", "momentum", "dampening",
                                   "weight-decay", "beta1", "beta2", "eps"},
                                  name)) {
      checkReal(name, value);
      pipelineArg(name, value);
    } else if (name == "nesterov") {
      if (value != "true" && value != "false")
        usageError("--nesterov must be true or false, got '" + value + "'");
      pipelineArg(name, value);
    } else if (llvm::is_contained({"stages", "microbatches", "data-parallel"},
                                  name)) {
      unsigned count;
      if (value.getAsInteger(10, count))
        usageError("--" + name + " expects a positive integer, got '" +
                   value + "'");
      pipelineArg(name, value);
    } else if (name == "zero") {
      if (value != "0" && value != "1")
        usageError("--zero must be 0 or 1, got '" + value + "'");
      pipelineArg(name, value);
    } else if (name == "workspaces") {
      if (value != "full" && value != "lean")
        usageError("--workspaces must be full or lean, got '" + value + "'");
      pipelineArg("lean-workspaces", value == "lean" ? "true" : "false");
    } else if (name == "amp" && value == "auto") {
      ampAuto = true;
    } else if (name == "amp") {
      if (!llvm::is_contained({"none", "bf16", "fp16"}, value))
        usageError("--amp must be none, bf16, fp16 or (with --fit) auto, "
                   "got '" + value + "'");
      pipelineArg(name, value);
    } else if (name == "fit") {
      if (value.empty())
        usageError("--fit expects a device, NAME[,KEY=VALUE]... or FILE.json "
                   "(see --device=list)");
      fit.device = value.str();
    } else if (name == "devices") {
      fit.devices = parsePositive(name, value);
    } else if (name == "maximize") {
      if (value != "batch" && value != "size")
        usageError("--maximize must be batch or size, got '" + value + "'");
      fit.maximize = value == "batch" ? FitMaximize::batch : FitMaximize::size;
    } else if (name == "device" && value == "list") {
      for (StringRef device : builtinDeviceNames())
        llvm::outs() << llvm::left_justify(device, 10)
                     << builtinDeviceDescription(device) << "\n";
      llvm::outs() << llvm::left_justify("FILE.json", 10)
                   << "a user profile (docs/cost-model.md)\n";
      std::exit(0);
    } else if (llvm::is_contained({"deep-supervision", "remat", "offload",
                                   "schedule", "amp-fp32-ops", "amp-low-ops",
                                   "device"},
                                  name)) {
      // Checked by TrainingPipelineOptions::verify.
      pipelineArg(name, value);
    } else if (name == "save-temps") {
      options.saveTemps = value.str();
    } else if (name == "report") {
      options.report = value.str();
    } else if (name == "timeline") {
      options.timeline = value.str();
    } else if (name == "remat-time-limit") {
      double seconds;
      if (value.getAsDouble(seconds))
        usageError("--remat-time-limit expects a positive number of "
                   "seconds, got '" + value + "'");
      pipelineArg(name, value);
    } else if (name == "budget") {
      llvm::Expected<uint64_t> budget = parseByteSize(value);
      if (!budget)
        usageError("--budget: " + llvm::toString(budget.takeError()));
      options.budget = *budget;
      pipelineArg(name, std::to_string(*budget));
    }
  }
  if (options.input.empty())
    usageError("no input model (usage: memopt-compile model.onnx -o BIN)");
  // --fit's options mean nothing without it. Its device decides the target
  // unless --target is given: a GPU profile plans for cuda.
  if (fit.device.empty()) {
    for (StringRef option : {"devices", "maximize"})
      if (seen.contains(option))
        usageError("--" + option + " is an option of --fit: give "
                   "--fit=DEVICE with it");
    if (ampAuto)
      usageError("--amp=auto lets --fit choose the precision: give "
                 "--fit=DEVICE with it, or --amp=none, bf16 or fp16");
  } else {
    fit.ampConsent = ampAuto;
    llvm::Expected<DeviceProfile> profile = parseDeviceProfile(fit.device);
    if (!seen.contains("target"))
      pipelineArg("target", profile && profile->name != "cpu" ? "cuda" : "cpu");
    llvm::consumeError(profile.takeError());
    if (options.import.batch)
      fit.batch = *options.import.batch;
    fit.maximizeLimit =
        fit.maximize == FitMaximize::size ? kMaxInputDim : kMaxBatch;
    if (options.verbose)
      fit.log = &llvm::errs();
    options.fit = fit;
  }
  options.deviceGiven = seen.contains("device");
  // The pipeline's options as given (constraints of --fit, which runs
  // before finishOptions).
  std::string parseErrors;
  llvm::raw_string_ostream parseStream(parseErrors);
  if (failed(options.pipeline.parseFromString(llvm::join(pipelineArgs, " "),
                                              parseStream)))
    usageError(StringRef(parseErrors).trim());
  if (options.fit)
    if (llvm::Error error = options.fit->verify(
            options.pipeline, options.import.batch.has_value(),
            !options.import.inputShape.empty()))
      usageError(llvm::toString(std::move(error)));
}

/// The rules of the options as a whole, with --fit's choice applied: the
/// pipeline's (TrainingPipelineOptions::verify) and this tool's; exits on
/// a broken one.
void finishOptions(Options &options) {
  // Every rule of the pipeline's options is the library's, as for
  // memopt-opt --memopt-training-pipeline; the rest are this tool's.
  if (llvm::Error error =
          options.pipeline.verify(TrainingPipelineOptions::Spelling::flag))
    usageError(llvm::toString(std::move(error)));
  bool cudaTarget = options.pipeline.target == Backend::cuda;
  options.device = cantFail(parseDeviceProfile(
      options.pipeline.device.empty()
          ? defaultDeviceName(cudaTarget)
          : StringRef(options.pipeline.device)));
  if (options.planOnly && (options.compileOnly || !options.output.empty()))
    usageError("--plan-only writes no binary: drop -c and -o (the plan goes "
               "to --report, --timeline and --save-temps)");
  // Data parallelism: --batch is the global batch, split evenly over the
  // replicas; each replica's step is compiled for its slice.
  if (unsigned replicas = options.pipeline.dataParallel; replicas > 1) {
    if (!options.import.batch)
      usageError("--data-parallel=" + llvm::Twine(replicas) +
                 " needs --batch=B, the global batch that the " +
                 llvm::Twine(replicas) + " replicas split");
    if (*options.import.batch % replicas != 0)
      usageError("--batch=" + llvm::Twine(*options.import.batch) +
                 " does not split over --data-parallel=" +
                 llvm::Twine(replicas) + ": use a multiple of " +
                 llvm::Twine(replicas));
    options.import.batch = *options.import.batch / replicas;
  }
  checkMicrobatches(options);
  bool multiProcess =
      options.pipeline.stages > 1 || options.pipeline.dataParallel > 1;
  if (multiProcess && !options.planOnly && !config::kHaveMpiRuntime &&
      !options.compileOnly)
    usageError("--stages / --data-parallel: this memopt was built without "
               "MPI (CMake found no MPI): install libopenmpi-dev and rebuild "
               "memopt, or add --plan-only");
  // A CUDA binary of several processes links the CUDA exchange (NCCL or
  // host-staged MPI, chosen at run time: BIN --exchange).
  if (multiProcess && !options.planOnly && !options.compileOnly &&
      options.pipeline.target == Backend::cuda && config::kHaveCudaRuntime &&
      !config::kHaveCudaExchange)
    usageError("--stages / --data-parallel --target=cuda: this memopt was "
               "built without the CUDA exchange (MemoptRuntimeCUDAExchange "
               "needs MPI and the CUDA runtime in one build): rebuild memopt "
               "with both, or add --plan-only");
  // A binary of pipeline stages runs one stage per MPI process; it has no
  // evaluation step yet, so --val-data is refused by the binary.
  if (options.pipeline.stages > 1 && !options.planOnly)
    options.pipeline.evalStep = false;
  if (!options.planOnly && options.output.empty())
    usageError("no output file (-o BIN)");
  // The initial weights go beside the binary; with -c beside the object,
  // named for the binary of its stem that the object is linked into.
  if (!options.planOnly) {
    SmallString<128> base(options.output);
    if (options.compileOnly)
      llvm::sys::path::replace_extension(base, "");
    options.weights = (base + rt::kWeightsFileSuffix).str();
    options.pipeline.weightsFile =
        llvm::sys::path::filename(options.weights).str();
  }
  // A plan for the GPU needs no CUDA toolkit; a binary does.
  if (options.pipeline.target == Backend::cuda && !options.planOnly &&
      !config::kHaveCudaRuntime)
    usageError("--target=cuda: this memopt was built without the CUDA "
               "runtime (CMake found no CUDA toolkit with cuDNN); rebuild "
               "memopt on a machine with them, use --target=cpu, or plan "
               "only (--plan-only)");
  // The step's name in the generated program and the files it writes.
  options.pipeline.modelName = llvm::sys::path::stem(options.input).str();
  if (cudaTarget && !options.deviceGiven && !options.fit)
    llvm::errs() << "memopt-compile: note: --target=cuda without --device "
                    "plans and prices for "
                 << describeDeviceProfile(options.device)
                 << ", the CUDA default; give --device=NAME (see "
                    "--device=list) for another GPU\n";
}

/// Fails unless the model has the one graph input a training binary feeds
/// (rt::kTrainableGraphInputs): the binary refuses any other count when it
/// starts, so compiling one would only postpone the error.
LogicalResult checkGraphInputs(ModuleOp module, const Options &options) {
  SmallVector<std::string> names;
  for (auto func : module.getOps<func::FuncOp>())
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto name = func.getArgAttrOfType<StringAttr>(
              i, tg::TGDialect::kInputAttrName))
        names.push_back("'" + name.str() + "'");
  bool graphLoss = options.pipeline.loss == tg::LossKind::graph;
  if (names.size() == static_cast<size_t>(rt::kTrainableGraphInputs) &&
      !graphLoss)
    return success();
  llvm::errs() << "memopt-compile: error: " << options.input << " has "
               << names.size() << " graph inputs"
               << (names.empty() ? "" : " (" + llvm::join(names, ", ") + ")")
               << "; a training binary feeds exactly one, from the --data "
                  "inputs, and the target from --data/targets"
               << (graphLoss ? " (--loss=graph models take their target as a "
                               "graph input, which the binary cannot feed; "
                               "use --loss=mse, l1, bce, ce, dice, "
                               "ce+dice, ms-ssim or ms-ssim+l1, with "
                               "--deep-supervision for a model with several "
                               "outputs)"
                             : ": make the others initializers or constants")
               << "\n";
  return failure();
}

/// Writes the compile report (docs/contract.md, reports) to --report's
/// temporary file, if asked; OutputFiles::commit puts it in place.
LogicalResult writeReport(const Options &options, tool::OutputFiles &outputs,
                          const ModuleEstimate &estimate, uint64_t arenaBytes,
                          const PhaseTimes &phases,
                          const ONNXImportSummary &imported,
                          std::chrono::steady_clock::time_point start) {
  if (options.report.empty())
    return success();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::json::Object report = estimate.report(
      options.pipeline, arenaBytes, options.budget,
      options.import.batch.value_or(0) * options.pipeline.microbatches,
      seconds);
  report["compile_phases"] = phases.toJSON();
  if (options.fitReport)
    report["fit"] = llvm::json::Object(*options.fitReport);
  report["import"] = toJSON(imported);
  return outputs.writeReport([&](raw_ostream &os) {
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  });
}

/// `fitted`: --fit's result, whose winner's training step and memory plan
/// the compile continues from.
int compile(const Options &options, MLIRContext &context,
            FitResult *fitted) {
  auto start = std::chrono::steady_clock::now();
  PhaseTimes phases(options.verbose);
  if (fitted)
    phases.add("fit", fitted->searchSeconds);
  auto phaseStart = PhaseTimes::Clock::now();

  // Every output is checked before anything is computed or replaced.
  tool::OutputFiles outputs;
  if (failed(outputs.prepare(options.input, options.output, options.weights,
                             options.report, options.timeline)))
    return 1;

  auto buffer = llvm::MemoryBuffer::getFile(options.input);
  if (!buffer) {
    llvm::errs() << "memopt-compile: error: cannot open input file '"
                 << options.input << "': " << buffer.getError().message()
                 << "\n";
    return 1;
  }
  ONNXImportSummary imported;
  OwningOpRef<ModuleOp> module =
      importONNX(**buffer, &context, options.import, &imported);
  if (!module || failed(checkGraphInputs(*module, options)))
    return 1;
  phases.add("import", PhaseTimes::since(phaseStart));
  const std::string &modelName = options.pipeline.modelName;

  // Sources go to --save-temps or a temporary directory removed at the end.
  tool::SourceDirectory sources;
  if (failed(sources.create(options.saveTemps)))
    return 1;

  // The pipeline of memopt-opt --memopt-training-pipeline, phase by phase,
  // so that the IR between phases can be kept and the planned step
  // estimated before it becomes buffers. A phase without `saveAs` is the
  // first part of the next one (the memory plan before its buffers): it is
  // neither saved nor printed on its own.
  auto runPhase =
      [&](llvm::function_ref<void(OpPassManager &)> build, StringRef saveAs) {
        PassManager pm(&context);
        phases.instrument(pm);
        build(pm);
        LogicalResult result = pm.run(*module);
        if (!saveAs.empty() || failed(result))
          phases.printNew();
        if (failed(result))
          return failure();
        // Printed as memopt-opt prints it, so that the two compare.
        if (sources.kept() && !saveAs.empty() &&
            failed(writeFile(sources.path((modelName + saveAs).str()),
                             [&](raw_ostream &os) {
                               module->print(os);
                               os << "\n";
                             })))
          return failure();
        return success();
      };
  if (fitted) {
    // The search planned the winner: its step is kept as the phase would
    // have kept it, its plan goes on.
    if (sources.kept() &&
        failed(writeFile(sources.path(modelName + ".step.mlir"),
                         [&](raw_ostream &os) {
                           fitted->winnerStep->print(os);
                           os << "\n";
                         })))
      return 1;
    module = std::move(fitted->winnerPlan);
    // The search kept tg-autodiff's warnings to itself.
    if (auto refusal = (*module)->getAttrOfType<StringAttr>(
            tg::kEvalRefusalAttrName))
      llvm::errs() << "memopt-compile: warning: no evaluation step, the "
                      "training binary will refuse --val-data: "
                   << refusal.getValue() << "\n";
  } else if (failed(runPhase(
                 [&](OpPassManager &pm) {
                   buildTrainingStepPipeline(pm, options.pipeline);
                 },
                 ".step.mlir")) ||
             failed(runPhase(
                 [&](OpPassManager &pm) {
                   buildMemoryPlanPipeline(pm, options.pipeline);
                 },
                 ""))) {
    return 1;
  }
  // Predictions on the final schedule and memory plan, while the step is
  // still in tg ops with its plan recorded: the step's, or with --stages
  // each stage's and the worst one's.
  auto estimateStart = PhaseTimes::Clock::now();
  FailureOr<ModuleEstimate> estimated =
      estimatePlannedModule(*module);
  if (failed(estimated))
    return 1;
  phases.book("estimate", PhaseTimes::since(estimateStart));
  const StepEstimate *estimate = &estimated->step;
  const SmallVector<StageEstimate> &stageEstimates = estimated->stages;
  if (failed(runPhase([&](OpPassManager &pm) { buildBufferPipeline(pm); },
                      ".planned.mlir")))
    return 1;
  // The lowering fixes the program's arena: the larger of the training and
  // evaluation steps' plans (CUDA: with the constants after them). It takes
  // a fraction of a second, so --plan-only runs it too. With stages the
  // worst stage's own arena counts (each process holds one stage); their
  // lowering runs for a binary only.
  uint64_t arenaBytes = 0;
  if (!stageEstimates.empty()) {
    arenaBytes = estimated->stageArenaBytes;
    if (!options.planOnly &&
        failed(runPhase(
            [&](OpPassManager &pm) {
              buildLoweringPipeline(pm, options.pipeline);
            },
            ".emitc.mlir")))
      return 1;
  } else {
    if (failed(runPhase(
            [&](OpPassManager &pm) {
              buildLoweringPipeline(pm, options.pipeline);
            },
            ".emitc.mlir")))
      return 1;
    arenaBytes =
        (*module)->getAttrOfType<IntegerAttr>(kArenaBytesAttr).getInt();
  }
  uint64_t peak = estimate->predictedPeakBytes(arenaBytes);
  TimelineLabels labels{modelName, describeDeviceProfile(estimate->device),
                        estimate->device.memoryBytes, peak, options.budget};
  auto writeTimeline = [&](raw_ostream &os) {
    writeTimelineSvg(os, estimate->timeline, labels);
  };
  // --timeline=FILE.json: the same timeline for scripts, one entry per op.
  auto writeTimelineFile = [&](raw_ostream &os) {
    if (StringRef(options.timeline).ends_with_insensitive(".json"))
      writeTimelineJson(os, estimate->timeline, labels);
    else
      writeTimeline(os);
  };
  if ((!options.timeline.empty() &&
       failed(outputs.writeTimeline(writeTimelineFile))) ||
      (sources.kept() &&
       failed(writeFile(sources.path(modelName + ".timeline.svg"),
                        writeTimeline))))
    return 1;
  if (options.verbose)
    estimate->printDecisions(llvm::errs());
  if (options.planOnly) {
    llvm::outs() << "memopt-compile: predicted peak " << peak << " bytes ("
                 << formatBytes(peak) << "), arena " << arenaBytes
                 << " bytes (" << formatBytes(arenaBytes) << ")\n";
    estimate->printPeak(llvm::outs());
    if (failed(writeReport(options, outputs, *estimated, arenaBytes, phases,
                           imported, start)))
      return 1;
  }
  // Over budget, the timeline (and with --plan-only the report) shows why:
  // they are written, nothing else.
  if (llvm::Error error = checkBudget(options.budget, peak,
                                          options.pipeline.remat)) {
    llvm::errs() << "memopt-compile: error: " << llvm::toString(std::move(error))
                 << "\n";
    (void)outputs.commit();
    return 1;
  }
  if (options.planOnly)
    return failed(outputs.commit()) ? 1 : 0;

  bool cuda = options.pipeline.target == Backend::cuda;
  std::string cppPath = sources.path(modelName + (cuda ? ".cu" : ".cpp"));
  phaseStart = PhaseTimes::Clock::now();
  LogicalResult translated = success();
  if (failed(writeFile(cppPath, [&](raw_ostream &os) {
        translated = emitc::translateToCpp(*module, os);
      })) ||
      failed(translated))
    return 1;
  // The binary reads its initial weights from, and writes its trained
  // weights into, the model as memopt trains it: the file itself, or the
  // importer's normalized copy of it (external data read in, merged
  // initializers untied).
  if (failed(outputs.writeWeights([&](raw_ostream &os) {
        if (imported.normalizedModel.empty())
          os << (*buffer)->getBuffer();
        else
          os << imported.normalizedModel;
      })))
    return 1;
  phases.add("emission", PhaseTimes::since(phaseStart));

  if (!options.compileOnly && !config::kHaveTrainer) {
    llvm::errs() << "memopt-compile: error: this memopt was built without "
                    "the trainer (MemoptRuntimeHost), so it cannot link a "
                    "training binary; -c compiles the step only. Sources "
                    "kept in "
                 << sources.keep() << "\n";
    return 1;
  }
  bool multiProcess =
      options.pipeline.stages > 1 || options.pipeline.dataParallel > 1;
  std::string objectPath = options.compileOnly
                               ? outputs.binaryPath()
                               : sources.path(modelName + ".o");
  std::vector<tool::ToolCommand> commands =
      tool::buildCommands(cuda, options.compileOnly, multiProcess, cppPath,
                          objectPath, outputs.binaryPath());
  for (const auto &[phase, command] : commands) {
    phaseStart = PhaseTimes::Clock::now();
    std::string compilerOutput;
    if (!tool::runCommand(command, sources.path("compiler.log"),
                          compilerOutput)) {
      llvm::errs() << "memopt-compile: error: the generated C++ failed to "
                      "compile (memopt bug); sources kept in "
                   << sources.keep() << "\n"
                   << llvm::join(command, " ") << "\n"
                   << compilerOutput;
      return 1;
    }
    phases.add(phase, PhaseTimes::since(phaseStart));
  }

  outputs.binaryWritten();
  if (failed(writeReport(options, outputs, *estimated, arenaBytes, phases,
                         imported, start)))
    return 1;
  return failed(outputs.commit()) ? 1 : 0;
}

/// --fit: searches the plan (memopt/Pipeline/Fit.h), prints its table and
/// writes the winner's settings into `options`. Fails, with the one-line
/// message of Fit.h, when nothing fits.
FailureOr<FitResult> runFit(Options &options, MLIRContext &context) {
  const FitRequest &request = *options.fit;
  auto buffer = llvm::MemoryBuffer::getFile(options.input);
  if (!buffer) {
    llvm::errs() << "memopt-compile: error: cannot open input file '"
                 << options.input << "': " << buffer.getError().message()
                 << "\n";
    return failure();
  }
  // The model at a batch and square (cubic) size (0: as given or
  // exported); the channels and the number of spatial axes of a size are
  // the model's.
  int64_t channels = options.import.inputShape.empty()
                         ? 0
                         : options.import.inputShape.front();
  size_t spatialAxes = options.import.inputShape.empty()
                           ? 0
                           : options.import.inputShape.size() - 1;
  auto sized = [&](int64_t size) {
    SmallVector<int64_t, 4> shape{channels};
    shape.append(spatialAxes, size);
    return shape;
  };
  auto load = [&](int64_t batch, int64_t size) -> OwningOpRef<ModuleOp> {
    ONNXImportOptions import = options.import;
    if (batch)
      import.batch = batch;
    if (size && !channels) {
      OwningOpRef<ModuleOp> model = importONNX(**buffer, &context, import);
      if (!model)
        return nullptr;
      for (auto function : model->getOps<func::FuncOp>())
        if (auto type = dyn_cast<ShapedType>(function.getArgumentTypes()[0]);
            type && type.getRank() >= 3 && type.getRank() <= 5) {
          channels = type.getDimSize(1);
          spatialAxes = type.getRank() - 2;
        }
    }
    if (size)
      import.inputShape = sized(size);
    return importONNX(**buffer, &context, import);
  };
  FailureOr<FitResult> result =
      fitModel(context, load, options.pipeline, request);
  if (failed(result))
    return failure();
  result->printTable(llvm::outs());
  if (!result->winner) {
    llvm::errs() << "memopt-compile: error: "
                 << result->impossible(request.ampConsent, request.devices)
                 << "\n";
    return failure();
  }
  result->candidates[*result->winner].apply(options.pipeline);
  options.pipeline.device = request.device;
  options.pipeline.budget = result->capacityBytes;
  options.budget = result->capacityBytes;
  options.import.batch = result->batch;
  if (result->size)
    options.import.inputShape = sized(result->size);
  options.fitReport = result->toJSON();
  return result;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  Options options;
  parseOptions(argc, argv, options);
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic is one line, its location and cause: the op it is about
  // (often the whole training function) is printed only for those who
  // asked for IR.
  context.printOpOnDiagnostic(options.verbose || !options.saveTemps.empty());
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::optional<FitResult> fitted;
  if (options.fit) {
    FailureOr<FitResult> result = runFit(options, context);
    if (failed(result))
      return 1;
    fitted = std::move(*result);
  }
  finishOptions(options);
  // A binary of stages has no evaluation step (finishOptions): the
  // winner, planned with one, is planned again without.
  if (fitted && (!options.pipeline.evalStep || !fitted->winnerPlan))
    fitted.reset();
  return compile(options, context, fitted ? &*fitted : nullptr);
}
