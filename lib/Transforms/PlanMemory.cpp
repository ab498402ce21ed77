//===- PlanMemory.cpp - The tg-plan-memory pass ----------------------------===//
//
// Runs ArenaPlan over the function's final op order (planStepArena) and
// converts the step into the mbuf dialect at the planned places
// (convertTGToMBuf).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Conversion/TGToMBuf/TGToMBuf.h"
#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
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
    WorkspaceTarget backend = *parseWorkspaceTarget(target);
    FailureOr<StepArenaPlan> planned =
        planStepArena(function, backend, queryWorkspaces, inPlace);
    if (failed(planned))
      return signalPassFailure();
    const ArenaPlan &plan = planned->plan;
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
    // A device backend's kernels cannot read the program's static data.
    if (failed(convertTGToMBuf(function, *planned,
                               /*constantsInArena=*/backend ==
                                   WorkspaceTarget::CUDA)))
      return signalPassFailure();
  }
};

} // namespace
