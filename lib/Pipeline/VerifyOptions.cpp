//===- VerifyOptions.cpp - The rules of the training pipeline's options ---===//
//
// TrainingPipelineOptions::verify: every value and combination of options
// that the pipeline refuses, in one place, so that memopt-compile and
// memopt-opt --memopt-training-pipeline accept and refuse the same ones
// (CIRCT's FirtoolOptions pattern). Messages are one line, cause and fix,
// with the options spelled as the caller takes them.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/Pipeline.h"

#include "memopt/Transforms/AmpPolicy.h"
#include "memopt/Runtime/OptionRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace memopt;

namespace {

// The ranges torch.optim accepts (it checks the same ones), finite.
bool isFiniteNonNegative(double v) { return std::isfinite(v) && v >= 0.0; }
bool isFinite(double v) { return std::isfinite(v); }
bool isBeta(double v) { return v >= 0.0 && v < 1.0; }
bool isPositive(double v) { return v > 0.0; }

/// `value` as a message quotes it (%g: '0.001', 'inf', '-1e-08').
std::string quote(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return "'" + text + "'";
}

} // namespace

llvm::Error TrainingPipelineOptions::verify(Spelling spelling) const {
  // "--" before each option for memopt-compile's flags, nothing for the
  // pipeline's options; {0} in every message below.
  StringRef dash = spelling == Spelling::flag ? "--" : "";
  auto error = [&](const char *format, auto &&...args) {
    return llvm::createStringError(
        llvm::formatv(format, dash, std::forward<decltype(args)>(args)...)
            .str());
  };

  // Values, in the order of the options.
  if (!deepSupervision.empty()) {
    std::string why;
    if (!tg::parseDeepSupervision(deepSupervision, why))
      return error("{0}{1}", why);
  }
  struct Real {
    StringRef name;
    double value;
    bool (*valid)(double);
    StringRef rule;
  };
  for (const Real &real :
       {Real{"lr", lr, rt::isValidLearningRate, rt::kLearningRateRule},
        Real{"momentum", momentum, isFiniteNonNegative, "a finite number >= 0"},
        Real{"dampening", dampening, isFinite, "a finite number"},
        Real{"weight-decay", weightDecay, isFiniteNonNegative,
             "a finite number >= 0"},
        Real{"beta1", beta1, isBeta, "in [0, 1)"},
        Real{"beta2", beta2, isBeta, "in [0, 1)"},
        Real{"eps", eps, isFiniteNonNegative, "a finite number >= 0"}})
    if (!real.valid(real.value))
      return error("{0}{1} must be {2}, got {3}", real.name, real.rule,
                   quote(real.value));
  if (!llvm::is_contained({"none", "sqrt", "auto", "optimal"}, remat))
    return error("{0}remat must be none, sqrt, auto or optimal, got '{1}'",
                 StringRef(remat));
  if (!isPositive(rematTimeLimit))
    return error("{0}remat-time-limit expects a positive number of seconds, "
                 "got {1}",
                 quote(rematTimeLimit));
  // Without a device, the target's default profile (cpu or a100-40g).
  std::string deviceSpec =
      device.empty() ? defaultDeviceName(target == Backend::cuda).str()
                     : std::string(device);
  llvm::Expected<DeviceProfile> profile = parseDeviceProfile(deviceSpec);
  if (!profile)
    return error("{0}device: {1}", llvm::toString(profile.takeError()));
  if (llvm::Error tooLarge = verifyBudget(budget, *profile))
    return error("{0}budget: {1}", llvm::toString(std::move(tooLarge)));
  if (!llvm::is_contained({"none", "auto"}, offload))
    return error("{0}offload must be none or auto, got '{1}'",
                 StringRef(offload));
  struct Count {
    StringRef name;
    unsigned value, most;
    StringRef what;
  };
  for (const Count &count :
       {Count{"stages", stages, kMaxStages, "pipeline stages"},
        Count{"microbatches", microbatches, kMaxMicrobatches,
              "microbatches per step"},
        Count{"data-parallel", dataParallel, kMaxDataParallel,
              "data-parallel replicas"}}) {
    if (count.value < 1)
      return error("{0}{1} expects a positive integer, got '{2}'", count.name,
                   count.value);
    if (count.value > count.most)
      return error("{0}{1}={2}: memopt compiles at most {3} {4}; use "
                   "{0}{1}={3} or fewer",
                   count.name, count.value, count.most, count.what);
  }
  if (!llvm::is_contained({"gpipe", "1f1b"}, schedule))
    return error("{0}schedule must be gpipe or 1f1b, got '{1}'",
                 StringRef(schedule));

  // Combinations. An optimizer's hyperparameter given for another
  // optimizer would do nothing: refused rather than train with something
  // else than asked.
  struct Given {
    StringRef name;
    bool given;
  };
  bool sgd = optimizer == tg::OptimizerKind::sgd;
  for (const Given &option : {Given{"momentum", momentum.hasValue()},
                              Given{"dampening", dampening.hasValue()},
                              Given{"nesterov", nesterov.hasValue()}})
    if (!sgd && option.given)
      return error("{0}{1} is an SGD option; {0}optimizer={2} does not use "
                   "it (drop it, or use {0}optimizer=sgd)",
                   option.name,
                   optimizer == tg::OptimizerKind::adam ? "adam" : "adamw");
  for (const Given &option : {Given{"beta1", beta1.hasValue()},
                              Given{"beta2", beta2.hasValue()},
                              Given{"eps", eps.hasValue()}})
    if (sgd && option.given)
      return error("{0}{1} is an Adam/AdamW option; {0}optimizer=sgd does "
                   "not use it (drop it, or use {0}optimizer=adam or adamw)",
                   option.name);
  bool mixed = amp != AmpMode::none;
  for (const Given &option : {Given{"amp-fp32-ops", ampFp32Ops.hasValue()},
                              Given{"amp-low-ops", ampLowOps.hasValue()}})
    if (!mixed && option.given)
      return error("{0}{1} edits the precision table of {0}amp: give "
                   "{0}amp=bf16 or {0}amp=fp16 with it",
                   option.name);
  if (mixed) {
    llvm::Expected<AmpPolicy> policy =
        AmpPolicy::build(ampFp32Ops, ampLowOps);
    if (!policy)
      return error("{0}amp: {1}", llvm::toString(policy.takeError()));
  }
  // bf16 needs bf16 arithmetic on the GPU (Ampere and later); a device
  // profile without it (rtx2060: Turing) is a GPU the bf16 step cannot
  // run on. fp16 runs on every CUDA GPU.
  if (amp == AmpMode::bf16 && target == Backend::cuda &&
      profile->bf16Flops == 0)
    return error("{0}amp=bf16 {0}target=cuda: the {0}device profile '{1}' "
                 "has no bf16 support (bf16 needs an Ampere or newer GPU): "
                 "use {0}amp=fp16, or a {0}device with bf16 (a100-40g, "
                 "h100, or bf16=FLOPS)",
                 profile->name);
  // remat=optimal fits the budget by recomputing alone (or fails), so
  // tg-offload after it would find nothing to do: the option would be
  // silent.
  if (remat == "optimal" && offload != "none")
    return error("{0}offload=auto {0}remat=optimal: the MILP plans "
                 "recomputation only; use {0}remat=auto {0}offload=auto "
                 "(joint keep/recompute/offload) or drop {0}offload");
  // tg-offload times its copies on the host link.
  if (offload != "none" && profile->linkBandwidth <= 0)
    return error("{0}offload={1}: the {0}device profile '{2}' has no host "
                 "link bandwidth to copy over: add link=BYTES/s (e.g. "
                 "{0}device={2},link=12GB/s) or drop {0}offload",
                 StringRef(offload), StringRef(deviceSpec));
  // Lean workspaces are a choice of tg-remat's greedy.
  if (leanWorkspaces && remat != "auto")
    return error("{1} lets {0}remat=auto shrink convolution workspaces "
                 "(slower cuDNN algorithms, oneDNN filter gradients in "
                 "pieces): give {0}remat=auto with it, or drop it",
                 spelling == Spelling::flag ? "--workspaces=lean"
                                            : "lean-workspaces=true");
  // The schedule orders the microbatches of pipeline stages (one process
  // runs them one after another; with one microbatch both orders are one).
  if (schedule.hasValue() && (stages <= 1 || microbatches <= 1))
    return error("{0}schedule orders the microbatches of pipeline stages: "
                 "give {0}stages=N and {0}microbatches=M with N, M > 1, or "
                 "drop it");
  if (zero && dataParallel <= 1)
    return error("{0}zero={1} shards the optimizer state over data-parallel "
                 "replicas: give {0}data-parallel=N with N > 1",
                 spelling == Spelling::flag ? "1" : "true");
  return llvm::Error::success();
}
