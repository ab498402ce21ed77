//===- DataParallel.cpp - Means over data-parallel replicas ---------------===//
//
// tg-data-parallel (docs/passes/data-parallel.md): each replica runs the
// same step on its slice of the batch; a tg.all_reduce on every gradient an
// optimizer update reads, on every updated running statistic and on the
// loss makes every replica update the same weights with the gradient of
// the whole batch's mean loss.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"

namespace memopt {
#define GEN_PASS_DEF_DATAPARALLEL
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

bool isOptimizerUpdate(Operation *op) {
  return isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op);
}

class DataParallelPass
    : public memopt::impl::DataParallelBase<DataParallelPass> {
public:
  using DataParallelBase::DataParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (replicas == 0 || replicas > kMaxDataParallel)
      return emitError(UnknownLoc::get(context))
             << "tg-data-parallel: replicas must be in [1, "
             << kMaxDataParallel << "], got " << replicas.getValue();
    return success();
  }

  void runOnOperation() override {
    if (replicas <= 1)
      return;
    ModuleOp module = getOperation();
    Builder attrs(module.getContext());
    module->setAttr("memopt.data_parallel",
                    attrs.getI64IntegerAttr(replicas));
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          llvm::any_of(func.getBody().front(),
                       [](Operation &op) { return isOptimizerUpdate(&op); }))
        averageOverReplicas(func);
    // A step that updates nothing (eval_step) takes the training step's
    // arguments, the optimizer state's parts included.
    if (!zero)
      return;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Block &body = func.getBody().front();
      for (BlockArgument arg : body.getArguments()) {
        auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      "tg.opt_state");
        auto part = name ? stateParts.find(name) : stateParts.end();
        if (part != stateParts.end() && arg.getType() != part->second &&
            arg.use_empty())
          arg.setType(part->second);
      }
      func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                     func.getResultTypes()));
    }
  }

private:
  /// The type of each optimizer state's part (zero), by its name.
  DenseMap<StringAttr, Type> stateParts;

  /// The mean of `value` over the replicas, built at the builder's point.
  Value mean(OpBuilder &builder, Value value) {
    ++numAllReduces;
    numAllReduceBytes += tensorBytes(value.getType());
    return tg::AllReduceOp::create(builder, value.getLoc(), value,
                                   static_cast<int64_t>(replicas));
  }

  /// ZeRO stage 1: `update` reads this replica's parts of its parameter
  /// and (averaged) gradient and updates its part of the optimizer state,
  /// whose arguments and results shrink to the part; the whole updated
  /// parameter is gathered from every replica's part.
  LogicalResult shardUpdate(OpBuilder &builder, Operation &update) {
    Value param = update.getOperand(0);
    auto paramType = cast<RankedTensorType>(param.getType());
    auto partType = RankedTensorType::get(
        {static_cast<int64_t>(
            llvm::divideCeil(paramType.getNumElements(), replicas))},
        paramType.getElementType());
    auto replicaCount = static_cast<int64_t>(replicas);
    builder.setInsertionPoint(&update);
    for (unsigned i : {0u, 1u})
      update.setOperand(i, tg::ShardOp::create(builder, update.getLoc(),
                                               partType, update.getOperand(i),
                                               replicaCount));
    // The optimizer state: arguments of the step, of the parameter's type.
    for (OpOperand &operand : update.getOpOperands()) {
      if (operand.getOperandNumber() < 2 || operand.get().getType() != paramType)
        continue;
      auto state = dyn_cast<BlockArgument>(operand.get());
      if (!state || !llvm::hasSingleElement(state.getUses()))
        return update.emitOpError("tg-data-parallel zero: expected the "
                                  "optimizer state to be an argument of the "
                                  "step that only this update reads");
      state.setType(partType);
      stateParts[cast<func::FuncOp>(state.getOwner()->getParentOp())
                     .getArgAttrOfType<StringAttr>(state.getArgNumber(),
                                                   "tg.opt_state")] =
          partType;
    }
    for (OpResult result : update.getResults())
      result.setType(partType);
    builder.setInsertionPointAfter(&update);
    Value newParam = update.getResult(0);
    auto whole = tg::AllGatherOp::create(builder, update.getLoc(), paramType,
                                         newParam, replicaCount);
    newParam.replaceAllUsesExcept(whole, whole);
    numStateBytes += tensorBytes(partType) *
                     (update.getNumResults() - 1);
    return success();
  }

  void averageOverReplicas(func::FuncOp func) {
    Block &body = func.getBody().front();
    OpBuilder builder(func.getContext());
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
      if (isOptimizerUpdate(&op)) {
        // The gradient, operand 1 of both updates, averaged where it is
        // computed (tg-schedule may move it; the given order is the
        // backward's).
        Value gradient = op.getOperand(1);
        builder.setInsertionPointAfterValue(gradient);
        op.setOperand(1, mean(builder, gradient));
        if (zero && failed(shardUpdate(builder, op)))
          return signalPassFailure();
        continue;
      }
      // A running statistic: the result written over an argument.
      auto kernel = dyn_cast<tg::KernelOpInterface>(&op);
      if (!kernel)
        continue;
      builder.setInsertionPointAfter(&op);
      for (OpResult result : op.getResults()) {
        if (!kernel.getUpdatedOperand(result.getResultNumber()) ||
            result.use_empty())
          continue;
        Value averaged = mean(builder, result);
        result.replaceAllUsesExcept(averaged, averaged.getDefiningOp());
      }
    }
    if (zero)
      func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                     body.getTerminator()->getOperandTypes()));
    // The loss: every replica logs and checks the whole batch's.
    Operation *terminator = body.getTerminator();
    builder.setInsertionPoint(terminator);
    for (OpOperand &operand : terminator->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (type && type.getRank() == 0 && type.getElementType().isF32() &&
          func.getResultAttr(operand.getOperandNumber(), "tg.output"))
        operand.set(mean(builder, operand.get()));
    }
  }
};

} // namespace
