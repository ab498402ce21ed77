//===- Copy.cpp - The CUDA backend's copy stream --------------------------===//
//
// tg-offload's copies (memopt/Runtime/Copy.h) run on one stream of their
// own, created once: a copy first waits (cudaStreamWaitEvent) for an event
// recorded on the compute stream, so it reads what the kernels before it
// wrote, then runs as cudaMemcpyAsync between device memory and the pinned
// host pool, and records its completion event; waitCopy makes the compute
// stream wait for that event. Nothing synchronizes the host or the whole
// device in the step, so copies overlap the kernels. The events are
// created once per copy number and reused by every step.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Copy.h"

#include "Context.h"

#include <vector>

namespace memopt::rt {

namespace {

struct CopyEvents {
  cudaEvent_t ready = nullptr, done = nullptr;
};

class CopyStream {
public:
  CopyEvents &events(int64_t id) {
    if (!stream)
      MEMOPT_CUDA_CHECK("start copy", cudaStreamCreateWithFlags(
                                          &stream, cudaStreamNonBlocking));
    if (static_cast<size_t>(id) >= copies.size())
      copies.resize(id + 1);
    CopyEvents &copy = copies[id];
    if (!copy.ready) {
      MEMOPT_CUDA_CHECK("start copy", cudaEventCreateWithFlags(
                                          &copy.ready, cudaEventDisableTiming));
      MEMOPT_CUDA_CHECK("start copy", cudaEventCreateWithFlags(
                                          &copy.done, cudaEventDisableTiming));
    }
    return copy;
  }

  cudaStream_t stream = nullptr;

private:
  std::vector<CopyEvents> copies;
};

CopyStream &copyStream() {
  static CopyStream instance;
  return instance;
}

} // namespace

void startCopy(int64_t id, Tensor target, ConstTensor source) {
  CopyStream &copies = copyStream();
  CopyEvents &copy = copies.events(id);
  MEMOPT_CUDA_CHECK("start copy", cudaEventRecord(copy.ready, cuda::stream()));
  MEMOPT_CUDA_CHECK("start copy",
                    cudaStreamWaitEvent(copies.stream, copy.ready, 0));
  MEMOPT_CUDA_CHECK("start copy",
                    cudaMemcpyAsync(target.data, source.data, source.bytes(),
                                    cudaMemcpyDefault, copies.stream));
  MEMOPT_CUDA_CHECK("start copy", cudaEventRecord(copy.done, copies.stream));
}

void waitCopy(int64_t id) {
  CopyEvents &copy = copyStream().events(id);
  MEMOPT_CUDA_CHECK("wait for copy",
                    cudaStreamWaitEvent(cuda::stream(), copy.done, 0));
}

bool copyTimes(int64_t, std::chrono::steady_clock::time_point &,
               std::chrono::steady_clock::time_point &) {
  return false;
}

} // namespace memopt::rt
