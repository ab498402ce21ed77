//===- FuseElementwise.cpp - The tg-fuse-elementwise pass -----------------===//
//
// Groups are found with a union-find over "producer merges into its only
// consumer" edges, then each group with two or more ops is cloned into a
// tg.fused_elementwise placed at its last op. Moving the earlier ops down
// to that point is safe: an op merged into its consumer has no other user,
// and every value it reads is defined before it, hence before the group's
// last op.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

namespace memopt::tg {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"
} // namespace memopt::tg

using namespace mlir;
using namespace memopt::tg;

namespace {

/// Whether `op` is elementwise with every operand and the result of one
/// type (a fused body cannot broadcast).
bool isSameShapeElementwise(Operation *op) {
  if (!FusedElementwiseOp::isFusable(op) || op->getNumResults() != 1)
    return false;
  Type type = op->getResult(0).getType();
  return llvm::all_of(op->getOperandTypes(),
                      [&](Type t) { return t == type; });
}

/// Moves the ops of `group` (in block order) into one fused op before the
/// last of them.
void fuse(ArrayRef<Operation *> group) {
  Operation *last = group.back();
  llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
  llvm::MapVector<Value, unsigned> inputs;
  for (Operation *op : group)
    for (Value operand : op->getOperands())
      if (!members.contains(operand.getDefiningOp()))
        inputs.insert({operand, inputs.size()});

  OpBuilder builder(last);
  SmallVector<Value> inputValues;
  for (auto &entry : inputs)
    inputValues.push_back(entry.first);
  Type type = last->getResult(0).getType();
  auto fused = FusedElementwiseOp::create(builder, last->getLoc(), type,
                                          inputValues);
  Block *body = builder.createBlock(
      &fused.getBody(), {}, SmallVector<Type>(inputValues.size(), type),
      SmallVector<Location>(inputValues.size(), last->getLoc()));
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(inputValues, body->getArguments()))
    mapping.map(value, arg);
  for (Operation *op : group)
    builder.clone(*op, mapping);
  YieldOp::create(builder, last->getLoc(),
                  mapping.lookup(last->getResult(0)));

  last->getResult(0).replaceAllUsesWith(fused.getOutput());
  for (Operation *op : llvm::reverse(group))
    op->erase();
}

class FuseElementwisePass
    : public memopt::tg::impl::FuseElementwiseBase<FuseElementwisePass> {
public:
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getBody().empty())
      return;
    Block &block = func.getBody().front();
    llvm::EquivalenceClasses<Operation *> groups;
    for (Operation &op : block) {
      if (!isSameShapeElementwise(&op))
        continue;
      groups.insert(&op);
      for (Value operand : op.getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && producer->getBlock() == &block &&
            isSameShapeElementwise(producer) && producer->hasOneUse() &&
            operand.getType() == op.getResult(0).getType())
          groups.unionSets(producer, &op);
      }
    }
    // Members of each group in block order.
    llvm::MapVector<Operation *, SmallVector<Operation *>> ordered;
    for (Operation &op : block)
      if (groups.contains(&op))
        ordered[groups.getLeaderValue(&op)].push_back(&op);
    for (auto &[leader, group] : ordered) {
      if (group.size() < 2)
        continue;
      ++numGroups;
      numFusedOps += group.size();
      fuse(group);
    }
  }
};

} // namespace
