//===- Common.h - Helpers shared by the CPU kernels --------------*- C++ -*-===//
//
// Argument checks that abort with the kernel's name, and the strided index
// walk that the broadcasting, transposing and reducing kernels share.
// Private to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_COMMON_H
#define MEMOPT_LIB_RUNTIME_CPU_COMMON_H

#include "memopt/Runtime/Tensor.h"

#include <string>

namespace memopt::rt::detail {

/// Prints "memopt runtime: <kernel>: <message>" to stderr and aborts.
[[noreturn]] void fatal(const char *kernel, const std::string &message);

/// Aborts through `fatal` unless `condition` holds.
inline void require(bool condition, const char *kernel, const char *message) {
  if (!condition)
    fatal(kernel, message);
}

/// "2x3x4", for messages.
std::string shapeString(const Dims &shape);

/// Aborts unless `tensor` has `expected` as its shape.
void requireShape(const char *kernel, const char *name, const Dims &actual,
                  const Dims &expected);

/// Aborts unless `tensor` has rank `rank`.
void requireRank(const char *kernel, const char *name, const Dims &shape,
                 int rank);

/// The strides, in elements, with which `operand` (a row-major tensor of
/// shape `operand`) is read at the indices of a tensor of shape `target`
/// under NumPy broadcasting: 0 along the broadcast axes. Aborts unless
/// `operand` broadcasts to `target`.
Dims broadcastStrides(const char *kernel, const Dims &operand,
                      const Dims &target);

/// Walks the row-major indices of `shape` and keeps, for up to two operands,
/// the element offset under per-axis `strides`. Usage:
///   for (StridedWalk w(shape, sa, sb); !w.done(); w.next()) use(w.offset(0));
class StridedWalk {
public:
  StridedWalk(const Dims &shape, const Dims &stridesA,
              const Dims &stridesB = Dims());
  bool done() const { return remaining == 0; }
  int64_t offset(int operand) const { return offsets[operand]; }
  /// The flat row-major index of the current position.
  int64_t index() const { return position; }
  void next();

private:
  Dims shape, strides[2], counter;
  int64_t offsets[2] = {0, 0};
  int64_t position = 0;
  int64_t remaining;
};

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_COMMON_H
