//===- EvalStep.cpp - The evaluation function of a training step ----------===//
//
// @eval_step reuses the training step's forward ops and loss, so that
// validation computes exactly what training computes, except for the two
// ops that PyTorch's `model.eval()` switches: BatchNorm normalizes with its
// running statistics and updates none, Dropout passes its input through.
//
//===----------------------------------------------------------------------===//

#include "EvalStep.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace memopt::tg;

namespace {

/// Fails if an op of `evaluated` reads a result of `op` other than its
/// first (output): evaluation mode computes none of them.
LogicalResult checkOnlyOutputRead(Operation *op,
                                  const llvm::DenseSet<Operation *> &evaluated,
                                  StringRef what) {
  for (OpResult result : op->getResults().drop_front())
    for (Operation *user : result.getUsers())
      if (evaluated.contains(user))
        return user->emitOpError()
               << "reads the " << what << " of " << op->getName()
               << ", which evaluation mode does not compute";
  return success();
}

} // namespace

FailureOr<func::FuncOp>
memopt::tg::detail::buildEvalStep(func::FuncOp trainStep,
                                  ArrayRef<Operation *> forwardOps,
                                  unsigned numOutputs) {
  Block &trainBody = trainStep.getBody().front();
  Operation *terminator = trainBody.getTerminator();
  llvm::DenseSet<Operation *> evaluated(forwardOps.begin(), forwardOps.end());
  // The loss op (absent with loss=graph, where the loss is a forward value).
  Operation *lossOp = terminator->getOperand(0).getDefiningOp();
  if (lossOp && !evaluated.contains(lossOp))
    evaluated.insert(lossOp);
  else
    lossOp = nullptr;
  for (Operation *op : forwardOps) {
    if (isa<BatchNormOp>(op) &&
        failed(checkOnlyOutputRead(op, evaluated, "batch statistics")))
      return failure();
    if (isa<DropoutOp>(op) &&
        failed(checkOnlyOutputRead(op, evaluated, "mask")))
      return failure();
  }

  OpBuilder builder(trainStep->getContext());
  builder.setInsertionPointAfter(trainStep);
  auto results = terminator->getOperands().take_front(numOutputs);
  auto evalStep = func::FuncOp::create(
      builder, trainStep.getLoc(), kEvalStepName,
      builder.getFunctionType(trainStep.getArgumentTypes(),
                              ValueRange(results).getTypes()));
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  trainStep.getAllArgAttrs(argAttrs);
  trainStep.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(numOutputs);
  evalStep.setAllArgAttrs(argAttrs);
  evalStep.setAllResultAttrs(resultAttrs);
  Block *entry = evalStep.addEntryBlock();
  IRMapping mapping;
  mapping.map(trainBody.getArguments(), entry->getArguments());

  builder.setInsertionPointToEnd(entry);
  for (Operation *op : forwardOps) {
    if (auto bn = dyn_cast<BatchNormOp>(op)) {
      Value output = BatchNormInferenceOp::create(
          builder, bn.getLoc(), mapping.lookup(bn.getInput()),
          mapping.lookup(bn.getScale()), mapping.lookup(bn.getBias()),
          mapping.lookup(bn.getRunningMean()),
          mapping.lookup(bn.getRunningVar()), bn.getEpsilonAttr());
      mapping.map(bn.getOutput(), output);
    } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
      mapping.map(dropout.getOutput(), mapping.lookup(dropout.getInput()));
    } else {
      builder.clone(*op, mapping);
    }
  }
  if (lossOp)
    builder.clone(*lossOp, mapping);
  SmallVector<Value> evalResults;
  for (Value result : results)
    evalResults.push_back(mapping.lookup(result));
  func::ReturnOp::create(builder, terminator->getLoc(), evalResults);
  return evalStep;
}
