//===- TensorBuffer.h - A step argument and its buffer ----------*- C++ -*-===//

#ifndef MEMOPT_RUNTIME_TENSORBUFFER_H
#define MEMOPT_RUNTIME_TENSORBUFFER_H

#include "memopt/Runtime/Program.h"

#include <cstddef>

namespace memopt::rt {

inline size_t elementBytes(ElementType type) {
  return type == ElementType::I64 ? 8 : 4;
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
