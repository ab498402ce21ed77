//===- Recompute.cpp - The rewrite of recomputed values -------------------===//
//
// What may be recomputed, and the rewrite every remat strategy shares:
// walking the backward in program order, the first op that reads a
// recomputed value gets a clone of its defining op (and of the recomputed
// ancestors that clone needs) right before it, and every later backward
// reader shares that clone. tg-remat applies it to the step; the auto and
// optimal planners apply it to their trial copies. docs/planning.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/RematPlan.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

bool memopt::remat::isRecomputable(Operation *op, unsigned index) {
  if (!isa<tg::KernelOpInterface>(op) || !isMemoryEffectFree(op) ||
      isa<tg::ConstantOp>(op) || !tensorBytes(op->getResult(index)))
    return false;
  if (isa<tg::BatchNormOp>(op))
    return index == 0;
  return llvm::none_of(op->getResults(), [](OpResult result) {
    return static_cast<bool>(updatedOperand(result));
  });
}

bool memopt::remat::isCheapToRecompute(Operation *op) {
  return isa<tg::BatchNormOp>(op) ||
         cast<tg::KernelOpInterface>(op).isCheapToRecompute();
}

/// Whether the clones of recomputed `value` that another clone needs serve
/// that clone only (RematPlan.h): with `privateAncestors`, cheap ops, and
/// the values of `nested`. A shared clone lives from the first reader to
/// the last, so a recomputed ReLU that a concat's clone needs early would
/// stay alive until the ReLU's own backward; recomputing it anew costs an
/// elementwise pass. Expensive ops (convolutions) stay shared unless a
/// strategy nests them: a chain of them recomputed once per reader costs
/// quadratically many clones, which only a budget can justify.
bool ClonePolicy::isPrivate(Value value) const {
  return (privateAncestors && isCheapToRecompute(value.getDefiningOp())) ||
         (nested && nested->contains(value));
}

namespace {
/// The state of one recompute() walk.
struct Materializer {
  Materializer(const DenseSet<Value> &recomputed, const ClonePolicy &policy,
               Rewrite &rewrite)
      : recomputed(recomputed), policy(policy), rewrite(rewrite) {}
  const DenseSet<Value> &recomputed;
  const ClonePolicy &policy;
  Rewrite &rewrite;
  /// Each recomputed value's last reader in the ops after the forward (its
  /// own reader, not a clone), by position in them.
  DenseMap<Value, unsigned> lastReader;
  /// The position of the op the clones are made for.
  unsigned at = 0;
};
} // namespace

/// The clone of `value`'s op, created right before `user` (with the clones
/// of the recomputed values it reads, before it), or the one in `slot`.
/// `local`: the private clones made for `user` (a diamond's ancestor is
/// cloned once). A private operand whose shared clone (the one its own
/// readers share) exists and is still read at or after `user` is read from
/// that clone: a new one would cost its recomputation and save no bytes.
static Value materialize(OpResult value, Operation *user, Materializer &state,
                         Operation *&slot,
                         DenseMap<Operation *, Operation *> &local) {
  Operation *op = value.getOwner();
  Rewrite &rewrite = state.rewrite;
  if (!slot) {
    IRMapping mapping;
    for (Value operand : op->getOperands())
      if (state.recomputed.contains(operand)) {
        Operation *owner = operand.getDefiningOp();
        bool isPrivate = state.policy.isPrivate(operand);
        Operation *shared = rewrite.cloneOf.lookup(owner);
        if (isPrivate && shared &&
            state.at <= state.lastReader.lookup(operand)) {
          mapping.map(operand, shared->getResult(
                                   cast<OpResult>(operand).getResultNumber()));
          continue;
        }
        // By value, written back: the recursion may grow either map.
        DenseMap<Operation *, Operation *> &clones =
            isPrivate ? local : rewrite.cloneOf;
        Operation *operandSlot = clones.lookup(owner);
        bool fresh = !operandSlot && !isPrivate;
        mapping.map(operand, materialize(cast<OpResult>(operand), user, state,
                                         operandSlot, local));
        if (fresh)
          rewrite.shared.push_back({owner, operandSlot});
        clones[owner] = operandSlot;
      }
    // A recomputed BatchNorm must not read the running statistics after the
    // forward updated them in place: it reads the batch statistics the
    // forward saved (same type; its running-statistics results go unused).
    if (auto norm = dyn_cast<tg::BatchNormOp>(op)) {
      mapping.map(norm.getRunningMean(), norm.getSavedMean());
      mapping.map(norm.getRunningVar(), norm.getSavedInvStd());
    }
    OpBuilder builder(user);
    Operation *clone = builder.clone(*op, mapping);
    clone->setAttr(kRecomputeAttr, builder.getUnitAttr());
    rewrite.flopsAdded += cast<tg::KernelOpInterface>(clone).getFlops();
    rewrite.clones.push_back(clone);
    rewrite.madeFor[clone] = state.at;
    slot = clone;
  }
  return slot->getResult(value.getResultNumber());
}

Rewrite memopt::remat::recompute(ArrayRef<Operation *> later,
                                 const DenseSet<Value> &recomputed,
                                 const ClonePolicy &policy) {
  Rewrite rewrite;
  Materializer state(recomputed, policy, rewrite);
  for (auto [at, user] : llvm::enumerate(later))
    for (Value operand : user->getOperands())
      if (recomputed.contains(operand))
        state.lastReader[operand] = at;
  // The forward ops whose shared clone ends before each position (Cuts).
  DenseMap<unsigned, SmallVector<Operation *>> cutsAt;
  if (policy.cuts)
    for (const auto &[value, positions] : *policy.cuts)
      if (recomputed.contains(value))
        for (unsigned position : positions)
          cutsAt[position].push_back(value.getDefiningOp());
  for (auto [at, user] : llvm::enumerate(later)) {
    state.at = at;
    if (auto it = cutsAt.find(at); it != cutsAt.end())
      for (Operation *op : it->second)
        rewrite.cuts += rewrite.cloneOf.erase(op);
    DenseMap<Operation *, Operation *> local;
    for (OpOperand &use : user->getOpOperands()) {
      if (!recomputed.contains(use.get()))
        continue;
      rewrite.rewired.insert(use.get());
      Operation *owner = use.get().getDefiningOp();
      Operation *slot = rewrite.cloneOf.lookup(owner);
      bool fresh = !slot;
      use.set(materialize(cast<OpResult>(use.get()), user, state, slot,
                          local));
      if (fresh)
        rewrite.shared.push_back({owner, slot});
      rewrite.cloneOf[owner] = slot;
    }
  }
  return rewrite;
}
