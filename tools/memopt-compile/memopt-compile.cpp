//===- memopt-compile.cpp - ONNX model to training binary -----------------===//
//
//   memopt-compile model.onnx -o BIN [options]        (docs/contract.md)
//
// import (memopt::importONNX) -> the training pipeline of
// memopt/Pipeline/Pipeline.h (training step, memory plan) -> cost model,
// memory timeline and budget on --device (StepEstimate) -> [--plan-only:
// stop] -> the pipeline's lowering -> emitc::translateToCpp -> the C++
// compiler (CUDA: nvcc, then the C++ compiler links), linking the memopt
// runtime. This file only parses flags into TrainingPipelineOptions and
// drives; every decision lives in the library. The ONNX
// model is embedded in the binary with an assembler `.incbin`, so that
// models of hundreds of MB cost the compiler nothing. Bad flags are a
// one-line error and exit code 2; a model memopt
// cannot compile is exit code 1.
//
//===----------------------------------------------------------------------===//

#include "CompileConfig.h"
#include "OutputPaths.h"
#include "PhaseTimes.h"

#include "memopt/Analysis/TimelineJson.h"
#include "memopt/Analysis/TimelineSvg.h"
#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/Transforms/AmpPolicy.h"
#include "memopt/InitAllDialects.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Pipeline/StepEstimate.h"
#include "memopt/Runtime/OptionRules.h"
#include "memopt/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace memopt;

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
    "[--verbose] [-c | --plan-only]\n";

struct Options {
  std::string input;
  std::string output;
  bool compileOnly = false;
  /// Stop after the memory plan: report, timeline and budget, no binary.
  bool planOnly = false;
  /// --schedule was given (its default applies otherwise).
  bool scheduleGiven = false;
  bool verbose = false; // --verbose: the time of each phase on stderr
  ONNXImportOptions import;
  TrainingPipelineOptions pipeline;
  std::string saveTemps;
  std::string report;
  std::string timeline;
  DeviceProfile device;
  std::optional<uint64_t> budget;
};

/// Prints `memopt-compile: error: <message>` and exits with status 2.
[[noreturn]] void usageError(const llvm::Twine &message) {
  llvm::errs() << "memopt-compile: error: " << message << "\n";
  std::exit(kUsageError);
}

/// A number of --flag that satisfies `valid`, described by `rule` ("a
/// finite number > 0"); exits otherwise.
double parseReal(StringRef flag, StringRef text, bool (*valid)(double),
                 StringRef rule) {
  double value;
  if (text.getAsDouble(value))
    usageError("--" + flag + " expects a number, got '" + text + "'");
  if (!valid(value))
    usageError("--" + flag + " must be " + rule + ", got '" + text + "'");
  return value;
}

/// A positive integer of --flag (--batch, --stages, ...); exits otherwise.
unsigned parsePositive(StringRef flag, StringRef text) {
  unsigned value;
  if (text.getAsInteger(10, value) || value < 1)
    usageError("--" + flag + " expects a positive integer, got '" + text +
               "'");
  return value;
}

// The ranges torch.optim accepts (it checks the same ones), finite.
bool isFiniteNonNegative(double v) { return std::isfinite(v) && v >= 0.0; }
bool isFinite(double v) { return std::isfinite(v); }
bool isBeta(double v) { return v >= 0.0 && v < 1.0; }

