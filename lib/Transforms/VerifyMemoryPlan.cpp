//===- VerifyMemoryPlan.cpp - The tg-verify-memory-plan pass ---------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/MemoryPlan.h"

namespace memopt {
#define GEN_PASS_DEF_VERIFYMEMORYPLAN
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class VerifyMemoryPlanPass
    : public memopt::impl::VerifyMemoryPlanBase<VerifyMemoryPlanPass> {
public:
  void runOnOperation() override {
    if (!getOperation().isExternal() &&
        failed(MemoryPlan::read(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
