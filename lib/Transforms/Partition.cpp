//===- Partition.cpp - Contiguous pipeline stages of a step ---------------===//
//
// tg-partition (docs/passes/partition.md): the cuts (this file) and the
// stage functions they give (StageSplit.h, which says what each stage
// holds). A stage is a range of forward positions; its content, and its
// simulated peak, depends only on its own range.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "MicrobatchRewrite.h"
#include "memopt/Planning/PredictedPeak.h"
#include "StageSplit.h"

#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <limits>
#include <map>

namespace memopt {
#define GEN_PASS_DEF_PARTITION
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

/// The predicted peak and time of one stage.
struct StageCost {
  uint64_t persistentBytes = 0;
  uint64_t peakBytes = 0;
  double seconds = 0;
  uint64_t sendBytes = 0;
  uint64_t peak() const { return peakBytes; }
};

StageCost costOf(func::FuncOp stage, bool inPlace, bool cuda,
                 const CostModel &model, uint64_t sendBytes) {
  StageCost cost;
  cost.persistentBytes = predictedPeak(stage, cuda, /*arenaBytes=*/0);
  // In the order tg-schedule will give the stage, as tg-remat plans it.
  cost.peakBytes = simulatedPredictedPeak(stage, inPlace, cuda);
  for (Operation &op : stage.getBody().front().without_terminator())
    cost.seconds += model.cost(&op).seconds;
  cost.sendBytes = sendBytes;
  return cost;
}

/// Whether `step` returns updated parameters (a training step).
bool updatesParameters(func::FuncOp step) {
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getResultAttr(i, "tg.param"))
      return true;
  return false;
}

/// The cuts that put each forward op reading an owned argument on the
/// stage of `owners` (a training step's, by role and name): cut k at the
/// first forward op that reads an argument owned by stage k or later;
/// nothing when that gives no strictly increasing cuts.
std::optional<SmallVector<unsigned>>
cutsFromOwners(const StepAnchors &anchors, unsigned stages,
               const llvm::StringMap<unsigned> &owners) {
  func::FuncOp step = anchors.step;
  auto ownerOf = [&](Value value) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg)
      return std::nullopt;
    std::optional<NamedAttribute> role =
        roleOf(step.getArgAttrDict(arg.getArgNumber()));
    auto name = role ? dyn_cast<StringAttr>(role->getValue()) : StringAttr();
    if (!name)
      return std::nullopt;
    auto it = owners.find(
        (role->getName().strref() + ":" + name.strref()).str());
    return it == owners.end() ? std::nullopt : std::optional(it->second);
  };
  SmallVector<unsigned> cuts;
  for (unsigned k = 1; k < stages; ++k) {
    std::optional<unsigned> cut;
    for (auto [position, op] : llvm::enumerate(anchors.forward)) {
      if (llvm::any_of(op->getOperands(), [&](Value operand) {
            return ownerOf(operand).value_or(0) >= k;
          })) {
        cut = position;
        break;
      }
    }
    if (!cut || *cut == 0 || (!cuts.empty() && *cut <= cuts.back()))
      return std::nullopt;
    cuts.push_back(*cut);
  }
  return cuts;
}

class PartitionPass : public memopt::impl::PartitionBase<PartitionPass> {
public:
  using PartitionBase::PartitionBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (stages == 0 || stages > kMaxStages)
      return emitError(UnknownLoc::get(context))
             << "tg-partition: stages must be in [1, " << kMaxStages
             << "], got " << stages.getValue();
    if (microbatches == 0 || microbatches > kMaxMicrobatches)
      return emitError(UnknownLoc::get(context))
             << "tg-partition: microbatches must be in [1, "
             << kMaxMicrobatches << "], got " << microbatches.getValue();
    std::optional<PipelineSchedule> parsed = parsePipelineSchedule(schedule);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << "tg-partition: unknown schedule '" << schedule
             << "' (expected gpipe or 1f1b)";
    pipelineSchedule = *parsed;
    return success();
  }

  void runOnOperation() override {
    if (stages == 1)
      return;
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> steps;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal() && !getDecision<StageAttr>(function))
        steps.push_back(function);
    // Training steps first: a step that updates nothing (the evaluation
    // step) then takes their cuts, so that each parameter stays on the
    // stage that owns it.
    std::stable_partition(steps.begin(), steps.end(), updatesParameters);
    llvm::StringMap<unsigned> owners;
    for (func::FuncOp step : steps)
      if (failed(partition(step, owners)))
        return signalPassFailure();
  }

