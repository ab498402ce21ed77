//===- EstimateCost.cpp - The tg-estimate-cost pass -----------------------===//
//
// Makes the cost model visible in the IR: every tg op gets `memopt.cost`,
// the function its totals.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Workspace.h"
#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/Passes.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"

namespace memopt {
#define GEN_PASS_DEF_ESTIMATECOST
#include "memopt/Analysis/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kCostAttr = "memopt.cost";

class EstimateCostPass
    : public memopt::impl::EstimateCostBase<EstimateCostPass> {
public:
  using EstimateCostBase::EstimateCostBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<TargetAttr> target = lookupTarget(func, "tg-estimate-cost");
    if (failed(target))
      return signalPassFailure();
    DeviceProfile profile = target->getDeviceProfile();
    CostModel model(profile, workspaceBytes);
    StepPhases phases(func);

    Builder b(&getContext());
    StepCost total = estimateStepCost(
        func, model, phases,
        [&](Operation *op, const OpCost &cost, StepPhase phase) {
          SmallVector<NamedAttribute> fields = {
              b.getNamedAttr("flops", b.getI64IntegerAttr(cost.flops)),
              b.getNamedAttr("bytes", b.getI64IntegerAttr(cost.bytes())),
              b.getNamedAttr("seconds", b.getF64FloatAttr(cost.seconds)),
              b.getNamedAttr("phase",
                             b.getStringAttr(stringifyStepPhase(phase)))};
          if (cost.workspaceBytes)
            fields.push_back(b.getNamedAttr(
                "workspace", b.getI64IntegerAttr(cost.workspaceBytes)));
          op->setAttr(kCostAttr, b.getDictionaryAttr(fields));
          ++numCostedOps;
        });
    func->setAttr(
        kCostAttr,
        b.getDictionaryAttr({
            b.getNamedAttr("device", b.getStringAttr(profile.name)),
            b.getNamedAttr("forward_flops",
                           b.getI64IntegerAttr(total.flops[0])),
            b.getNamedAttr("backward_flops",
                           b.getI64IntegerAttr(total.flops[1])),
            b.getNamedAttr("optimizer_flops",
                           b.getI64IntegerAttr(total.flops[2])),
            b.getNamedAttr("recompute_flops",
                           b.getI64IntegerAttr(total.recomputeFlops)),
            b.getNamedAttr("bytes", b.getI64IntegerAttr(total.bytes)),
            b.getNamedAttr("seconds", b.getF64FloatAttr(total.totalSeconds())),
        }));
    markAllAnalysesPreserved();
  }
};

} // namespace
