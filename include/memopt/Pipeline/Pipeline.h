//===- Pipeline.h - The training pipeline as a library ----------*- C++ -*-===//
//
// The passes that turn an imported model into a planned, lowered training
// step, in order, with one options struct. `memopt-opt
// --memopt-training-pipeline='...'` and `memopt-compile` both build it
// here, so that memopt-opt reproduces what memopt-compile lowers
// (docs/architecture.md#the-training-pipeline):
//
//   memopt-set-target -> tg-amp (amp != none) -> tg-autodiff
//     -> canonicalize -> tg-recompute-casts (amp != none)
//     -> (cuda) tg-fuse-elementwise                              training step
//   -> tg-annotate-workspaces -> tg-partition (stages > 1)
//     -> tg-microbatch (microbatches > 1) -> tg-data-parallel (data-parallel > 1)
//     -> tg-remat (strategy != none) -> tg-schedule
//     -> tg-offload (offload != none)
//     -> tg-plan-memory (offsets recorded as attributes)        memory plan
//   -> convert-tg-to-mbuf (buffers at the recorded places)     buffers
//   -> convert-tg-to-emitc (reads only mbuf)                   lowering
//
// memopt-compile estimates the step (ModuleEstimate.h) between the memory
// plan and the buffers, on the tg ops and the plan recorded on them.
//
// TrainingPipelineOptions::verify holds every rule of the options; both
// memopt-compile (after parsing its flags into the struct with
// parseFromString, as memopt-opt does) and the memopt-training-pipeline
// registration call it, so the two accept and refuse the same options.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINE_PIPELINE_H
#define MEMOPT_PIPELINE_PIPELINE_H

#include "memopt/Analysis/DeviceProfile.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

#include <string>

