//===- Schedule.cpp - The tg-schedule pass ---------------------------------===//
//
// Builds the MemorySimulator of the function once (its dependence graph and
// the plan's byte accounting), asks the planning library's chooseSchedule
// (memopt/Planning/ScheduleOrder.h) for the candidate order of least
// simulated peak, moves the ops into it and records #memopt.schedule.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Planning/ScheduleOrder.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/STLExtras.h"

namespace memopt {
#define GEN_PASS_DEF_SCHEDULE
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class SchedulePass : public memopt::impl::ScheduleBase<SchedulePass> {
public:
  using ScheduleBase::ScheduleBase;

  LogicalResult initialize(MLIRContext *context) override {
    for (const std::string &name : strategies)
      if (!llvm::is_contained(kScheduleStrategies, StringRef(name)))
        return emitError(UnknownLoc::get(context))
               << "tg-schedule: unknown strategy '" << name
               << "'; expected given, free-first or frees-asap";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-schedule: expected a function with one block");
      return signalPassFailure();
    }
    FailureOr<TargetAttr> target = lookupTarget(function, "tg-schedule");
    if (failed(target))
      return signalPassFailure();
    Block &body = function.getBody().front();
    MemorySimulator graph(function, target->getInPlace());
    SmallVector<std::string> names(strategies.begin(), strategies.end());
    ScheduleChoice choice = chooseSchedule(graph, names);
    StringRef bestName = choice.name;
    uint64_t bestPeak = choice.peaks[choice.best].second;
    SmallVector<NamedAttribute> candidates;
    Builder builder(&getContext());
    for (auto [name, peak] : choice.peaks) {
      candidates.push_back(builder.getNamedAttr(
          name, builder.getI64IntegerAttr(static_cast<int64_t>(peak))));
      if (name == "given")
        numGivenPeak = peak;
    }
    for (auto [at, index] : llvm::enumerate(choice.order))
      if (at != index)
        ++numMovedOps;
    applyOrder(graph, choice.order, body.getTerminator());
    numChosenPeak = bestPeak;
    setDecision(function,
                ScheduleAttr::get(&getContext(),
                                  builder.getStringAttr(bestName), bestPeak,
                                  builder.getDictionaryAttr(candidates)));
  }
};

} // namespace
