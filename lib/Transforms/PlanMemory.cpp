//===- PlanMemory.cpp - The tg-plan-memory pass ----------------------------===//
//
// Runs ArenaPlan over the MemorySimulator of the function's final op order
// (planStepArena) and records the plan on the function and its ops
// (recordStepArenaPlan), where convert-tg-to-mbuf reads it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGDialect.h"

namespace memopt {
#define GEN_PASS_DEF_PLANMEMORY
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class PlanMemoryPass : public memopt::impl::PlanMemoryBase<PlanMemoryPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    FailureOr<TargetAttr> target;
    if (failed(checkOneBlock(function, "tg-plan-memory")) ||
        failed(target = lookupTarget(function, "tg-plan-memory")))
      return signalPassFailure();
    ArenaPlan plan = planStepArena(function, target->getInPlace()).plan;
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
    recordStepArenaPlan(function, plan);
  }
};

} // namespace
