//===- Device.h - The memory of the device the step runs on -----*- C++ -*-===//
//
// The trainer (lib/Runtime/Host) is the same for every backend; what differs
// is where the step's tensors live. Each backend library implements these
// functions: MemoptRuntimeCPU with host memory (lib/Runtime/CPU/Device.cpp),
// MemoptRuntimeCUDA with cudaMalloc'd device memory
// (lib/Runtime/CUDA/Device.cpp). A training binary links exactly one of
// them, after MemoptRuntimeHost, so the backend is chosen at link time, as
// the kernels of Kernels.h are.
//
// Failures (out of memory excepted) abort with a message naming the call,
// as the kernels do: they mean a broken device, not bad user input.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_DEVICE_H
#define MEMOPT_RUNTIME_DEVICE_H

#include "memopt/Runtime/Status.h"

#include <cstddef>

namespace memopt::rt::device {

/// Checks that the device can be used (CUDA: a GPU and a driver are
/// present) and selects it. The trainer calls it before anything else, so
/// that a machine without a GPU gets a one-line error, not an abort.
Status open();

/// "cpu" or "cuda", for messages and reports.
const char *name();

/// The host threads the kernels run on: OpenMP's thread count on the CPU
/// (oneDNN sizes its scratchpads for it); 0 on CUDA.
int threads();

/// Runs the kernels on `count` host threads from now on (CPU:
/// omp_set_num_threads, before oneDNN creates its primitives); CUDA
/// kernels run on the GPU and ignore it. `count` >= 1.
void useThreads(int count);

/// Whether the host can read and write memory from `allocate` directly. When
/// it can, the copies below are plain memcpy and the trainer skips them.
bool hostAddressable();

/// `bytes` zero-filled bytes of device memory, aligned to at least 64
/// bytes; null when the device is out of memory. `bytes` > 0.
void *allocate(size_t bytes);
/// Frees memory from `allocate`.
void release(void *data);

/// `bytes` zero-filled bytes of page-locked host memory that the device
/// copies to and from asynchronously (the pinned host pool of offloaded
/// tensors, memopt/Runtime/Copy.h), aligned to 64 bytes, apart from the
/// device memory; null when the host is out of memory. `bytes` > 0.
void *allocatePinnedHost(size_t bytes);
/// Frees memory from `allocatePinnedHost`.
void releasePinnedHost(void *data);

/// Host -> device and device -> host copies. Both return once the copy is
/// complete and every kernel queued before it has finished.
void copyToDevice(void *device, const void *host, size_t bytes);
void copyToHost(void *host, const void *device, size_t bytes);

/// Waits until every kernel queued so far has finished (step timing).
void synchronize();

/// The device memory in use by the whole process as the driver reports it
/// (CUDA: cudaMemGetInfo total - free, which includes the library handles'
/// own memory and the CUDA context); 0 on the CPU.
size_t driverUsedBytes();

/// How the step's bf16/fp16 convolutions ran (mixed precision, for the run
/// report): "onednn-native" (the library's low-precision primitives, f32
/// accumulation), "convert-compute-convert" (f32 copies, f32 compute,
/// converted back), both joined by "+", "cudnn-native" (the CUDA backend:
/// cuDNN on bf16/f16 tensors, f32 accumulation), or null when none ran
/// (f32 steps).
const char *lowPrecisionConvolutions();

/// Whether an optimizer update skipped a non-finite gradient (fp16 loss
/// scaling: the step's updates are skipped all together) since the last
/// call; clears the report. Always false on CUDA, which has no loss
/// scaling yet.
bool takeSkippedUpdate();

} // namespace memopt::rt::device

#endif // MEMOPT_RUNTIME_DEVICE_H