/// --microbatches=M splits the batch (a replica's, with --data-parallel)
/// into M microbatches, and the step is compiled for one; --schedule
/// orders the microbatches of pipeline stages, so it needs both (one
/// process runs them one after another; with M = 1 both orders are one).
void checkMicrobatches(Options &options) {
  unsigned m = options.pipeline.microbatches;
  if (options.scheduleGiven && (options.pipeline.stages <= 1 || m <= 1))
    usageError("--schedule orders the microbatches of pipeline stages: give "
               "--stages=N and --microbatches=M with N, M > 1, or drop it");
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
      "zero", "remat-time-limit", "microbatches", "schedule", "workspaces"};
  // A repeated option is an error, not "the last one wins": the training
  // binary refuses repeats too.
  llvm::StringSet<> seen;
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
      options.pipeline.target = *symbolizeBackend(value);
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
      if (options.import.inputShape.size() != 3 || parts.size() != 3)
        usageError("--input-shape expects C,H,W with integers from 1 to " +
                   llvm::Twine(kMaxInputDim) + ", got '" + value + "'");
    } else if (name == "loss") {
      std::optional<tg::LossKind> loss =
          llvm::StringSwitch<std::optional<tg::LossKind>>(value)
              .Case("mse", tg::LossKind::mse)
              .Case("l1", tg::LossKind::l1)
              .Case("bce", tg::LossKind::bce)
              .Case("ce", tg::LossKind::ce)
              .Case("dice", tg::LossKind::dice)
              .Case("ce+dice", tg::LossKind::ceDice)
              .Case("ms-ssim", tg::LossKind::msssim)
              .Case("ms-ssim+l1", tg::LossKind::msssimL1)
              .Case("graph", tg::LossKind::graph)
              .Default(std::nullopt);
      if (!loss)
        usageError("--loss must be mse, l1, bce, ce, dice, ce+dice, "
                   "ms-ssim, ms-ssim+l1 or graph, got '" +
                   value + "'");
      options.pipeline.loss = *loss;
    } else if (name == "deep-supervision") {
      std::string error;
      if (!tg::parseDeepSupervision(value, error))
        usageError("--" + error);
      options.pipeline.deepSupervision = value.str();
    } else if (name == "optimizer") {
      std::optional<tg::OptimizerKind> optimizer =
          llvm::StringSwitch<std::optional<tg::OptimizerKind>>(value)
              .Case("sgd", tg::OptimizerKind::sgd)
              .Case("adam", tg::OptimizerKind::adam)
              .Case("adamw", tg::OptimizerKind::adamw)
              .Default(std::nullopt);
      if (!optimizer)
        usageError("--optimizer must be sgd, adam or adamw, got '" + value +
                   "'");
      options.pipeline.optimizer = *optimizer;
    } else if (name == "lr") {
      options.pipeline.lr = parseReal(name, value, rt::isValidLearningRate,
                                      rt::kLearningRateRule);
    } else if (name == "momentum") {
      options.pipeline.momentum =
          parseReal(name, value, isFiniteNonNegative, "a finite number >= 0");
    } else if (name == "dampening") {
      options.pipeline.dampening =
          parseReal(name, value, isFinite, "a finite number");
    } else if (name == "nesterov") {
      if (value != "true" && value != "false")
        usageError("--nesterov must be true or false, got '" + value + "'");
      options.pipeline.nesterov = value == "true";
    } else if (name == "weight-decay") {
      options.pipeline.weightDecay =
          parseReal(name, value, isFiniteNonNegative, "a finite number >= 0");
    } else if (name == "beta1") {
      options.pipeline.beta1 = parseReal(name, value, isBeta, "in [0, 1)");
    } else if (name == "beta2") {
      options.pipeline.beta2 = parseReal(name, value, isBeta, "in [0, 1)");
    } else if (name == "eps") {
      options.pipeline.eps =
          parseReal(name, value, isFiniteNonNegative, "a finite number >= 0");
    } else if (name == "stages") {
      options.pipeline.stages = parsePositive(name, value);
    } else if (name == "microbatches") {
      options.pipeline.microbatches = parsePositive(name, value);
    } else if (name == "schedule") {
      if (value != "gpipe" && value != "1f1b")
        usageError("--schedule must be gpipe or 1f1b, got '" + value + "'");
      options.pipeline.schedule = value.str();
      options.scheduleGiven = true;
    } else if (name == "data-parallel") {
      options.pipeline.dataParallel = parsePositive(name, value);
    } else if (name == "zero") {
      if (value != "0" && value != "1")
        usageError("--zero must be 0 or 1, got '" + value + "'");
      options.pipeline.zero = value == "1";
    } else if (name == "remat") {
      if (value != "none" && value != "sqrt" && value != "auto" &&
          value != "optimal")
        usageError("--remat must be none, sqrt, auto or optimal, got '" +
                   value + "'");
      options.pipeline.remat = value.str();
    } else if (name == "workspaces") {
      if (value != "full" && value != "lean")
        usageError("--workspaces must be full or lean, got '" + value + "'");
      options.pipeline.leanWorkspaces = value == "lean";
    } else if (name == "offload") {
      if (value != "none" && value != "auto")
        usageError("--offload must be none or auto, got '" + value + "'");
      options.pipeline.offload = value.str();
    } else if (name == "amp") {
      std::optional<tg::AmpMode> amp =
          llvm::StringSwitch<std::optional<tg::AmpMode>>(value)
              .Case("none", tg::AmpMode::none)
              .Case("bf16", tg::AmpMode::bf16)
              .Case("fp16", tg::AmpMode::fp16)
              .Default(std::nullopt);
      if (!amp)
        usageError("--amp must be none, bf16 or fp16, got '" + value + "'");
      options.pipeline.amp = *amp;
    } else if (name == "amp-fp32-ops" || name == "amp-low-ops") {
      SmallVector<StringRef> ops;
      value.split(ops, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      auto &list = name == "amp-fp32-ops" ? options.pipeline.ampFp32Ops
                                          : options.pipeline.ampLowOps;
      for (StringRef op : ops)
        list.push_back(op.str());
    } else if (name == "save-temps") {
      options.saveTemps = value.str();
    } else if (name == "report") {
      options.report = value.str();
    } else if (name == "timeline") {
      options.timeline = value.str();
    } else if (name == "device") {
      if (value == "list") {
        for (StringRef device : builtinDeviceNames())
          llvm::outs() << llvm::left_justify(device, 10)
                       << builtinDeviceDescription(device) << "\n";
        llvm::outs() << llvm::left_justify("FILE.json", 10)
                     << "a user profile (docs/cost-model.md)\n";
        std::exit(0);
      }
      llvm::Expected<DeviceProfile> device = parseDeviceProfile(value);
      if (!device)
        usageError("--device: " + llvm::toString(device.takeError()));
      options.device = std::move(*device);
      options.pipeline.device = value.str();
    } else if (name == "remat-time-limit") {
      double seconds;
      if (value.getAsDouble(seconds) || !(seconds > 0))
        usageError("--remat-time-limit expects a positive number of "
                   "seconds, got '" + value + "'");
      options.pipeline.rematTimeLimit = seconds;
    } else if (name == "budget") {
      llvm::Expected<uint64_t> budget = parseByteSize(value);
      if (!budget)
        usageError("--budget: " + llvm::toString(budget.takeError()));
      options.budget = *budget;
      options.pipeline.budget = *budget;
    }
  }
  if (options.input.empty())
    usageError("no input model (usage: memopt-compile model.onnx -o BIN)");
  bool cudaTarget = options.pipeline.target == Backend::cuda;
  if (!seen.contains("device"))
    options.device = *builtinDeviceProfile(defaultDeviceName(cudaTarget));
  // An optimizer's hyperparameter given for another optimizer would do
  // nothing: refuse it rather than train with something else than asked.
  bool sgd = options.pipeline.optimizer == tg::OptimizerKind::sgd;
  for (StringRef flag : {"momentum", "dampening", "nesterov"})
    if (!sgd && seen.contains(flag))
      usageError("--" + flag + " is an SGD option; --optimizer=" +
                 (options.pipeline.optimizer == tg::OptimizerKind::adam
                      ? "adam"
                      : "adamw") +
                 " does not use it (drop it, or use --optimizer=sgd)");
  for (StringRef flag : {"beta1", "beta2", "eps"})
    if (sgd && seen.contains(flag))
      usageError("--" + flag + " is an Adam/AdamW option; --optimizer=sgd "
                 "does not use it (drop it, or use --optimizer=adam or "
                 "adamw)");
  bool amp = options.pipeline.amp != tg::AmpMode::none;
  for (StringRef flag : {"amp-fp32-ops", "amp-low-ops"})
    if (!amp && seen.contains(flag))
      usageError("--" + flag + " edits the precision table of --amp: give "
                 "--amp=bf16 or --amp=fp16 with it");
  if (amp) {
    llvm::Expected<tg::AmpPolicy> policy = tg::AmpPolicy::build(
        options.pipeline.ampFp32Ops, options.pipeline.ampLowOps);
    if (!policy)
      usageError("--amp: " + llvm::toString(policy.takeError()));
  }
  // bf16 needs bf16 arithmetic on the GPU (Ampere and later); a --device
  // profile without it (rtx2060: Turing) is a GPU the bf16 step cannot
  // run on. fp16 runs on every CUDA GPU.
  if (options.pipeline.amp == tg::AmpMode::bf16 &&
      options.pipeline.target == Backend::cuda &&
      options.device.bf16Flops == 0)
    usageError("--amp=bf16 --target=cuda: the --device profile '" +
               options.device.name +
               "' has no bf16 support (bf16 needs an Ampere or newer GPU): "
               "use --amp=fp16, or a --device with bf16 (a100-40g, h100, "
               "or bf16=FLOPS)");
  // --remat=optimal fits the budget by recomputing alone (or fails), so
  // tg-offload after it would find nothing to do: the flag would be silent.
  if (options.pipeline.remat == "optimal" && options.pipeline.offload != "none")
    usageError("--offload=auto --remat=optimal: the MILP plans recomputation only; use "
               "--remat=auto --offload=auto (joint keep/recompute/offload) "
               "or drop --offload");
  if (llvm::Error error =
          checkTrainingPipelineOptions(options.pipeline, options.device))
    usageError(llvm::toString(std::move(error)));
  // Lean workspaces are a choice of tg-remat's greedy, on cuDNN only.
  if (options.pipeline.leanWorkspaces &&
      (options.pipeline.remat != "auto" ||
       options.pipeline.target != Backend::cuda))
    usageError("--workspaces=lean lets --remat=auto shrink cuDNN's "
               "convolution workspaces: give --remat=auto --target=cuda "
               "with it (oneDNN's cpu scratchpads are exact), or drop it");
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
  if (options.pipeline.zero && options.pipeline.dataParallel <= 1)
    usageError("--zero=1 shards the optimizer state over data-parallel "
               "replicas: give --data-parallel=N with N > 1");
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
  // A plan for the GPU needs no CUDA toolkit; a binary does.
  if (options.pipeline.target == Backend::cuda && !options.planOnly &&
      !config::kHaveCudaRuntime)
    usageError("--target=cuda: this memopt was built without the CUDA "
               "runtime (CMake found no CUDA toolkit with cuDNN); rebuild "
               "memopt on a machine with them, use --target=cpu, or plan "
               "only (--plan-only)");
  // The step's name in the generated program and the files it writes.
  options.pipeline.modelName = llvm::sys::path::stem(options.input).str();
  if (cudaTarget && !seen.contains("device"))
    llvm::errs() << "memopt-compile: note: --target=cuda without --device "
                    "plans and prices for "
                 << describeDeviceProfile(options.device)
                 << ", the CUDA default; give --device=NAME (see "
                    "--device=list) for another GPU\n";
}

