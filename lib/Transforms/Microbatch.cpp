//===- Microbatch.cpp - Microbatches and pipeline schedules ---------------===//
//
// tg-microbatch (docs/passes/microbatch.md): each step (or each stage of a
// partitioned step) takes the whole batch and runs its forward and
// backward once per microbatch, in the order of a static schedule
// (PipelineSchedule.h), then updates the weights once:
//   - ops that read no batch data (constants, weight casts, a parameter sent
//     to another stage) run once, first;
//   - ops that read batch data run once per microbatch: the forward and the
//     backward of microbatch k are clones reading slice k of the input and
//     the target; a stage's transfers of microbatch k get tag
//     tag + k * (the step's number of tags);
//   - the copies meet where the step ends: a value an optimizer update
//     reads (a gradient) is the mean of its copies, summed in microbatch
//     order as each backward ends; the loss is their mean, a batch output
//     their concatenation; BatchNorm's running statistics are chained
//     through the copies (copy k reads copy k-1's), so they are updated
//     once per microbatch;
//   - the optimizer updates and what follows them run once, last.
// The memory plan then sees every stashed activation of the microbatches
// in flight and the running sums, so it plans them as they are. This file
// groups the functions of each step and records both schedules' peaks;
// the rewrite is MicrobatchRewrite.cpp.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "MicrobatchRewrite.h"
#include "memopt/Planning/PredictedPeak.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

namespace memopt {
#define GEN_PASS_DEF_MICROBATCH
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class MicrobatchPass : public memopt::impl::MicrobatchBase<MicrobatchPass> {
public:
  using MicrobatchBase::MicrobatchBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (microbatches == 0 || microbatches > kMaxMicrobatches)
      return emitError(UnknownLoc::get(context))
             << "tg-microbatch: microbatches must be in [1, "
             << kMaxMicrobatches << "], got " << microbatches.getValue();
    std::optional<PipelineSchedule> parsed = parsePipelineSchedule(schedule);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << "tg-microbatch: unknown schedule '" << schedule
             << "' (expected gpipe or 1f1b)";
    chosen = *parsed;
    return success();
  }

  void runOnOperation() override;

private:
  /// Rewrites `funcs` for `schedule`; their simulated peaks when `peaks`.
  LogicalResult rewrite(ArrayRef<func::FuncOp> funcs, bool training,
                        PipelineSchedule schedule, bool inPlace, bool cuda,
                        SmallVector<uint64_t> *peaks) {
    MicrobatchRewrite rewriter{microbatches, schedule, training};
    if (failed(rewriter.run(funcs)))
      return failure();
    numClonedOps += rewriter.clonedOps;
    numAccumulations += rewriter.accumulations;
    numPostponedSends += rewriter.postponedSends;
    if (peaks)
      for (func::FuncOp func : funcs)
        peaks->push_back(simulatedPredictedPeak(func, inPlace, cuda));
    return success();
  }

  PipelineSchedule chosen = PipelineSchedule::OneFOneB;
};

void MicrobatchPass::runOnOperation() {
  if (microbatches <= 1)
    return;
  ModuleOp module = getOperation();
  // The functions of each step: its stages in order, or the step alone.
  llvm::MapVector<StringRef, SmallVector<std::pair<int64_t, func::FuncOp>>>
      steps;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // A middle stage reads no batch data, only what the others send.
    StageAttr stage = getDecision<StageAttr>(func);
    if (!stage &&
        !llvm::any_of(llvm::seq(0u, func.getNumArguments()),
                      [&](unsigned i) { return isBatchArgument(func, i); }))
      continue;
    if (stage && stage.getOf())
      steps[stage.getOf().getValue()].push_back({stage.getIndex(), func});
    else
      steps[func.getSymName()].push_back({0, func});
  }
  Builder attrs(module.getContext());
  for (auto &[name, members] : steps) {
    llvm::sort(members, llvm::less_first());
    SmallVector<func::FuncOp> funcs =
        llvm::to_vector(llvm::make_second_range(members));
    FailureOr<TargetAttr> target = lookupTarget(funcs.front(), "tg-microbatch");
    if (failed(target))
      return signalPassFailure();
    bool inPlace = target->getInPlace();
    bool cuda = target->getBackend() == Backend::cuda;
    bool training = llvm::any_of(funcs, [](func::FuncOp func) {
      return llvm::any_of(func.getBody().front(), [](Operation &op) {
        return isOptimizerUpdate(&op);
      });
    });
    if (!training || funcs.size() == 1) {
      if (failed(rewrite(funcs, training, chosen, inPlace, cuda, nullptr)))
        return signalPassFailure();
      continue;
    }
    // Pipeline stages: each stage's simulated peak under both schedules,
    // the other one's on copies.
    PipelineSchedule other = chosen == PipelineSchedule::GPipe
                                 ? PipelineSchedule::OneFOneB
                                 : PipelineSchedule::GPipe;
    SmallVector<func::FuncOp> trial = llvm::map_to_vector(
        funcs, [](func::FuncOp func) { return func.clone(); });
    SmallVector<uint64_t> otherPeaks, chosenPeaks;
    LogicalResult tried =
        rewrite(trial, training, other, inPlace, cuda, &otherPeaks);
    for (func::FuncOp func : trial)
      func.erase();
    if (failed(tried) ||
        failed(rewrite(funcs, training, chosen, inPlace, cuda, &chosenPeaks)))
      return signalPassFailure();
    for (auto [s, func] : llvm::enumerate(funcs)) {
      uint64_t mine = chosenPeaks[s], theirs = otherPeaks[s];
      bool gpipe = chosen == PipelineSchedule::GPipe;
      MicrobatchAttr decision = getDecision<MicrobatchAttr>(func);
      setDecision(func,
                  MicrobatchAttr::get(
                      module.getContext(), decision.getMicrobatches(),
                      decision.getInFlight(), decision.getOrder(),
                      decision.getSchedule(), gpipe ? mine : theirs,
                      gpipe ? theirs : mine));
    }
  }
}

} // namespace
