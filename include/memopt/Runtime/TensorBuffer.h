//===- TensorBuffer.h - A step argument and its buffer ----------*- C++ -*-===//

#ifndef MEMOPT_RUNTIME_TENSORBUFFER_H
#define MEMOPT_RUNTIME_TENSORBUFFER_H

#include "memopt/Runtime/Program.h"

#include <cstddef>

namespace memopt::rt {

// elementBytes(ElementType) is in Tensor.h.

/// The bytes of all arenas of `program`.
inline size_t totalArenaBytes(const Program &program) {
  size_t bytes = 0;
  for (int i = 0; i < program.numArenas; ++i)
    bytes += program.arenas[i].bytes;
  return bytes;
}

/// The spec of a step argument and the buffer the trainer allocated for it.
struct TensorBuffer {
  const TensorSpec *spec;
  void *data;

  size_t bytes() const {
    return static_cast<size_t>(spec->numElements()) *
           elementBytes(spec->elementType);
  }
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_TENSORBUFFER_H
