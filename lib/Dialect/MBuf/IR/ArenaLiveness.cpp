//===- ArenaLiveness.cpp - Checks the memory plan of an arena -------------===//
//
// The memory plan is correct when no two views of an arena that are live at
// the same time share a byte. A view is live from the first op of the block
// that uses it to the last; an asynchronous copy, send or receive keeps it
// live until the mbuf.wait of its token. The bytes of a subview (a concat's
// slice, which its operand is computed in) are live over the subview's
// uses, and those of the whole view over its own: a slice written last may
// hold other values until then, and the parts of one view never conflict
// with each other. The one exception is a kernel's tied operand: an input
// that dies at the kernel may share the bytes of the output the kernel
// writes over it (tied_operands).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace memopt::mbuf;

namespace {

/// A view of the arena (an mbuf.view, or a subview of one: a part of its
/// root) over its live range of op positions.
struct LiveView {
  Value view, root;
  Operation *op;
  int64_t begin, end; // bytes
  unsigned first, last;
};

/// Extends [first, last] over the uses of `view` itself (not those of its
/// subviews, which are parts of their own).
void collectUses(Value view, Block &block,
                 const DenseMap<Operation *, unsigned> &position,
                 unsigned &first, unsigned &last, bool &used) {
  auto see = [&](Operation *user) {
    Operation *ancestor = block.findAncestorOpInBlock(*user);
    if (!ancestor)
      return;
    unsigned at = position.lookup(ancestor);
    first = used ? std::min(first, at) : at;
    last = used ? std::max(last, at) : at;
    used = true;
  };
  for (Operation *user : view.getUsers()) {
    if (isa<SubviewOp>(user))
      continue;
    see(user);
    // An asynchronous transfer touches the view until it is awaited.
    if (isa<CopyAsyncOp, SendOp, RecvOp>(user))
      for (Operation *waiter : user->getResult(0).getUsers())
        see(waiter);
  }
}

/// Whether kernel `op` declares that an input with root `a` and an output
/// with root `b` (or the reverse) share their bytes.
bool tiedAt(Operation *op, Value a, Value b) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    return false;
  for (unsigned i = 0, e = kernel.getIns().size(); i < e; ++i) {
    std::optional<unsigned> out = kernel.getTiedOutput(i);
    if (!out)
      continue;
    Value in = rootView(kernel.getIns()[i]);
    Value tiedOut = rootView(kernel.getOuts()[*out]);
    if ((in == a && tiedOut == b) || (in == b && tiedOut == a))
      return true;
  }
  return false;
}

} // namespace

LogicalResult memopt::mbuf::verifyArenaLiveness(ArenaOp arena) {
  Block *block = arena->getBlock();
  if (!block)
    return success();
  DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> ops;
  for (Operation &op : *block) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }

  SmallVector<LiveView> views;
  // `view` at byte `offset` of the arena, part of `root`, and its subviews.
  std::function<void(Value, Value, uint64_t)> addView =
      [&](Value view, Value root, uint64_t offset) {
        int64_t bytes = cast<ViewType>(view.getType()).getSizeInBytes();
        unsigned first = 0, last = 0;
        bool used = false;
        collectUses(view, *block, position, first, last, used);
        // A view beyond the arena is its own verifier's error.
        uint64_t end = endOfBytes(offset, bytes);
        if (used && bytes != 0 && end <= arena.getSize())
          views.push_back({view, root, view.getDefiningOp(),
                           static_cast<int64_t>(offset),
                           static_cast<int64_t>(end), first, last});
        for (Operation *user : view.getUsers())
          if (auto subview = dyn_cast<SubviewOp>(user))
            addView(subview.getView(), root, offset + subview.getOffset());
      };
  for (Operation *user : arena.getArena().getUsers()) {
    auto view = dyn_cast<ViewOp>(user);
    if (!view)
      continue;
    if (view->getBlock() != block)
      return view.emitOpError("must be in the block of its arena, where "
                              "the liveness of its views is checked");
    addView(view.getView(), view.getView(), view.getOffset());
  }
  llvm::stable_sort(views, [](const LiveView &a, const LiveView &b) {
    return a.first < b.first;
  });

  // A sweep over the op positions with the views live at the current one.
  SmallVector<LiveView *> live;
  for (LiveView &view : views) {
    llvm::erase_if(live,
                   [&](LiveView *other) { return other->last < view.first; });
    for (LiveView *other : live) {
      if (other->end <= view.begin || view.end <= other->begin ||
          other->root == view.root)
        continue;
      if (other->last == view.first &&
          tiedAt(ops[view.first], other->root, view.root))
        continue;
      InFlightDiagnostic diag =
          view.op->emitOpError("bytes [")
          << view.begin << ", " << view.end << ") of arena " << arena.getIndex()
          << " overlap bytes [" << other->begin << ", " << other->end
          << ") of a view that is live at the same "
             "time";
      diag.attachNote(other->op->getLoc()) << "the other view";
      return diag;
    }
    live.push_back(&view);
  }
  return success();
}