/// Writes `text` to `path`; reports and fails on an I/O error.
LogicalResult writeFile(StringRef path,
                        llvm::function_ref<void(raw_ostream &)> write) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (!error) {
    write(os);
    os.close();
    error = os.error();
  }
  if (error) {
    llvm::errs() << "memopt-compile: error: cannot write '" << path
                 << "': " << error.message() << "\n";
    return failure();
  }
  return success();
}

/// The assembly file that embeds the ONNX model (docs/contract.md: the
/// binary carries the model it writes the trained weights into).
std::string embeddingAssembly(StringRef modelPath) {
  std::string quoted;
  for (char c : modelPath) {
    if (c == '"' || c == '\\')
      quoted.push_back('\\');
    quoted.push_back(c);
  }
  std::string sym = kOnnxModelSymbol.str();
  std::string size = kOnnxModelSizeSymbol.str();
  return "// The ONNX model, embedded by memopt-compile.\n"
         "  .section .rodata\n"
         "  .balign 64\n"
         "  .globl " + sym + "\n" + sym + ":\n"
         "  .incbin \"" + quoted + "\"\n" + sym + "_end:\n"
         "  .balign 8\n"
         "  .globl " + size + "\n" + size + ":\n"
         "  .quad " + sym + "_end - " + sym + "\n"
         "  .section .note.GNU-stack,\"\",@progbits\n";
}