private:
  /// Partitions `step`; a training step records the stage of each argument
  /// it owns in `owners` (by role and name), a step that updates nothing
  /// takes its cuts from them where it can.
  LogicalResult partition(func::FuncOp step,
                          llvm::StringMap<unsigned> &owners);

  PipelineSchedule pipelineSchedule = PipelineSchedule::OneFOneB;
};

LogicalResult PartitionPass::partition(func::FuncOp step,
                                       llvm::StringMap<unsigned> &owners) {
  FailureOr<TargetAttr> target = lookupTarget(step, "tg-partition");
  if (failed(target))
    return failure();
  if (!step.getBody().hasOneBlock())
    return step.emitError("tg-partition: expected a function with one block");
  StepAnchors anchors(step);
  unsigned n = anchors.forward.size();
  unsigned stages = this->stages;
  if (n < stages)
    return emitError(step.getLoc(), "tg-partition: ")
           << stages << " stages need at least " << stages
           << " forward ops; @" << step.getSymName() << " has " << n
           << " (use at most " << std::max(n, 1u) << ")";
  bool inPlace = target->getInPlace();
  bool cuda = target->getBackend() == Backend::cuda;
  CostModel model(target->getDeviceProfile(), workspaceBytes);

  bool training = updatesParameters(step);
  // With microbatches a training stage's cost depends on its place too:
  // the microbatches it holds at once.
  bool pipelined = training && microbatches > 1;
  // The cost of the stage made of forward positions [a, b), as stage k,
  // whatever the other cuts: its content depends on its own range only.
  std::map<std::tuple<unsigned, unsigned, unsigned>, StageCost> memo;
  auto rangeCost = [&](unsigned a, unsigned b,
                       unsigned k) -> const StageCost & {
    if (!pipelined)
      k = 0;
    auto [it, inserted] = memo.try_emplace({a, b, k});
    if (!inserted)
      return it->second;
    auto stageOf = [&](unsigned anchor) -> unsigned {
      return anchor < a ? 0 : anchor < b ? 1 : 2;
    };
    uint64_t sendBytes = 0;
    func::FuncOp stage = StageBuilder(anchors, stageOf)
                             .build(1, "partition_trial", sendBytes);
    if (pipelined) {
      MicrobatchRewrite rewrite{microbatches, pipelineSchedule, true,
                                std::pair(k, stages)};
      // What the rewrite cannot do, tg-microbatch reports on the real
      // stage; the trial is then costed as it is.
      ScopedDiagnosticHandler quiet(step.getContext(),
                                    [](Diagnostic &) { return success(); });
      if (failed(rewrite.run(stage))) {
        stage.erase();
        stage = StageBuilder(anchors, stageOf)
                    .build(1, "partition_trial", sendBytes);
      }
    }
    it->second = costOf(stage, inPlace, cuda, model, sendBytes);
    stage.erase();
    return it->second;
  };
  // Greedy segments under a peak bound and a time bound: each as long as
  // both hold (binary search: a longer range costs at least as much),
  // leaving one forward op for each later stage.
  auto greedy = [&](uint64_t peakBound,
                    double secondsBound) -> std::optional<SmallVector<unsigned>> {
    auto fits = [&](unsigned a, unsigned b, unsigned k) {
      const StageCost &cost = rangeCost(a, b, k);
      return cost.peak() <= peakBound && cost.seconds <= secondsBound;
    };
    SmallVector<unsigned> cuts;
    unsigned a = 0;
    for (unsigned k = 0; k + 1 < stages; ++k) {
      unsigned lo = a + 1, hi = n - (stages - 1 - k);
      if (!fits(a, lo, k))
        return std::nullopt;
      while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        if (fits(a, mid, k))
          lo = mid;
        else
          hi = mid - 1;
      }
      cuts.push_back(lo);
      a = lo;
    }
    if (!fits(a, n, stages - 1))
      return std::nullopt;
    return cuts;
  };
  // The least worst peak, then the least worst time, under greedy cuts.
  auto balancedCuts = [&]() -> FailureOr<SmallVector<unsigned>> {
    const StageCost &whole = rangeCost(0, n, 0);
    double anyTime = std::numeric_limits<double>::infinity();
    uint64_t peakLo = 0, peakHi = 2 * whole.peak() + 1;
    if (!greedy(peakHi, anyTime))
      return emitError(step.getLoc(), "tg-partition: no partition into ")
             << stages << " stages found under twice the unpartitioned peak";
    while (peakLo < peakHi) {
      uint64_t mid = peakLo + (peakHi - peakLo) / 2;
      if (greedy(mid, anyTime))
        peakHi = mid;
      else
        peakLo = mid + 1;
    }
    double timeLo = 0, timeHi = whole.seconds * 2 + 1;
    for (int i = 0; i < 40; ++i) {
      double mid = (timeLo + timeHi) / 2;
      (greedy(peakHi, mid) ? timeHi : timeLo) = mid;
    }
    return *greedy(peakHi, timeHi);
  };
  std::optional<SmallVector<unsigned>> given;
  if (!training)
    given = cutsFromOwners(anchors, stages, owners);
  FailureOr<SmallVector<unsigned>> found =
      given ? FailureOr<SmallVector<unsigned>>(*given) : balancedCuts();
  if (failed(found))
    return failure();
  SmallVector<unsigned> cuts = std::move(*found);

  // The stages, after the step, which they replace.
  SmallVector<unsigned> bounds{0};
  llvm::append_range(bounds, cuts);
  bounds.push_back(n);
  auto stageOf = [&](unsigned anchor) -> unsigned {
    return llvm::upper_bound(cuts, anchor) - cuts.begin();
  };
  StageBuilder builder(anchors, stageOf);
  OpBuilder insert(step);
  OpBuilder attrs(step.getContext());
  Operation *insertAfter = step;
  uint64_t worst = 0;
  for (unsigned s = 0; s < stages; ++s) {
    uint64_t sendBytes = 0;
    func::FuncOp stage = builder.build(
        s, (step.getSymName() + "_stage" + Twine(s)).str(), sendBytes);
    StageCost cost = costOf(stage, inPlace, cuda, model, sendBytes);
    worst = std::max(worst, cost.peak());
    numSendBytes += sendBytes;
    numTransfers += llvm::range_size(
        stage.getBody().front().getOps<tg::SendOp>());
    if (training)
      for (unsigned i = 0, e = stage.getNumArguments(); i < e; ++i)
        if (std::optional<NamedAttribute> role =
                roleOf(stage.getArgAttrDict(i)))
          if (auto name = dyn_cast<StringAttr>(role->getValue()))
            owners[(role->getName().strref() + ":" + name.strref()).str()] =
                s;
    // Its ops keep the step's workspaces, which oneDNN sized for the
    // step's threads: the stage's process must run on as many (without
    // this, a stage ran on OMP_NUM_THREADS, overran the workspaces with
    // more threads and differed from one process with others).
    if (Attribute threads = step->getAttr(kWorkspaceThreadsAttr))
      stage->setAttr(kWorkspaceThreadsAttr, threads);
    setDecision(stage,
                StageAttr::get(attrs.getContext(), s, stages,
                               step.getSymNameAttr(), bounds[s], bounds[s + 1],
                               cost.persistentBytes, cost.peak(),
                               attrs.getF64FloatAttr(cost.seconds), sendBytes));
    insert.setInsertionPointAfter(insertAfter);
    insert.insert(stage);
    insertAfter = stage;
  }
  numWorstPeak = std::max<uint64_t>(numWorstPeak, worst);
  step.erase();
  return success();
}

} // namespace
