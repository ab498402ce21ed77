//===- TGFusedOps.cpp - Fused elementwise chains --------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt::tg;

bool FusedElementwiseOp::isFusable(Operation *op) {
  return isa<ReluOp, SigmoidOp, TanhOp, NegOp, ExpOp, LogOp, SqrtOp, AbsOp,
             SignOp, LeakyReluOp, ClipOp, AddOp, SubOp, MulOp, DivOp,
             ReluBackwardOp, SigmoidBackwardOp, TanhBackwardOp,
             LeakyReluBackwardOp, ClipBackwardOp>(op);
}

Value FusedElementwiseOp::getYielded() {
  return cast<YieldOp>(getBody().front().getTerminator()).getValue();
}

LogicalResult FusedElementwiseOp::verify() {
  Block &body = getBody().front();
  Type type = getOutput().getType();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("has ") << getInputs().size() << " inputs but its body "
                               << body.getNumArguments() << " arguments";
  for (auto [input, arg] : llvm::zip(getInputs(), body.getArguments()))
    if (input.getType() != type || arg.getType() != type)
      return emitOpError("inputs and body arguments must have the output "
                         "type ")
             << type << " (no broadcasting)";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with tg.yield");
  for (Operation &op : body.without_terminator()) {
    if (!isFusable(&op))
      return op.emitOpError("cannot be part of a tg.fused_elementwise body "
                            "(not a same-shape elementwise op)");
    for (Type t : op.getOperandTypes())
      if (t != type)
        return op.emitOpError("in a fused body must have operands of type ")
               << type;
  }
  if (yield.getValue().getType() != type)
    return emitOpError("yields ") << yield.getValue().getType()
                                  << ", not the output type " << type;
  return success();
}
