//===- TGTransferOps.cpp - Verifiers of the transfers and all_reduce ------===//
//
// Inside a stage of a partitioned step (a function with tg-partition's
// `memopt.stage = #memopt.stage<index = I, stages = N, ...>`) a
// transfer's peer is one of the other N - 1 stages.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace memopt::tg;
using memopt::getDecision;
using memopt::StageAttr;

static LogicalResult verifyPeer(Operation *op, int64_t peer) {
  auto function = op->getParentOfType<func::FuncOp>();
  if (!function)
    return success();
  StageAttr stage = getDecision<StageAttr>(function);
  if (!stage)
    return success();
  if (peer == stage.getIndex() || peer >= stage.getStages())
    return op->emitOpError("peer stage ")
           << peer << " must be another of the " << stage.getStages()
           << " stages than this function's " << stage.getIndex();
  return success();
}

LogicalResult SendOp::verify() { return verifyPeer(*this, getPeer()); }

LogicalResult RecvOp::verify() { return verifyPeer(*this, getPeer()); }

LogicalResult AllReduceOp::verify() {
  if (!getInput().getType().getElementType().isF32())
    return emitOpError("reduces float32 tensors only, not ")
           << getInput().getType();
  return success();
}

// One division per element; the exchange itself is communication, which the
// cost model does not time.
uint64_t AllReduceOp::getFlops() { return detail::perElementFlops(*this, 1); }

// A collective must run exactly once on every replica.
bool AllReduceOp::isCheapToRecompute() { return false; }

// MPI_Allreduce with MPI_IN_PLACE: the mean is written over the input.
SmallVector<unsigned, 2> AllReduceOp::getInPlaceOperands(unsigned) {
  return {0};
}

/// Checks that `part` is the 1-D f32 part of `whole` that each of
/// `replicas` holds: ceil(numel / replicas) elements.
static LogicalResult verifyPart(Operation *op, RankedTensorType whole,
                                RankedTensorType part, int64_t replicas) {
  if (!whole.getElementType().isF32() || !part.getElementType().isF32())
    return op->emitOpError("shards float32 tensors only");
  int64_t size = llvm::divideCeil(whole.getNumElements(), replicas);
  if (part.getRank() != 1 || part.getDimSize(0) != size)
    return op->emitOpError("a part of ")
           << whole << " over " << replicas << " replicas is tensor<"
           << size << "xf32>, not " << part;
  return success();
}

LogicalResult ShardOp::verify() {
  return verifyPart(*this, cast<RankedTensorType>(getInput().getType()),
                    cast<RankedTensorType>(getOutput().getType()),
                    getReplicas());
}

LogicalResult AllGatherOp::verify() {
  return verifyPart(*this, cast<RankedTensorType>(getOutput().getType()),
                    cast<RankedTensorType>(getInput().getType()),
                    getReplicas());
}

// Copies: no arithmetic.
uint64_t ShardOp::getFlops() { return 0; }
uint64_t AllGatherOp::getFlops() { return 0; }

// Their result depends on the process (its replica, the others' parts):
// computed once, where the plan put them.
bool ShardOp::isCheapToRecompute() { return false; }
bool AllGatherOp::isCheapToRecompute() { return false; }