namespace memopt {

struct TrainingPipelineOptions
    : public mlir::PassPipelineOptions<TrainingPipelineOptions> {
  Option<Backend> target{
      *this, "target", llvm::cl::desc("The backend the step runs on"),
      llvm::cl::init(Backend::cpu),
      llvm::cl::values(
          clEnumValN(Backend::cpu, "cpu", "MemoptRuntimeCPU (oneDNN)"),
          clEnumValN(Backend::cuda, "cuda",
                     "MemoptRuntimeCUDA (cuDNN, cuBLAS, fused kernels)"))};

  // tg-autodiff.
  Option<tg::LossKind> loss{
      *this, "loss",
      llvm::cl::desc("The loss of the forward output against the target"),
      llvm::cl::init(tg::LossKind::mse),
      llvm::cl::values(
          clEnumValN(tg::LossKind::mse, "mse", "mean squared error"),
          clEnumValN(tg::LossKind::l1, "l1", "mean absolute error"),
          clEnumValN(tg::LossKind::bce, "bce", "binary cross-entropy"),
          clEnumValN(tg::LossKind::ce, "ce",
                     "per-pixel cross-entropy over the channel axis "
                     "(integer label maps)"),
          clEnumValN(tg::LossKind::dice, "dice", "soft Dice loss"),
          clEnumValN(tg::LossKind::ceDice, "ce+dice",
                     "nnU-Net's cross-entropy plus soft Dice of the "
                     "foreground classes"),
          clEnumValN(tg::LossKind::msssim, "ms-ssim", "1 - MS-SSIM"),
          clEnumValN(tg::LossKind::msssimL1, "ms-ssim+l1",
                     "0.84 (1 - MS-SSIM) + 0.16 L1"),
          clEnumValN(tg::LossKind::graph, "graph",
                     "the forward function's rank-0 first output"))};
  Option<std::string> deepSupervision{
      *this, "deep-supervision",
      llvm::cl::desc("One loss per output against the target downsampled "
                     "to its shape: nnunet, halving or W0,W1,... (empty: "
                     "the single output's loss)"),
      llvm::cl::init("")};
  Option<tg::OptimizerKind> optimizer{
      *this, "optimizer", llvm::cl::desc("The parameter update"),
      llvm::cl::init(tg::OptimizerKind::sgd),
      llvm::cl::values(
          clEnumValN(tg::OptimizerKind::sgd, "sgd", "torch.optim.SGD"),
          clEnumValN(tg::OptimizerKind::adam, "adam", "torch.optim.Adam"),
          clEnumValN(tg::OptimizerKind::adamw, "adamw",
                     "torch.optim.AdamW"))};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(1e-3)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0.0)};
  Option<double> dampening{*this, "dampening",
                           llvm::cl::desc("SGD dampening"),
                           llvm::cl::init(0.0)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD with Nesterov momentum"),
                        llvm::cl::init(false)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("L2 penalty (SGD, Adam) or decoupled decay (AdamW)"),
      llvm::cl::init(0.0)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Adam beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("Adam epsilon"),
                     llvm::cl::init(1e-8)};
  Option<bool> evalStep{
      *this, "eval-step",
      llvm::cl::desc("Also emit @eval_step (the training binary's "
                     "--val-data needs it)"),
      llvm::cl::init(true)};

  // tg-amp.
  Option<AmpMode> amp{
      *this, "amp",
      llvm::cl::desc("Mixed precision (tg-amp): the forward ops of the "
                     "precision table in bf16 or fp16, f32 master weights"),
      llvm::cl::init(AmpMode::none),
      llvm::cl::values(
          clEnumValN(AmpMode::none, "none", "f32 throughout"),
          clEnumValN(AmpMode::bf16, "bf16", "bfloat16"),
          clEnumValN(AmpMode::fp16, "fp16", "IEEE half precision"))};
  ListOption<std::string> ampFp32Ops{
      *this, "amp-fp32-ops",
      llvm::cl::desc("tg-amp: ops of the precision table to run in fp32")};
  ListOption<std::string> ampLowOps{
      *this, "amp-low-ops",
      llvm::cl::desc("tg-amp: ops of the precision table to run in low "
                     "precision")};

  // tg-remat.
  Option<std::string> remat{
      *this, "remat",
      llvm::cl::desc("Rematerialization strategy: none, sqrt, auto or "
                     "optimal (tg-remat)"),
      llvm::cl::init("none")};
  Option<uint64_t> budget{
      *this, "budget",
      llvm::cl::desc("The predicted peak in bytes that remat=auto, optimal "
                     "and offload=auto fit (0: the device's memory); "
                     "recorded in the #memopt.target"),
      llvm::cl::init(0)};
  Option<double> rematTimeLimit{
      *this, "remat-time-limit",
      llvm::cl::desc("remat=optimal: the seconds CBC may spend on all its "
                     "programs"),
      llvm::cl::init(4.0)};
  Option<bool> leanWorkspaces{
      *this, "lean-workspaces",
      llvm::cl::desc("remat=auto, cuda: tg-remat may give a backward "
                     "convolution its lean workspace (slower) instead of "
                     "recomputing more"),
      llvm::cl::init(false)};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("The device profile that every pass prices on, "
                     "NAME[,KEY=VALUE]... or FILE.json (empty: the "
                     "target's default, cpu or a100-40g); recorded in the "
                     "#memopt.target"),
      llvm::cl::init("")};

  // tg-offload (and tg-remat's joint planner with remat=auto).
  Option<std::string> offload{
      *this, "offload",
      llvm::cl::desc("Offload to host memory: none or auto (tg-offload; "
                     "with remat=auto one planner decides per value keep, "
                     "recompute or offload under budget)"),
      llvm::cl::init("none")};

  // tg-partition.
  Option<unsigned> stages{
      *this, "stages",
      llvm::cl::desc("Pipeline stages (devices) the step is split into "
                     "(tg-partition; 1: none). The lowering of more than "
                     "one is not built yet: use with plan-only"),
      llvm::cl::init(1)};

  // tg-microbatch.
  Option<unsigned> microbatches{
      *this, "microbatches",
      llvm::cl::desc("Microbatches per step (tg-microbatch; 1: none); the "
                     "step is compiled for one microbatch"),
      llvm::cl::init(1)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("tg-microbatch: order of the stages' microbatches, "
                     "gpipe or 1f1b"),
      llvm::cl::init("1f1b")};

  // tg-data-parallel.
  Option<unsigned> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Data-parallel replicas of each stage (tg-data-parallel; "
                     "1: none); the step's batch is one replica's slice"),
      llvm::cl::init(1)};
  Option<bool> zero{
      *this, "zero",
      llvm::cl::desc("tg-data-parallel: shard the optimizer state over the "
                     "replicas (ZeRO stage 1)"),
      llvm::cl::init(false)};

  // convert-tg-to-emitc.
  Option<std::string> modelName{
      *this, "model-name",
      llvm::cl::desc("The model's name in the generated program (default: "
                     "the stem of the module's tg.onnx_model)"),
      llvm::cl::init("")};
  Option<std::string> weightsFile{
      *this, "weights-file",
      llvm::cl::desc("The ONNX file the binary reads its initial weights "
                     "from: a name beside the binary, or an absolute path "
                     "(empty: the binary needs --weights)"),
      llvm::cl::init("")};
  Option<unsigned> maxCallsPerFunction{
      *this, "max-calls-per-function",
      llvm::cl::desc("Split a step of more kernel calls into part functions "
                     "of at most this many (0: never split)"),
      llvm::cl::init(128)};

  Option<bool> planOnly{
      *this, "plan-only",
      llvm::cl::desc("Stop after the memory plan (no lowering)"),
      llvm::cl::init(false)};

  /// The tg-autodiff options these stand for.
  tg::AutodiffOptions autodiffOptions() const;

  /// How verify() names an option: as memopt-compile's flag
  /// (`--remat=optimal`) or as this struct's option (`remat=optimal`).
  enum class Spelling { flag, option };

  /// Refuses, with a one-line message that names the option to change,
  /// every value and combination the pipeline refuses or that would do
  /// nothing: values out of range (lr, betas, counts, strategies, the
  /// device profile), an optimizer's hyperparameter given for another
  /// optimizer, amp's tables without amp or with an unknown op, bf16 on a
  /// cuda device without bf16, remat=optimal with offload, fp16 with a loss
  /// of several terms, offload without a host link, lean workspaces outside
  /// remat=auto on cuda, a schedule without stages and microbatches, zero
  /// without replicas. memopt-compile and the memopt-training-pipeline
  /// registration both call it, so they accept and refuse the same
  /// options. "Given" rules read Option::hasValue(), which parsing
  /// (parseFromString) and assignment set and a default does not.
  llvm::Error verify(Spelling spelling = Spelling::option) const;
};

