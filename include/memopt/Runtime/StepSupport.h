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

/// The convolution workspace at byte `offset` of the arena.
inline void *arenaWorkspace(void *arena, size_t offset) {
  return static_cast<char *>(arena) + offset;
}

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STEPSUPPORT_H
