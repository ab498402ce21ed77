//===- StepPhases.cpp - Forward, backward and optimizer ops ---------------===//

#include "memopt/Analysis/StepPhases.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace memopt;

StringRef memopt::stringifyStepPhase(StepPhase phase) {
  switch (phase) {
  case StepPhase::Forward:
    return "forward";
  case StepPhase::Backward:
    return "backward";
  case StepPhase::Optimizer:
    return "optimizer";
  }
  llvm_unreachable("unknown step phase");
}

StepPhases::StepPhases(func::FuncOp step) {
  if (step.isExternal())
    return;
  Block &body = step.getBody().front();
  Operation *terminator = body.getTerminator();

  // The roots of the forward pass: forward outputs and updated states. A
  // function without roles has only forward outputs.
  bool hasRoles = false;
  SmallVector<Value> worklist;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    bool output = static_cast<bool>(step.getResultAttr(index, "tg.output"));
    bool state = static_cast<bool>(step.getResultAttr(index, "tg.state"));
    hasRoles |= output || state ||
                step.getResultAttr(index, "tg.param") ||
                step.getResultAttr(index, "tg.opt_state");
    if (output || state)
      worklist.push_back(value);
  }
  if (!hasRoles)
    worklist.assign(terminator->operand_begin(), terminator->operand_end());

  for (Operation &op : body.without_terminator())
    phases[&op] = isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op)
                      ? StepPhase::Optimizer
                      : StepPhase::Backward;
  // A stage of a partitioned step (tg-partition): what it sends to the
  // forward ops of another stage is a forward root too.
  for (auto send : body.getOps<tg::SendOp>())
    if (send.getForward()) {
      phases[send] = StepPhase::Forward;
      worklist.push_back(send.getInput());
    }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || op->getBlock() != &body)
      continue;
    auto it = phases.find(op);
    if (it->second != StepPhase::Backward)
      continue;
    it->second = StepPhase::Forward;
    worklist.append(op->operand_begin(), op->operand_end());
  }
}

StepPhase StepPhases::phase(Operation *op) const {
  auto it = phases.find(op);
  return it == phases.end() ? StepPhase::Backward : it->second;
}
