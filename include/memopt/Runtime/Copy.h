//===- Copy.h - Asynchronous copies of the step (offload) -------*- C++ -*-===//
//
// The lowering of mbuf.copy_async / mbuf.wait (tg-offload's copies to the
// pinned host pool and back, docs/passes/offload.md). Each copy of the
// step has a number fixed at compile time; the generated step calls
//
//   memopt::rt::startCopy(3, skip_host, skip);   // after skip's last forward reader
//   ...                                           // kernels overlap the copy
//   memopt::rt::waitCopy(3);                      // skip's device bytes are free after this
//   memopt::rt::traceCopy(3, "skip", "offload");
//
// Copies run in the order they are started, on a queue of their own:
// MemoptRuntimeCPU a copy thread (the queue's order is the tokens' order;
// waitCopy blocks until the copy is done), MemoptRuntimeCUDA a copy stream
// that waits for the kernels queued before the start (an event) and that
// the compute stream waits for at waitCopy (an event: no host
// synchronization in the step). A copy number is reused by the next step
// once its wait has returned.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_COPY_H
#define MEMOPT_RUNTIME_COPY_H

#include "memopt/Runtime/Tensor.h"

#include <chrono>
#include <cstdint>

namespace memopt::rt {

/// Starts copying `source` into `target` (same size) as copy `id`, after
/// every kernel queued so far.
void startCopy(int64_t id, Tensor target, ConstTensor source);
/// Returns once copy `id` is complete for the kernels queued after it.
void waitCopy(int64_t id);
/// When copy `id` (waited for) ran on the host clock; false where the
/// backend does not know without synchronizing (CUDA).
bool copyTimes(int64_t id, std::chrono::steady_clock::time_point &start,
               std::chrono::steady_clock::time_point &end);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_COPY_H
