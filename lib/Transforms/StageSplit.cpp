//===- StageSplit.cpp - What each pipeline stage holds --------------------===//
//
// The anchors of a step's ops and the stage functions built from them
// (StageSplit.h, docs/passes/partition.md).
//
//===----------------------------------------------------------------------===//

#include "StageSplit.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <set>

using namespace mlir;
using namespace memopt;

namespace {

/// A constant: cloned where it is read, never sent.
bool isFree(Operation *op) {
  return op->getNumOperands() == 0 && isMemoryEffectFree(op);
}

/// The anchor of a backward op (see StepAnchors), if it reads a forward
/// value: the latest position that holds all of them, at most `ceiling`,
/// else the latest that holds all of them, else the latest that holds one.
template <typename Holders>
std::optional<unsigned> backwardAnchor(Operation &op, Holders &holders,
                                       unsigned ceiling) {
  std::optional<llvm::SmallSetVector<unsigned, 4>> common;
  std::optional<unsigned> latest;
  for (Value operand : op.getOperands()) {
    llvm::SmallSetVector<unsigned, 4> held = holders(operand);
    if (held.empty())
      continue;
    latest = std::max(latest.value_or(0), *llvm::max_element(held));
    if (!common)
      common = held;
    else
      common->remove_if([&](unsigned p) { return !held.contains(p); });
  }
  if (!common)
    return std::nullopt;
  std::optional<unsigned> best, bestUnder;
  for (unsigned p : *common) {
    best = std::max(best.value_or(p), p);
    if (p <= ceiling)
      bestUnder = std::max(bestUnder.value_or(p), p);
  }
  return bestUnder ? bestUnder : best ? best : latest;
}

} // namespace

bool memopt::isOwned(func::FuncOp step, unsigned arg) {
  return step.getArgAttr(arg, "tg.param") ||
         step.getArgAttr(arg, "tg.state") ||
         step.getArgAttr(arg, "tg.opt_state");
}

StepAnchors::StepAnchors(func::FuncOp step) : step(step), phases(step) {
  Block &body = step.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : body.without_terminator())
    if (!isFree(&op) && phases.phase(&op) == StepPhase::Forward) {
      position[&op] = forward.size();
      opAnchor[&op] = forward.size();
      forward.push_back(&op);
    }
  // The forward positions that hold `value`: its producer and its forward
  // readers (an argument the step does not update holds nothing).
  auto holders = [&](Value value) {
    llvm::SmallSetVector<unsigned, 4> held;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && !isOwned(step, arg.getArgNumber()))
      return held;
    if (Operation *def = value.getDefiningOp())
      if (auto it = position.find(def); it != position.end())
        held.insert(it->second);
    for (Operation *user : value.getUsers())
      if (auto it = position.find(user); it != position.end())
        held.insert(it->second);
    return held;
  };
  // The least anchor among `users` in `anchorOf`, if any has one.
  auto firstAnchor = [](Value value, const DenseMap<Operation *, unsigned>
                                         &anchorOf) -> std::optional<unsigned> {
    std::optional<unsigned> first;
    for (Operation *user : value.getUsers())
      if (auto it = anchorOf.find(user); it != anchorOf.end())
        first = std::min(first.value_or(it->second), it->second);
    return first;
  };
  for (BlockArgument arg : body.getArguments())
    if (isOwned(step, arg.getArgNumber()))
      if (std::optional<unsigned> first = firstAnchor(arg, position))
        argAnchor[arg.getArgNumber()] = *first;

  // The gradient of a forward op reads only that op's operands and
  // results, so its anchor holds every forward value it reads; autodiff
  // emits the gradients in reverse forward order, so the anchors of
  // backward ops do not increase (the ceiling) unless nothing else fits.
  unsigned ceiling = forward.empty() ? 0 : forward.size() - 1;
  SmallVector<Operation *> pending;
  for (Operation &op : body.without_terminator()) {
    if (isFree(&op) || position.count(&op))
      continue;
    std::optional<unsigned> anchor;
    auto param = isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op)
                     ? dyn_cast<BlockArgument>(op.getOperand(0))
                     : BlockArgument();
    if (param && argAnchor.count(param.getArgNumber()))
      anchor = argAnchor.lookup(param.getArgNumber());
    else if ((anchor = backwardAnchor(op, holders, ceiling)))
      ceiling = *anchor;
    if (!anchor)
      for (Value operand : op.getOperands())
        if (std::optional<unsigned> owner = ownerAnchor(operand))
          anchor = std::min(anchor.value_or(*owner), *owner);
    if (anchor)
      opAnchor[&op] = *anchor;
    else
      pending.push_back(&op);
  }
  for (Operation *op : llvm::reverse(pending)) {
    std::optional<unsigned> anchor;
    for (Value result : op->getResults())
      if (std::optional<unsigned> first = firstAnchor(result, opAnchor))
        anchor = std::min(anchor.value_or(*first), *first);
    opAnchor[op] = anchor.value_or(forward.empty() ? 0 : forward.size() - 1);
  }
  // An optimizer state read by nothing but its update.
  for (BlockArgument arg : body.getArguments())
    if (isOwned(step, arg.getArgNumber()) &&
        !argAnchor.count(arg.getArgNumber()))
      if (std::optional<unsigned> first = firstAnchor(arg, opAnchor))
        argAnchor[arg.getArgNumber()] = *first;
}



