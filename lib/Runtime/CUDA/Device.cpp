//===- Device.cpp - cudaMalloc'd memory as the CUDA backend's device ------===//
//
// The trainer's buffers and the arena live on the GPU; the trainer copies
// the batch in, the loss out, and the weights both ways around checkpoints
// (memopt/Runtime/Device.h). Every copy and memset goes through the step's
// stream, so that it is ordered with the kernels, and waits for it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Device.h"

#include "Context.h"

#include <cstring>
#include <string>

namespace memopt::rt::device {

using cuda::stream;

Status open() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0)
    return Status::error(
        std::string("no usable CUDA device (") +
        (error != cudaSuccess ? cudaGetErrorString(error) : "none found") +
        "): this binary was compiled with --target=cuda; run it on a "
        "machine with an NVIDIA GPU and driver, or recompile with "
        "--target=cpu");
  // The device this process selected already (the exchange of a
  // multi-process run picks local rank % device count), else the first
  // one CUDA_VISIBLE_DEVICES leaves.
  int device = 0;
  MEMOPT_CUDA_CHECK("open", cudaGetDevice(&device));
  MEMOPT_CUDA_CHECK("open", cudaSetDevice(device));
  return Status();
}

const char *name() { return "cuda"; }

// The kernels run on the GPU; cuDNN's workspaces do not depend on host
// threads.
int threads() { return 0; }
void useThreads(int) {}

bool hostAddressable() { return false; }

void *allocate(size_t bytes) {
  void *data = nullptr;
  cudaError_t error = cudaMalloc(&data, bytes);
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError(); // reset it, so that later checks do not see it
    return nullptr;
  }
  MEMOPT_CUDA_CHECK("allocate", error);
  MEMOPT_CUDA_CHECK("allocate", cudaMemsetAsync(data, 0, bytes, stream()));
  MEMOPT_CUDA_CHECK("allocate", cudaStreamSynchronize(stream()));
  return data;
}

void release(void *data) {
  cudaError_t error = cudaFree(data);
  // At process exit the runtime may be unloaded before the last buffers
  // are released; the memory goes with the context then.
  if (error != cudaErrorCudartUnloading)
    MEMOPT_CUDA_CHECK("release", error);
}

void *allocatePinnedHost(size_t bytes) {
  void *data = nullptr;
  cudaError_t error = cudaHostAlloc(&data, bytes, cudaHostAllocDefault);
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  MEMOPT_CUDA_CHECK("allocate pinned host memory", error);
  std::memset(data, 0, bytes);
  return data;
}

void releasePinnedHost(void *data) {
  cudaError_t error = cudaFreeHost(data);
  if (error != cudaErrorCudartUnloading)
    MEMOPT_CUDA_CHECK("release pinned host memory", error);
}

void copyToDevice(void *device, const void *host, size_t bytes) {
  MEMOPT_CUDA_CHECK("copy to device",
                    cudaMemcpyAsync(device, host, bytes,
                                    cudaMemcpyHostToDevice, stream()));
  MEMOPT_CUDA_CHECK("copy to device", cudaStreamSynchronize(stream()));
}

void copyToHost(void *host, const void *device, size_t bytes) {
  MEMOPT_CUDA_CHECK("copy to host",
                    cudaMemcpyAsync(host, device, bytes,
                                    cudaMemcpyDeviceToHost, stream()));
  MEMOPT_CUDA_CHECK("copy to host", cudaStreamSynchronize(stream()));
}

void synchronize() {
  // An event marks the end of the queued work; waiting on it rather than
  // on the whole device leaves other streams (a copy stream) running.
  static cudaEvent_t done = [] {
    cudaEvent_t event = nullptr;
    MEMOPT_CUDA_CHECK("synchronize",
                      cudaEventCreateWithFlags(&event,
                                               cudaEventDisableTiming));
    return event;
  }();
  MEMOPT_CUDA_CHECK("synchronize", cudaEventRecord(done, stream()));
  MEMOPT_CUDA_CHECK("synchronize", cudaEventSynchronize(done));
}

size_t driverUsedBytes() {
  size_t free = 0, total = 0;
  MEMOPT_CUDA_CHECK("memory info", cudaMemGetInfo(&free, &total));
  return total - free;
}

const char *lowPrecisionConvolutions() {
  return cuda::lowPrecisionConvolutions();
}

bool takeSkippedUpdate() { return cuda::takeSkippedUpdate(); }

} // namespace memopt::rt::device
