//===- Launch.h - Launching kernels on the CUDA runtime's stream -*- C++ -*-===//
//
// What code outside the CUDA runtime library needs to launch its own
// kernels in order with the runtime's: the generated training step (one
// `__global__` kernel per fused elementwise chain) includes it. Every
// kernel is a grid-stride loop over the elements with kLaunchThreads
// threads per block. The bf16 and f16 types of mixed precision
// (__nv_bfloat16, __half) come with it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_LAUNCH_H
#define MEMOPT_RUNTIME_CUDA_LAUNCH_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace memopt::rt::cuda {

/// Threads per block of every memopt kernel.
inline constexpr int kLaunchThreads = 256;

/// The stream of the step, on which every kernel, library call and copy is
/// queued in the step's order.
cudaStream_t stream();

/// Blocks of a grid-stride launch over `n` elements.
unsigned launchBlocks(int64_t n);

/// Checks the launch just queued; a failure prints
/// "memopt runtime: <op>: kernel launch failed: <error>" and aborts.
void checkLaunch(const char *op);

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_LAUNCH_H