func::FuncOp StageBuilder::build(unsigned stage, StringRef name,
                                 uint64_t &sendBytes) {
  func::FuncOp step = anchors.step;
  Block &body = step.getBody().front();
  auto stageOfOp = [&](Operation *op) {
    return stageOf(anchors.opAnchor.lookup(op));
  };
  // The arguments it reads itself: its own, and those every stage may read.
  SmallVector<unsigned> args;
  for (BlockArgument arg : body.getArguments()) {
    std::optional<unsigned> owner = ownerStage(arg);
    bool read = llvm::any_of(arg.getUsers(), [&](Operation *user) {
      return !isa<func::ReturnOp>(user) && stageOfOp(user) == stage;
    });
    if (owner ? *owner == stage : read)
      args.push_back(arg.getArgNumber());
  }
  Operation *terminator = body.getTerminator();
  SmallVector<unsigned> results;
  for (OpOperand &operand : terminator->getOpOperands())
    if (ownerStage(operand.get()).value_or(0) == stage)
      results.push_back(operand.getOperandNumber());

  OpBuilder builder(step.getContext());
  SmallVector<Type> argTypes, resultTypes;
  for (unsigned i : args)
    argTypes.push_back(body.getArgument(i).getType());
  for (unsigned i : results)
    resultTypes.push_back(terminator->getOperand(i).getType());
  auto function = func::FuncOp::create(
      step.getLoc(), name, builder.getFunctionType(argTypes, resultTypes));
  for (auto [k, i] : llvm::enumerate(args))
    function.setArgAttrs(k, step.getArgAttrDict(i));
  for (auto [k, i] : llvm::enumerate(results))
    function.setResultAttrs(k, step.getResultAttrDict(i));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  IRMapping mapping;
  for (auto [k, i] : llvm::enumerate(args))
    mapping.map(body.getArgument(i), entry->getArgument(k));

  // Transfers happen at their first reader in program order, numbered in
  // that order: every stage sees them in the same order.
  int64_t tag = 0;
  std::set<std::pair<void *, unsigned>> sent;
  for (Operation &op : body.without_terminator()) {
    if (isFree(&op))
      continue;
    unsigned reader = stageOfOp(&op);
    bool forwardReader = anchors.phases.phase(&op) == StepPhase::Forward;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      std::optional<unsigned> owner = ownerStage(operand);
      if (!owner || *owner == reader ||
          !sent.insert({operand.getAsOpaquePointer(), reader}).second)
        continue;
      bool forward = def ? anchors.phases.phase(def) == StepPhase::Forward
                         : forwardReader;
      if (*owner == stage) {
        tg::SendOp::create(builder, op.getLoc(), mapping.lookup(operand),
                           reader, tag, forward);
        sendBytes += tensorBytes(operand);
      } else if (reader == stage) {
        mapping.map(operand,
                    tg::RecvOp::create(builder, op.getLoc(),
                                       operand.getType(), *owner, tag,
                                       forward)
                        .getOutput());
      }
      ++tag;
    }
    if (reader != stage)
      continue;
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isFree(def) && !mapping.contains(operand))
        builder.clone(*def, mapping);
    builder.clone(op, mapping);
  }
  SmallVector<Value> returned;
  for (unsigned i : results) {
    Value value = terminator->getOperand(i);
    if (Operation *def = value.getDefiningOp();
        def && isFree(def) && !mapping.contains(value))
      builder.clone(*def, mapping);
    returned.push_back(mapping.lookup(value));
  }
  func::ReturnOp::create(builder, terminator->getLoc(), returned);
  return function;
}
