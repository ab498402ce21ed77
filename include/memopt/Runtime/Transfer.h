//===- Transfer.h - Tensors between pipeline stages ------------*- C++ -*-===//
//
// The lowering of mbuf.send / mbuf.recv in the step of a pipeline stage
// (MemoptRuntimeMPI). Both block until the view may be reused (the send)
// or holds the value (the receive): every stage performs its transfers in
// the step's global order (tg-partition), so blocking exchanges cannot
// deadlock, and mbuf.wait has nothing left to do. A failed transfer ends
// every process with a message naming the rank.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_TRANSFER_H
#define MEMOPT_RUNTIME_TRANSFER_H

#include "memopt/Runtime/Tensor.h"

#include <cstdint>

namespace memopt::rt {

void sendTensor(ConstTensor view, int64_t peer, int64_t tag);
void receiveTensor(Tensor view, int64_t peer, int64_t tag);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_TRANSFER_H
