//===- Remat.cpp - The tg-remat pass ---------------------------------------===//
//
// Rematerialization: forward values that the backward reads are recomputed
// there from stored values instead of living from the forward to the
// backward. The strategy (here Chen et al. 2016's sqrt(n) segments) picks
// the recomputable values; the rewrite is the same for every strategy:
// walking the backward in program order, the first op that reads a
// recomputed value gets a clone of its defining op (and of the recomputed
// ancestors that clone needs) right before it, and every later backward
// reader shares that clone. docs/passes/remat.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace memopt {
#define GEN_PASS_DEF_REMAT
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kRematAttr = "memopt.remat";

/// Whether result `index` of forward op `op` may be recomputed: the op is a
/// kernel without side effects (dropout draws random numbers) that updates
/// nothing in place, or the output of a training-mode BatchNorm (whose
/// clone reads the saved batch statistics, not the running ones).
bool isRecomputable(Operation *op, unsigned index) {
  if (!isa<tg::KernelOpInterface>(op) || !isMemoryEffectFree(op) ||
      isa<tg::ConstantOp>(op) || !tensorBytes(op->getResult(index)))
    return false;
  if (isa<tg::BatchNormOp>(op))
    return index == 0;
  return llvm::none_of(op->getResults(), [](OpResult result) {
    return static_cast<bool>(updatedOperand(result));
  });
}

/// Chen et al. 2016 on a DAG: the forward ops in program order are cut into
/// segments of ceil(sqrt(n)) ops. A value that a forward op of a later
/// segment reads (the segment's output, a skip connection) is stored, so a
/// recomputation never leaves its segment; so are returned values and
/// values that cannot be recomputed.
DenseSet<Value> chooseSqrt(ArrayRef<Operation *> forward,
                           unsigned &segmentOps) {
  segmentOps = std::max<unsigned>(
      1, static_cast<unsigned>(std::ceil(std::sqrt(forward.size()))));
  DenseMap<Operation *, unsigned> segment;
  for (auto [at, op] : llvm::enumerate(forward))
    segment[op] = at / segmentOps;
  DenseSet<Value> recomputed;
  for (Operation *op : forward)
    for (OpResult result : op->getResults()) {
      if (!isRecomputable(op, result.getResultNumber()))
        continue;
      bool stored = llvm::any_of(result.getUsers(), [&](Operation *user) {
        if (user->hasTrait<OpTrait::IsTerminator>())
          return true;
        auto it = segment.find(user);
        return it != segment.end() && it->second != segment[op];
      });
      if (!stored)
        recomputed.insert(result);
    }
  return recomputed;
}

class RematPass : public memopt::impl::RematBase<RematPass> {
public:
  using RematBase::RematBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (strategy != "none" && strategy != "sqrt")
      return emitError(UnknownLoc::get(context))
             << "tg-remat: unknown strategy '" << strategy
             << "'; expected none or sqrt (optimal and auto are planned)";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || strategy == "none")
      return;
    FailureOr<TargetAttr> target = lookupTarget(function, "tg-remat");
    if (failed(target))
      return signalPassFailure();
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-remat: expected a function with one block");
      return signalPassFailure();
    }
    bool inPlace = target->getInPlace();
    Block &body = function.getBody().front();

    StepPhases phases(function);
    SmallVector<Operation *> forward, later;
    for (Operation &op : body.without_terminator())
      (phases.phase(&op) == StepPhase::Forward ? forward : later)
          .push_back(&op);
    // Only a training step has a backward to recompute in (not eval_step).
    if (later.empty())
      return;

    uint64_t peakBefore = simulatedPeak(function, inPlace);
    unsigned segmentOps = 0;
    DenseSet<Value> recomputed = chooseSqrt(forward, segmentOps);

    // Rewire every backward read of a recomputed value to its clone.
    DenseMap<Operation *, Operation *> cloneOf;
    uint64_t flopsAdded = 0;
    DenseSet<Value> rewired;
    for (Operation *user : later)
      for (OpOperand &use : user->getOpOperands()) {
        if (!recomputed.contains(use.get()))
          continue;
        rewired.insert(use.get());
        use.set(materialize(cast<OpResult>(use.get()), user, recomputed,
                            cloneOf, flopsAdded));
      }

    // Stored: forward values that the backward or a clone still reads.
    unsigned stored = 0;
    for (Operation *op : forward)
      for (OpResult result : op->getResults())
        if (tensorBytes(result) && !rewired.contains(result) &&
            llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !user->hasTrait<OpTrait::IsTerminator>() &&
                     phases.phase(user) != StepPhase::Forward;
            }))
          ++stored;

    uint64_t peakAfter = simulatedPeak(function, inPlace);
    numBytesSaved = peakBefore > peakAfter ? peakBefore - peakAfter : 0;
    numFlopsAdded = flopsAdded;
    numRecomputedOps = cloneOf.size();
    Builder b(&getContext());
    auto i64 = [&](uint64_t value) {
      return b.getI64IntegerAttr(static_cast<int64_t>(value));
    };
    function->setAttr(
        kRematAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
             b.getNamedAttr("segment_ops", i64(segmentOps)),
             b.getNamedAttr("recomputed_values", i64(rewired.size())),
             b.getNamedAttr("recomputed_ops", i64(cloneOf.size())),
             b.getNamedAttr("stored_values", i64(stored)),
             b.getNamedAttr("flops_added", i64(flopsAdded)),
             b.getNamedAttr(
                 "simulated_peak_bytes",
                 b.getDictionaryAttr(
                     {b.getNamedAttr("before", i64(peakBefore)),
                      b.getNamedAttr("after", i64(peakAfter))}))}));
  }

private:
  static uint64_t simulatedPeak(func::FuncOp function, bool inPlace) {
    MemorySimulator simulator(function, inPlace);
    return simulator.peak(simulator.givenOrder());
  }

  /// The clone of `value`'s op, created right before `user` (with the
  /// clones of the recomputed values it reads, before it) the first time a
  /// backward op asks for it.
  Value materialize(OpResult value, Operation *user,
                    const DenseSet<Value> &recomputed,
                    DenseMap<Operation *, Operation *> &cloneOf,
                    uint64_t &flopsAdded) {
    Operation *op = value.getOwner();
    if (Operation *clone = cloneOf.lookup(op))
      return clone->getResult(value.getResultNumber());
    IRMapping mapping;
    for (Value operand : op->getOperands())
      if (recomputed.contains(operand))
        mapping.map(operand, materialize(cast<OpResult>(operand), user,
                                         recomputed, cloneOf, flopsAdded));
    // A recomputed BatchNorm must not read the running statistics after
    // the forward updated them in place: it reads the batch statistics the
    // forward saved (same type; its running-statistics results go unused).
    if (auto norm = dyn_cast<tg::BatchNormOp>(op)) {
      mapping.map(norm.getRunningMean(), norm.getSavedMean());
      mapping.map(norm.getRunningVar(), norm.getSavedInvStd());
    }
    OpBuilder builder(user);
    Operation *clone = builder.clone(*op, mapping);
    clone->setAttr(kRecomputeAttr, builder.getUnitAttr());
    flopsAdded += cast<tg::KernelOpInterface>(clone).getFlops();
    cloneOf[op] = clone;
    return clone->getResult(value.getResultNumber());
  }
};

} // namespace