/// The temporary directory of the run, for removeTemporaryDirectory.
char temporaryDirectory[PATH_MAX];

/// Called by LLVM's signal handler on an interrupt (SIGINT, SIGTERM,
/// SIGHUP), after it removed the registered files and restored the default
/// handlers: removes the emptied temporary directory (rmdir is
/// async-signal-safe) and ends the process as an interrupt does.
void removeTemporaryDirectory() {
  ::rmdir(temporaryDirectory);
  ::raise(SIGINT);
}

/// Runs `command`; on failure prints its output (captured in `logPath`).
bool runCompiler(ArrayRef<std::string> command, StringRef logPath,
                 std::string &output) {
  SmallVector<StringRef> args(command.begin(), command.end());
  std::optional<StringRef> redirects[] = {std::nullopt, logPath, logPath};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(command.front(), args, std::nullopt,
                                         redirects, 0, 0, &message);
  if (auto log = llvm::MemoryBuffer::getFile(logPath))
    output = (*log)->getBuffer().str();
  if (!message.empty())
    output += message + "\n";
  return status == 0;
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
                          const StepEstimate &estimate,
                          ArrayRef<StageEstimate> stages, uint64_t arenaBytes,
                          StringRef schedule, const PhaseTimes &phases,
                          const ONNXImportSummary &imported,
                          std::chrono::steady_clock::time_point start) {
  if (options.report.empty())
    return success();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::json::Object report = compileReport(estimate, arenaBytes, schedule,
                                            options.budget, seconds);
  addStagesToReport(report, stages);
  if (unsigned m = options.pipeline.microbatches; m > 1)
    if (llvm::json::Object *strategy = report.getObject("strategy")) {
      (*strategy)["microbatches"] = static_cast<int64_t>(m);
      if (options.pipeline.stages > 1)
        (*strategy)["pipeline_schedule"] = options.pipeline.schedule;
    }
  addRanksToReport(report, stages, estimate.predictedPeakBytes(arenaBytes),
                   options.pipeline.dataParallel, options.pipeline.zero,
                   options.import.batch.value_or(0) *
                       options.pipeline.microbatches);
  addExchangeToReport(report, stages, estimate.exchangeBytes,
                      options.pipeline.dataParallel, options.pipeline.target);
  report["compile_phases"] = phases.toJSON();
  report["import"] = toJSON(imported);
  return outputs.writeReport([&](raw_ostream &os) {
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  });
}

