//===- Pipeline.cpp - The training pipeline as a library ------------------===//
//
// Each build* function appends one phase; memopt-compile runs them as
// separate PassManagers so that it can save the IR between phases
// (--save-temps) and estimate the planned step before converting it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/Pipeline.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace memopt;

tg::AutodiffOptions TrainingPipelineOptions::autodiffOptions() const {
  tg::AutodiffOptions autodiff;
  autodiff.loss = loss;
  autodiff.deepSupervision = deepSupervision;
  autodiff.optimizer = optimizer;
  autodiff.lr = lr;
  autodiff.momentum = momentum;
  autodiff.dampening = dampening;
  autodiff.nesterov = nesterov;
  autodiff.weightDecay = weightDecay;
  autodiff.beta1 = beta1;
  autodiff.beta2 = beta2;
  autodiff.eps = eps;
  autodiff.evalStep = evalStep;
  autodiff.scaledSeed = amp == AmpMode::fp16;
  return autodiff;
}

void memopt::buildTrainingStepPipeline(OpPassManager &pm,
                                       const TrainingPipelineOptions &options) {
  // Set once, first: every later pass reads the module's #memopt.target.
  SetTargetOptions target;
  target.target = stringifyBackend(options.target).str();
  target.device = options.device;
  target.budget = options.budget;
  pm.addPass(createSetTarget(target));
  // Mixed precision on the forward ops, before autodiff: the gradient
  // rules then give every backward op its forward op's type and bring the
  // weight gradients back to f32 through the casts, as autocast does; and
  // before fusion, which groups ops of one type.
  if (options.amp != AmpMode::none) {
    AmpOptions amp;
    amp.mode = options.amp;
    amp.fp32Ops.assign(options.ampFp32Ops.begin(), options.ampFp32Ops.end());
    amp.lowOps.assign(options.ampLowOps.begin(), options.ampLowOps.end());
    pm.addPass(createAmp(amp));
  }
  pm.addPass(tg::createAutodiff(options.autodiffOptions()));
  pm.addPass(createCanonicalizerPass());
  // After canonicalization (whose CSE would merge the recast back): the
  // backward recasts the weights instead of keeping the forward's copies.
  if (options.amp != AmpMode::none)
    pm.addNestedPass<func::FuncOp>(createRecomputeCasts());
  // fp16: a scaled loss, and updates skipped on inf/NaN gradients.
  if (options.amp == AmpMode::fp16)
    pm.addPass(createLossScale());
  // CUDA: one generated kernel per chain of elementwise ops.
  if (options.target == Backend::cuda)
    pm.addNestedPass<func::FuncOp>(tg::createFuseElementwise());
}

void memopt::buildMemoryPlanPipeline(OpPassManager &pm,
                                     const TrainingPipelineOptions &options) {
  // The workspaces first: tg-partition and tg-remat simulate the step with
  // them (their clones copy each op's annotation).
  // With lean workspaces allowed, tg-remat chooses between each op's two.
  AnnotateWorkspacesOptions workspaces;
  workspaces.lean = options.leanWorkspaces && options.remat == "auto";
  pm.addNestedPass<func::FuncOp>(createAnnotateWorkspaces(workspaces));
  // Pipeline stages: one function per device; everything below then runs
  // per stage, so each stage gets its own schedule and memory plan.
  if (options.stages > 1) {
    PartitionOptions partition;
    partition.stages = options.stages;
    partition.microbatches = options.microbatches;
    partition.schedule = options.schedule;
    pm.addPass(createPartition(partition));
  }
  // Microbatches: each step (stage) runs once per microbatch in its
  // schedule, before the replicas average the accumulated gradients.
  if (options.microbatches > 1) {
    MicrobatchOptions microbatch;
    microbatch.microbatches = options.microbatches;
    microbatch.schedule = options.schedule;
    pm.addPass(createMicrobatch(microbatch));
  }
  // Data parallelism: each stage's gradients, running statistics and loss
  // averaged over its replicas (before tg-remat and the schedule, which
  // place the collectives like any other op).
  if (options.dataParallel > 1) {
    DataParallelOptions dataParallel;
    dataParallel.replicas = options.dataParallel;
    dataParallel.zero = options.zero;
    pm.addPass(createDataParallel(dataParallel));
  }
  // Rematerialization, before the schedule (which keeps each recomputed op
  // right before its first user).
  if (options.remat != "none") {
    RematOptions remat;
    remat.strategy = options.remat;
    remat.timeLimit = options.rematTimeLimit;
    remat.leanWorkspaces = options.leanWorkspaces;
    // remat=auto with offload=auto: one greedy decides per value keep,
    // recompute or offload; tg-offload then inserts the marked copies.
    remat.offload = options.remat == "auto" && options.offload == "auto";
    pm.addNestedPass<func::FuncOp>(createRemat(remat));
  }
  pm.addNestedPass<func::FuncOp>(createSchedule());
  // Offload/prefetch, on the scheduled order, whose op times place the
  // copies (docs/passes/offload.md); it plans on its own (offloading only)
  // when tg-remat did not decide.
  if (options.offload != "none") {
    OffloadOptions offload;
    offload.strategy = options.offload;
    pm.addNestedPass<func::FuncOp>(createOffload(offload));
  }
  // Plans each function, recording the plan on its ops.
  pm.addNestedPass<func::FuncOp>(createPlanMemory());
}

void memopt::buildBufferPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertTGToMBuf());
}

void memopt::buildLoweringPipeline(OpPassManager &pm,
                                   const TrainingPipelineOptions &options) {
  ConvertTGToEmitCOptions lowering;
  lowering.modelName = options.modelName;
  lowering.weightsFile = options.weightsFile;
  lowering.maxCallsPerFunction = options.maxCallsPerFunction;
  pm.addPass(createConvertTGToEmitC(lowering));
}

void memopt::buildTrainingPipeline(OpPassManager &pm,
                                   const TrainingPipelineOptions &options) {
  buildTrainingStepPipeline(pm, options);
  buildMemoryPlanPipeline(pm, options);
  buildBufferPipeline(pm);
  if (!options.planOnly)
    buildLoweringPipeline(pm, options);
}

void memopt::registerTrainingPipeline() {
  // PassPipelineRegistration<TrainingPipelineOptions> without a way to
  // refuse parsed options: the same, with verify() between parsing and
  // building.
  registerPassPipeline(
      "memopt-training-pipeline",
      "The training step of an imported model, planned and lowered to "
      "EmitC as memopt-compile does it",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainingPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (llvm::Error error = options.verify())
          return errorHandler("memopt-training-pipeline: " +
                              llvm::toString(std::move(error)));
        buildTrainingPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(TrainingPipelineOptions());
      });
}
