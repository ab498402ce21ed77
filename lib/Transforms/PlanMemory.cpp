//===- PlanMemory.cpp - The tg-plan-memory pass ----------------------------===//
//
// Runs ArenaPlan over the MemorySimulator of the function's final op order
// (planStepArena) and converts the step into the mbuf dialect at the
// planned places (convertTGToMBuf).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Conversion/TGToMBuf/TGToMBuf.h"
#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

namespace memopt {
#define GEN_PASS_DEF_PLANMEMORY
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class PlanMemoryPass : public memopt::impl::PlanMemoryBase<PlanMemoryPass> {
public:
  using PlanMemoryBase::PlanMemoryBase;
  explicit PlanMemoryPass(PlanObserver observe) : observe(std::move(observe)) {}

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-plan-memory: expected a function with one "
                         "block");
      return signalPassFailure();
    }
    FailureOr<TargetAttr> target = lookupTarget(function, "tg-plan-memory");
    if (failed(target))
      return signalPassFailure();
    StepArenaPlan planned = planStepArena(function, target->getInPlace());
    const ArenaPlan &plan = planned.plan;
    numArenaBytes = plan.totalBytes();
    for (Operation &op : function.getBody().front().without_terminator()) {
      numSliced += plan.slicedOperands(&op).size();
      for (OpResult result : op.getResults()) {
        if (plan.offset(result))
          ++numArenaValues;
        if (plan.inPlaceOperand(result))
          ++numInPlace;
      }
    }
    if (observe && failed(observe(function, planned)))
      return signalPassFailure();
    // A device backend's kernels cannot read the program's static data.
    if (failed(convertTGToMBuf(function, planned,
                               /*constantsInArena=*/target->getBackend() ==
                                   Backend::cuda)))
      return signalPassFailure();
  }

private:
  PlanObserver observe;
};

} // namespace

std::unique_ptr<Pass> memopt::createPlanMemory(PlanObserver observe) {
  return std::make_unique<PlanMemoryPass>(std::move(observe));
}
