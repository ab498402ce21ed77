//===- RecomputeCasts.cpp - The tg-recompute-casts pass --------------------===//
//
// The low-precision copies that tg-amp makes of the f32 arguments (the
// master weights, the input) are read by the forward's convolutions and,
// after tg-autodiff, by their data and filter gradients in the backward.
// Kept alive in between they cost 2 bytes per parameter for the whole
// step; recast in the backward they cost nothing between the phases. The
// rewrite is tg-remat's (remat::recompute): one clone per cast, right
// before its first backward reader. docs/passes/recompute-casts.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Planning/RematPlan.h"

#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/TG/IR/TGInterfaces.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

namespace memopt {
#define GEN_PASS_DEF_RECOMPUTECASTS
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class RecomputeCastsPass
    : public memopt::impl::RecomputeCastsBase<RecomputeCastsPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-recompute-casts: expected a function with one "
                         "block");
      return signalPassFailure();
    }
    Block &body = function.getBody().front();
    StepPhases phases(function);
    SmallVector<Operation *> later;
    DenseSet<Value> casts;
    for (Operation &op : body.without_terminator()) {
      if (phases.phase(&op) != StepPhase::Forward) {
        later.push_back(&op);
        continue;
      }
      auto cast = dyn_cast<tg::CastOp>(op);
      // Only a copy of an argument: its source lives through the step
      // anyway, so the recast extends nothing.
      if (cast && isa<BlockArgument>(cast.getInput()))
        casts.insert(cast.getOutput());
    }
    if (later.empty() || casts.empty())
      return;
    remat::Rewrite rewrite = remat::recompute(later, casts);
    numRecomputedCasts += rewrite.cloneOf.size();
    for (Value value : rewrite.rewired)
      numBytesRecast += tensorBytes(value.getType());
  }
};

} // namespace