int compile(const Options &options) {
  auto start = std::chrono::steady_clock::now();
  PhaseTimes phases(options.verbose);
  auto phaseStart = PhaseTimes::Clock::now();
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

  // Every output is checked before anything is computed or replaced.
  tool::OutputFiles outputs;
  if (failed(outputs.prepare(options.input, options.output, options.report,
                             options.timeline)))
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
  SmallString<128> dir(options.saveTemps);
  if (dir.empty()) {
    if (llvm::sys::fs::createUniqueDirectory("memopt-compile", dir)) {
      llvm::errs() << "memopt-compile: error: cannot create a temporary "
                      "directory\n";
      return 1;
    }
  } else if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "memopt-compile: error: cannot create '" << dir
                 << "': " << error.message() << "\n";
    return 1;
  }
  bool keep = !options.saveTemps.empty();
  // An interrupted run (Ctrl-C, SIGTERM) leaves no temporary directory:
  // LLVM's handler removes the files registered here, then
  // removeTemporaryDirectory the emptied directory.
  if (!keep && dir.size() < sizeof(temporaryDirectory)) {
    std::memcpy(temporaryDirectory, dir.c_str(), dir.size() + 1);
    llvm::sys::SetInterruptFunction(removeTemporaryDirectory);
  }
  auto tempPath = [&](StringRef name) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    if (!keep)
      llvm::sys::RemoveFileOnSignal(path);
    return path.str().str();
  };
  llvm::scope_exit cleanup([&] {
    if (!keep)
      llvm::sys::fs::remove_directories(dir);
  });

  // The pipeline of memopt-opt --memopt-training-pipeline, phase by phase,
  // so that the IR between phases can be kept and the planned step
  // estimated before it is lowered.
  auto runPhase =
      [&](llvm::function_ref<void(OpPassManager &)> build, StringRef saveAs) {
        PassManager pm(&context);
        phases.instrument(pm);
        build(pm);
        LogicalResult result = pm.run(*module);
        phases.printNew();
        if (failed(result))
          return failure();
        // Printed as memopt-opt prints it, so that the two compare.
        if (keep && failed(writeFile(tempPath((modelName + saveAs).str()),
                                     [&](raw_ostream &os) {
                                       module->print(os);
                                       os << "\n";
                                     })))
          return failure();
        return success();
      };
  if (failed(runPhase(
          [&](OpPassManager &pm) {
            buildTrainingStepPipeline(pm, options.pipeline);
          },
          ".step.mlir")))
    return 1;
  std::string stepName =
      (*module->getOps<func::FuncOp>().begin()).getSymName().str();
  // Predictions on the final schedule and memory plan, taken by
  // tg-plan-memory's hook while the step is still in tg ops (it becomes
  // mbuf buffers right after): the step's, or with --stages each stage's
  // (tg-partition's functions of the step) and the worst one's.
  FailureOr<StepEstimate> estimate = failure();
  std::string schedule = "given";
  SmallVector<StageEstimate> stageEstimates;
  uint64_t worstStagePeak = 0;
  auto estimateStep = [&](func::FuncOp step, const StepArenaPlan &plan) {
    StageAttr stage = getDecision<StageAttr>(step);
    if (stage ? !stage.getOf() || stage.getOf().getValue() != stepName
              : step.getSymName() != stepName)
      return success();
    auto estimateStart = PhaseTimes::Clock::now();
    FailureOr<StepEstimate> current =
        StepEstimate::compute(step, plan.plan);
    phases.addNested("estimate", "plan", PhaseTimes::since(estimateStart));
    if (failed(current))
      return failure();
    uint64_t peak = current->predictedPeakBytes(plan.plan.totalBytes());
    if (stage)
      stageEstimates.push_back(StageEstimate::of(step, peak,
                                                 plan.plan.totalBytes()));
    if (succeeded(estimate) && peak <= worstStagePeak)
      return success();
    worstStagePeak = peak;
    if (ScheduleAttr decision = getDecision<ScheduleAttr>(step))
      schedule = decision.getStrategy().str();
    estimate = std::move(current);
    return success();
  };
  if (failed(runPhase(
          [&](OpPassManager &pm) {
            buildMemoryPlanPipeline(pm, options.pipeline, estimateStep);
          },
          ".planned.mlir")))
    return 1;
  if (failed(estimate)) {
    llvm::errs() << "memopt-compile: error: the module has no @train_step "
                    "to estimate\n";
    return 1;
  }
  // The lowering fixes the program's arena: the larger of the training and
  // evaluation steps' plans (CUDA: with the constants after them). It takes
  // a fraction of a second, so --plan-only runs it too. With stages the
  // worst stage's own arena counts (each process holds one stage); their
  // lowering runs for a binary only.
  uint64_t arenaBytes = 0;
  if (!stageEstimates.empty()) {
    for (const StageEstimate &stage : stageEstimates)
      if (stage.predictedPeakBytes == worstStagePeak)
        arenaBytes = stage.arenaBytes;
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
      (keep && failed(writeFile(tempPath(modelName + ".timeline.svg"),
                                writeTimeline))))
    return 1;
  if (options.verbose)
    estimate->printDecisions(llvm::errs());
  if (options.planOnly) {
    llvm::outs() << "memopt-compile: predicted peak " << peak << " bytes ("
                 << formatBytes(peak) << "), arena " << arenaBytes
                 << " bytes (" << formatBytes(arenaBytes) << ")\n";
    if (failed(writeReport(options, outputs, *estimate, stageEstimates, arenaBytes, schedule, phases, imported,
                           start)))
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
  std::string cppPath = tempPath(modelName + (cuda ? ".cu" : ".cpp"));
  std::string asmPath = tempPath(modelName + ".model.S");
  phaseStart = PhaseTimes::Clock::now();
  LogicalResult translated = success();
  if (failed(writeFile(cppPath, [&](raw_ostream &os) {
        translated = emitc::translateToCpp(*module, os);
      })) ||
      failed(translated))
    return 1;
  // The binary writes its trained weights into the model as memopt trains
  // it: the file itself, or the importer's normalized copy of it (external
  // data read in, merged initializers untied).
  SmallString<128> modelPath(options.input);
  if (!imported.normalizedModel.empty()) {
    modelPath = tempPath(modelName + ".model.onnx");
    if (failed(writeFile(std::string(modelPath), [&](raw_ostream &os) {
          os << imported.normalizedModel;
        })))
      return 1;
  }
  llvm::sys::fs::make_absolute(modelPath);
  if (failed(writeFile(asmPath, [&](raw_ostream &os) {
        os << embeddingAssembly(modelPath);
      })))
    return 1;
  phases.add("emission", PhaseTimes::since(phaseStart));

  if (!options.compileOnly && !config::kHaveTrainer) {
    keep = true;
    llvm::errs() << "memopt-compile: error: this memopt was built without "
                    "the trainer (MemoptRuntimeHost), so it cannot link a "
                    "training binary; -c compiles the step only. Sources "
                    "kept in "
                 << dir << "\n";
    return 1;
  }
  // The step compiles to an object (-c: the output), which the C++
  // compiler then links with the runtime. The generated C++ only declares
  // views and calls the runtime's kernels, which are optimized in the
  // prebuilt runtime libraries: -O0 compiles it in time linear in its
  // (bounded) functions, several times faster than -O1 (densenet121: 9 s
  // against 65 s of CPU), and changes no result. nvcc's -O is the host
  // code's level too; the generated CUDA kernels are optimized whatever it
  // is (device optimization is on without -G). Without FMA contraction
  // they round every operation as the CPU backend and the runtime's own
  // kernels do.
  std::vector<std::pair<std::string, std::vector<std::string>>> commands;
  std::string include = std::string("-I") + config::kRuntimeIncludeDir;
  std::string objectPath =
      options.compileOnly ? outputs.binaryPath() : tempPath(modelName + ".o");
  if (cuda) {
    std::vector<std::string> nvcc = {config::kNvcc, "-O0", "-std=c++17",
                                     "--fmad=false", include};
    for (const char *const *flag = config::kCudaGencode; *flag; ++flag)
      nvcc.push_back(*flag);
    nvcc.insert(nvcc.end(), {"-c", cppPath, "-o", objectPath});
    commands.emplace_back("nvcc", std::move(nvcc));
  } else {
    commands.emplace_back(
        "compile", std::vector<std::string>{config::kCxxCompiler, "-O0",
                                            "-std=c++17", include, "-c",
                                            cppPath, "-o", objectPath});
  }
  if (!options.compileOnly) {
    std::vector<std::string> link = {config::kCxxCompiler, objectPath,
                                     asmPath, "-o", outputs.binaryPath()};
    // A multi-process main (stageMain) and MPI come first: they call the
    // trainer.
    if (options.pipeline.stages > 1 || options.pipeline.dataParallel > 1)
      for (const char *const *item = cuda ? config::kCudaExchangeLinkItems
                                          : config::kMpiLinkItems;
           *item; ++item)
        link.push_back(*item);
    for (const char *const *item = cuda ? config::kCudaRuntimeLinkItems
                                        : config::kRuntimeLinkItems;
         *item; ++item)
      link.push_back(*item);
    commands.emplace_back("link", std::move(link));
  }
  for (const auto &[phase, command] : commands) {
    phaseStart = PhaseTimes::Clock::now();
    std::string compilerOutput;
    if (!runCompiler(command, tempPath("compiler.log"), compilerOutput)) {
      keep = true;
      llvm::errs() << "memopt-compile: error: the generated C++ failed to "
                      "compile (memopt bug); sources kept in "
                   << dir << "\n"
                   << llvm::join(command, " ") << "\n"
                   << compilerOutput;
      return 1;
    }
    phases.add(phase, PhaseTimes::since(phaseStart));
  }

  outputs.binaryWritten();
  if (failed(writeReport(options, outputs, *estimate, stageEstimates, arenaBytes, schedule, phases, imported,
                         start)))
    return 1;
  return failed(outputs.commit()) ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  Options options;
  parseOptions(argc, argv, options);
  return compile(options);
}
