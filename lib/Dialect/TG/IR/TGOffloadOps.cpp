//===- TGOffloadOps.cpp - Verifiers of the offload and prefetch ops -------===//
//
// The four ops are one protocol in one block: offload_start, its one
// offload_wait (after which the device tensor has no reader), then any
// prefetch_start of the host copy, each with one prefetch_wait before the
// prefetched tensor's other readers (docs/passes/offload.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt::tg;

/// Whether `a` runs before `b`: ops of one block, in block order.
static bool before(Operation *a, Operation *b) {
  return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
}

LogicalResult OffloadStartOp::verify() {
  unsigned waits = 0;
  for (Operation *user : getHost().getUsers()) {
    if (isa<OffloadWaitOp>(user))
      ++waits;
    else if (!isa<PrefetchStartOp>(user))
      return emitOpError("host copy may be read only by tg.offload_wait and "
                         "tg.prefetch_start, not by '")
             << user->getName() << "'";
  }
  if (waits != 1)
    return emitOpError("needs exactly one tg.offload_wait of its host copy, "
                       "has ")
           << waits;
  return success();
}

LogicalResult OffloadWaitOp::verify() {
  auto start = getHost().getDefiningOp<OffloadStartOp>();
  if (!start)
    return emitOpError("host operand must be a tg.offload_start result");
  if (start.getInput() != getInput())
    return emitOpError("waits for the offload of another tensor than its "
                       "input");
  if (!before(start, *this))
    return emitOpError("must come after its tg.offload_start in one block");
  for (Operation *user : getInput().getUsers())
    if (user != getOperation() && before(getOperation(), user)) {
      InFlightDiagnostic diag = emitOpError("releases a tensor that '")
                                << user->getName() << "' reads later";
      diag.attachNote(user->getLoc()) << "read here";
      return diag;
    }
  return success();
}

LogicalResult PrefetchStartOp::verify() {
  auto start = getHost().getDefiningOp<OffloadStartOp>();
  if (!start)
    return emitOpError("host operand must be a tg.offload_start result");
  for (Operation *user : getHost().getUsers())
    if (isa<OffloadWaitOp>(user) && !before(user, *this))
      return emitOpError("reads the host copy before its tg.offload_wait");
  unsigned waits = llvm::count_if(getOutput().getUsers(), [](Operation *u) {
    return isa<PrefetchWaitOp>(u);
  });
  if (waits != 1)
    return emitOpError("needs exactly one tg.prefetch_wait of its result, "
                       "has ")
           << waits;
  return success();
}

LogicalResult PrefetchWaitOp::verify() {
  auto start = getOutput().getDefiningOp<PrefetchStartOp>();
  if (!start)
    return emitOpError("operand must be a tg.prefetch_start result");
  if (!before(start, *this))
    return emitOpError("must come after its tg.prefetch_start in one block");
  for (Operation *user : getOutput().getUsers())
    if (user != getOperation() && !before(getOperation(), user))
      return emitOpError("must come before every other reader of the "
                         "prefetched tensor");
  return success();
}
