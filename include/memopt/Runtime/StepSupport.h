//===- StepSupport.h - Helpers for generated training steps ------*- C++ -*-===//
//
// The few helpers that the C++ emitted by `convert-tg-to-emitc` calls besides
// the kernels: views over the step's argument and result buffers and over
// the arena, whose offsets the static memory plan fixed at compile time.
// Header-only and allocation-free; nothing here is on the kernels' side of
// the interface.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_STEPSUPPORT_H
#define MEMOPT_RUNTIME_STEPSUPPORT_H

#include "memopt/Runtime/Random.h"
#include "memopt/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>

namespace memopt::rt {

/// A float view of `shape` over buffer `index` of `buffers` (the step's
/// `args` or `results`).
inline Tensor bufferTensor(void *const *buffers, int index, Dims shape) {
  return Tensor(static_cast<float *>(buffers[index]), shape);
}

/// The rank-0 int64 held by buffer `index` (the step number, the seed).
inline int64_t bufferInt64(void *const *buffers, int index) {
  return *static_cast<const int64_t *>(buffers[index]);
}

/// A view of `shape` at byte `offset` of the arena, of elements of `type`
/// (f32; bf16 or f16 for mixed precision).
inline Tensor arenaTensor(void *arena, size_t offset, Dims shape,
                          ElementType type = ElementType::F32) {
  return Tensor(reinterpret_cast<float *>(static_cast<char *>(arena) + offset),
                shape, type);
}

/// The size the plan gave the workspace that the next kernel call on this
/// thread receives; SIZE_MAX when the caller did not say (tests calling
/// kernels directly). The CPU convolutions check their scratchpad against
/// it, so that a machine whose oneDNN wants more (another ISA) stops with
/// an error instead of writing past the workspace into the arena. A side
/// channel rather than a kernel argument: the kernels' signatures stay
/// those of Kernels.h, shared with the CUDA runtime.
inline size_t &plannedWorkspaceBytes() {
  static thread_local size_t bytes = SIZE_MAX;
  return bytes;
}

/// The convolution workspace of `bytes` at byte `offset` of the arena.
inline void *arenaWorkspace(void *arena, size_t offset, size_t bytes) {
  plannedWorkspaceBytes() = bytes;
  return static_cast<char *>(arena) + offset;
}

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STEPSUPPORT_H
