//===- PlanMemory.cpp - The tg-plan-memory pass ----------------------------===//
//
// Runs ArenaPlan over the function's final op order and records the plan
// as attributes (MemoryPlan::write).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/MemoryPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
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

  LogicalResult initialize(MLIRContext *context) override {
    if (!parseWorkspaceTarget(target))
      return emitError(UnknownLoc::get(context))
             << "tg-plan-memory: unknown target '" << target
             << "': expected cpu or cuda";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-plan-memory: expected a function with one "
                         "block");
      return signalPassFailure();
    }
    Block &body = function.getBody().front();
    DenseMap<Operation *, uint64_t> workspaces;
    std::optional<WorkspaceTarget> backend = parseWorkspaceTarget(target);
    if (queryWorkspaces)
      for (Operation &op : body.without_terminator()) {
        FailureOr<uint64_t> bytes = queryWorkspaceBytes(&op, *backend);
        if (failed(bytes))
          return signalPassFailure();
        if (*bytes)
          workspaces[&op] = *bytes;
      }
    DenseMap<Value, unsigned> resultBuffers = resultBufferPlacements(function);
    auto arenaBytes = [&](Value value) -> uint64_t {
      return livesInArena(value, resultBuffers) ? tensorBytes(value) : 0;
    };
    ArenaPlan plan = ArenaPlan::compute(
        function, arenaBytes,
        [&](Operation *op) { return workspaces.lookup(op); }, inPlace);
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
