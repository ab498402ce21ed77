//===- PlanMemory.cpp - The tg-plan-memory pass ----------------------------===//
//
// Runs ArenaPlan over the MemorySimulator of the function's final op order
// and records the plan as attributes (MemoryPlan::write).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/MemoryPlan.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/Workspace.h"
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
    Block &body = function.getBody().front();
    DenseMap<Operation *, uint64_t> workspaces;
    for (Operation &op : body.without_terminator())
      if (uint64_t bytes = workspaceBytes(&op))
        workspaces[&op] = bytes;
    ArenaPlan plan =
        ArenaPlan::compute(MemorySimulator(function, target->getInPlace()));
    MemoryPlan::write(function, plan, workspaces);

    numArenaBytes = plan.totalBytes();
    for (Operation &op : body.without_terminator()) {
      numSliced += plan.slicedOperands(&op).size();
      for (OpResult result : op.getResults()) {
        if (plan.offset(result))
          ++numArenaValues;
        if (plan.inPlaceOperand(result))
          ++numInPlace;
      }
    }
  }
};

} // namespace
