//===- Common.cpp - Helpers shared by the CPU kernels ---------------------===//

#include "Common.h"

#include <cstdio>
#include <cstdlib>

namespace memopt::rt::detail {

void fatal(const char *kernel, const std::string &message) {
  std::fprintf(stderr, "memopt runtime: %s: %s\n", kernel, message.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string shapeString(const Dims &shape) {
  if (shape.size == 0)
    return "scalar";
  std::string text;
  for (int i = 0; i < shape.size; ++i) {
    if (i)
      text += "x";
    text += std::to_string(shape[i]);
  }
  return text;
}

void requireShape(const char *kernel, const char *name, const Dims &actual,
                  const Dims &expected) {
  if (actual != expected)
    fatal(kernel, std::string("'") + name + "' has shape " +
                      shapeString(actual) + ", expected " +
                      shapeString(expected));
}

void requireRank(const char *kernel, const char *name, const Dims &shape,
                 int rank) {
  if (shape.size != rank)
    fatal(kernel, std::string("'") + name + "' has shape " +
                      shapeString(shape) + ", expected rank " +
                      std::to_string(rank));
}

Dims broadcastStrides(const char *kernel, const Dims &operand,
                      const Dims &target) {
  if (operand.size > target.size)
    fatal(kernel, "operand of shape " + shapeString(operand) +
                      " does not broadcast to " + shapeString(target));
  Dims own = contiguousStrides(operand);
  Dims strides;
  strides.size = target.size;
  int shift = target.size - operand.size;
  for (int i = 0; i < target.size; ++i) {
    if (i < shift) {
      strides[i] = 0;
      continue;
    }
    int64_t dim = operand[i - shift];
    if (dim != target[i] && dim != 1)
      fatal(kernel, "operand of shape " + shapeString(operand) +
                        " does not broadcast to " + shapeString(target));
    strides[i] = dim == 1 ? 0 : own[i - shift];
  }
  return strides;
}

StridedWalk::StridedWalk(const Dims &shape, const Dims &stridesA,
                         const Dims &stridesB)
    : shape(shape), strides{stridesA, stridesB}, remaining(shape.product()) {
  counter.size = shape.size;
  if (strides[1].size == 0)
    strides[1].size = shape.size;
}

void StridedWalk::next() {
  --remaining;
  ++position;
  for (int i = shape.size - 1; i >= 0; --i) {
    offsets[0] += strides[0][i];
    offsets[1] += strides[1][i];
    if (++counter[i] < shape[i])
      return;
    offsets[0] -= strides[0][i] * shape[i];
    offsets[1] -= strides[1][i] * shape[i];
    counter[i] = 0;
  }
}

} // namespace memopt::rt::detail
