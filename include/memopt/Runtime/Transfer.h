//===- Transfer.h - Tensors between processes ------------------*- C++ -*-===//
//
// The lowering of mbuf.send / mbuf.recv in the step of a pipeline stage
// (MemoptRuntimeMPI). Both block until the view may be reused (the send)
// or holds the value (the receive): every stage performs its transfers in
// the step's global order (tg-partition), so blocking exchanges cannot
// deadlock, and mbuf.wait has nothing left to do. A failed transfer ends
// every process with a message naming the rank.
//
// allReduceMean is the lowering of tg.all_reduce (data parallelism): the
// elementwise mean of `input` over the replicas of this stage, in `output`
// (which may be `input`: the plan writes it in place). Every replica calls
// it in the same order: they run the same step. replicaPart and
// allGatherParts (--zero=1) split a tensor into one part per replica and
// gather them back.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_TRANSFER_H
#define MEMOPT_RUNTIME_TRANSFER_H

#include "memopt/Runtime/Tensor.h"

#include <cstdint>

namespace memopt::rt {

void sendTensor(ConstTensor view, int64_t peer, int64_t tag);
void receiveTensor(Tensor view, int64_t peer, int64_t tag);
void allReduceMean(ConstTensor input, Tensor output);
/// Optimizer-state sharding (tg.shard, tg.all_gather): `part` (C =
/// ceil(numel / replicas) elements) is elements [r * C, (r + 1) * C) of
/// `whole` for replica r, zero past its end.
void replicaPart(ConstTensor whole, Tensor part);
void allGatherParts(ConstTensor part, Tensor whole);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_TRANSFER_H
