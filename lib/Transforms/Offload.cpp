//===- Offload.cpp - The tg-offload pass ----------------------------------===//
//
// Offload and prefetch: forward values that the backward reads go to host
// memory after their last forward use and come back before their first
// backward use, as asynchronous copies that overlap compute. Runs on the
// scheduled step and keeps its order; the values are those tg-remat's
// joint planner marked, else (strategy=auto) the offload-only choice of
// the same greedy under the budget. The copies' places are
// OffloadPlan.h's. docs/passes/offload.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Planning/OffloadPlan.h"
#include "memopt/Planning/RematPlan.h"

#include "memopt/Analysis/DeviceProfile.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"

namespace memopt {
#define GEN_PASS_DEF_OFFLOAD
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class OffloadPass : public memopt::impl::OffloadBase<OffloadPass> {
public:
  using OffloadBase::OffloadBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (strategy != "none" && strategy != "auto")
      return emitError(UnknownLoc::get(context))
             << "tg-offload: unknown strategy '" << strategy
             << "'; expected none or auto";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-offload: expected a function with one block");
      return signalPassFailure();
    }
    Block &body = function.getBody().front();
    StepPhases phases(function);
    SmallVector<Operation *> forward;
    bool backward = false;
    for (Operation &op : body.without_terminator()) {
      if (phases.phase(&op) == StepPhase::Forward)
        forward.push_back(&op);
      else
        backward = true;
    }
    DenseSet<Operation *> forwardOps(forward.begin(), forward.end());
    auto isForward = [&](Operation *op) { return forwardOps.contains(op); };

    // tg-remat's joint choice, in program order.
    SmallVector<Value> values;
    DenseSet<Value> synchronous;
    for (Operation &op : body.without_terminator()) {
      auto marks = getDecision<OffloadResultsAttr>(&op);
      if (!marks)
        continue;
      removeDecision<OffloadResultsAttr>(&op);
      for (bool waitAtOnce : {false, true})
        for (int64_t index : marks.getNumbers(waitAtOnce)) {
          if (!offload::isOffloadable(op.getResult(index), isForward)) {
            op.emitError("tg-offload: result #")
                << index << " marked by #memopt.offload_results is not a "
                << "forward tensor in the arena that the backward reads";
            return signalPassFailure();
          }
          values.push_back(op.getResult(index));
          if (waitAtOnce)
            synchronous.insert(values.back());
        }
    }
    StringRef planner = values.empty() ? "tg-offload" : "tg-remat";
    // Only a training step has a backward to prefetch for.
    if (!backward || (values.empty() && strategy == "none"))
      return;
    FailureOr<TargetAttr> target = lookupTarget(function, "tg-offload");
    if (failed(target))
      return signalPassFailure();
    DeviceProfile deviceProfile = target->getDeviceProfile();
    CostModel cost(deviceProfile, workspaceBytes);
    if (deviceProfile.linkBandwidth <= 0) {
      function.emitError("tg-offload: device '")
          << deviceProfile.name
          << "' has no host link bandwidth; give one (link=12GB/s)";
      return signalPassFailure();
    }
    Builder b(&getContext());
    // tg-offload's own plan, for #memopt.offload.
    uint64_t budgetBytes = 0, persistent = 0, plannedArenaBytes = 0,
             rounds = 0;
    if (values.empty()) {
      budgetBytes = target->getPeakLimit();
      persistent = remat::bytesBesideArena(
          function, target->getBackend() == Backend::cuda);
      uint64_t arenaTarget =
          budgetBytes > persistent ? budgetBytes - persistent : 0;
      remat::AutoOptions options;
      options.recompute = false;
      options.offload = true;
      options.linkBandwidth = deviceProfile.linkBandwidth;
      options.reschedule = false;
      remat::AutoPlan plan = remat::planAuto(
          function, forward, target->getInPlace(), arenaTarget, cost, options);
      if (!plan.fits) {
        uint64_t smallest = plan.arenaBytes + persistent;
        mlir::emitError(function.getLoc())
            << "tg-offload: the step does not fit "
            << (target->getBudget() ? "--budget=" : "the --device memory of ")
            << budgetBytes << " bytes: the smallest peak offload=auto "
            << "reaches is " << smallest << " bytes (--budget=" << smallest
            << "; --remat=auto recomputes too)";
        return signalPassFailure();
      }
      values = offload::inProgramOrder(plan.offloaded);
      synchronous = std::move(plan.synchronous);
      plannedArenaBytes = plan.arenaBytes;
      rounds = plan.rounds;
    }

    offload::placeOffloads(function, values, synchronous, isForward, cost,
                           deviceProfile.linkBandwidth);
    offload::Timing timing = offload::predictTiming(
        function, cost, deviceProfile.linkBandwidth);
    numOffloaded = timing.values;
    numBytesOffloaded = timing.d2hBytes;
    setDecision(function,
                OffloadAttr::get(
                    &getContext(), b.getStringAttr(planner), budgetBytes,
                    persistent, plannedArenaBytes, rounds, timing.values,
                    synchronous.size(), timing.d2hBytes, timing.h2dBytes,
                    timing.hostBytes,
                    b.getF64FloatAttr(deviceProfile.linkBandwidth),
                    b.getF64FloatAttr(timing.computeSeconds),
                    b.getF64FloatAttr(timing.stallSeconds)));
  }
};

} // namespace