/// memopt-set-target, tg-amp (unless amp=none), tg-autodiff, canonicalize,
/// and on cuda tg-fuse-elementwise: the whole training step in tg ops.
void buildTrainingStepPipeline(mlir::OpPassManager &pm,
                               const TrainingPipelineOptions &options);

/// tg-annotate-workspaces, tg-partition (stages > 1), tg-microbatch
/// (microbatches > 1), tg-data-parallel
/// (data-parallel > 1), tg-remat (unless remat=none), tg-schedule,
/// tg-offload (unless offload=none) and
/// tg-plan-memory: the op order and the static memory plan, recorded on
/// the tg ops (what memopt-compile estimates).
void buildMemoryPlanPipeline(mlir::OpPassManager &pm,
                             const TrainingPipelineOptions &options);

/// convert-tg-to-mbuf: the step in mbuf buffers at the plan's places.
void buildBufferPipeline(mlir::OpPassManager &pm);

/// convert-tg-to-emitc: the planned step as EmitC, for emitc::translateToCpp.
void buildLoweringPipeline(mlir::OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// The four in order (without the lowering under plan-only).
void buildTrainingPipeline(mlir::OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// Registers `memopt-training-pipeline`, which refuses the options that
/// TrainingPipelineOptions::verify refuses.
void registerTrainingPipeline();

} // namespace memopt

#endif // MEMOPT_PIPELINE_PIPELINE_H
