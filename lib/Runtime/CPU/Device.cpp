//===- Device.cpp - Host memory as the CPU backend's device ---------------===//
//
// The CPU backend runs the step on host memory: the trainer's buffers are
// the kernels' tensors, and copies are never needed (hostAddressable).
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Device.h"

#include "Common.h"

#include <cstdlib>
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace memopt::rt::device {

namespace {
constexpr size_t kAlignment = 64;
}

Status open() { return Status(); }

const char *name() { return "cpu"; }

#ifdef _OPENMP
int threads() { return omp_get_max_threads(); }
void useThreads(int count) { omp_set_num_threads(count); }
#else
int threads() { return 1; }
void useThreads(int) {}
#endif

bool hostAddressable() { return true; }

void *allocate(size_t bytes) {
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *data = std::aligned_alloc(kAlignment, padded);
  if (data)
    std::memset(data, 0, padded);
  return data;
}

void release(void *data) { std::free(data); }

// Host memory too, but not the device's: a separate allocation, so that
// the device memory the trainer measures leaves the host pool out.
void *allocatePinnedHost(size_t bytes) { return allocate(bytes); }

void releasePinnedHost(void *data) { std::free(data); }

void copyToDevice(void *device, const void *host, size_t bytes) {
  if (device != host)
    std::memcpy(device, host, bytes);
}

void copyToHost(void *host, const void *device, size_t bytes) {
  if (device != host)
    std::memcpy(host, device, bytes);
}

void synchronize() {}

size_t driverUsedBytes() { return 0; }

const char *lowPrecisionConvolutions() {
  return detail::lowPrecisionConvolutions();
}

bool takeSkippedUpdate() { return detail::takeSkippedUpdate(); }

} // namespace memopt::rt::device
