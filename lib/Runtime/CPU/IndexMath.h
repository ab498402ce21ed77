//===- IndexMath.h - Index arithmetic of host and device kernels -*- C++ -*-===//
//
// The source positions of resize and pad, written once for the CPU kernels
// and the CUDA kernels (which compile them as __host__ __device__), so that
// both backends read the same input elements. Private to the runtime
// libraries.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_INDEXMATH_H
#define MEMOPT_LIB_RUNTIME_CPU_INDEXMATH_H

#include "memopt/Runtime/Kernels.h"

#include <math.h>

#ifdef __CUDACC__
#define MEMOPT_HOST_DEVICE __host__ __device__
#else
#define MEMOPT_HOST_DEVICE
#endif

namespace memopt::rt::detail {

/// The source coordinate of output position `x` of a resize along an axis
/// of `in` input and `out` output positions (ONNX coordinate modes).
MEMOPT_HOST_DEVICE inline double resizeSource(int64_t x, double scale,
                                              int64_t in, int64_t out,
                                              CoordinateMode mode) {
  switch (mode) {
  case CoordinateMode::HalfPixel:
    return (x + 0.5) / scale - 0.5;
  case CoordinateMode::PytorchHalfPixel:
    return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  case CoordinateMode::AlignCorners:
    return out == 1 ? 0.0
                    : static_cast<double>(x) * static_cast<double>(in - 1) /
                          static_cast<double>(out - 1);
  case CoordinateMode::Asymmetric:
    return x / scale;
  }
  return 0;
}

/// `s` rounded to an index with the ONNX nearest mode.
MEMOPT_HOST_DEVICE inline int64_t roundNearest(double s, NearestMode mode) {
  double f = ::floor(s);
  switch (mode) {
  case NearestMode::Floor:
    return static_cast<int64_t>(f);
  case NearestMode::Ceil:
    return static_cast<int64_t>(ceil(s));
  case NearestMode::RoundPreferFloor:
  case NearestMode::RoundPreferCeil: {
    double d = s - f;
    bool up = d > 0.5 || (d == 0.5 && mode == NearestMode::RoundPreferCeil);
    return static_cast<int64_t>(f) + (up ? 1 : 0);
  }
  }
  return 0;
}

/// Up to two input positions and their weights for one output position of
/// a resize (nearest: one position, weights 1 and 0). Coordinates outside
/// the input clamp to its border.
struct ResizeTaps {
  int64_t index[2];
  float weight[2];
};

MEMOPT_HOST_DEVICE inline ResizeTaps
resizeTaps(int64_t x, double scale, int64_t in, int64_t out, ResizeMode mode,
           CoordinateMode coordinateMode, NearestMode nearestMode) {
  double s = resizeSource(x, scale, in, out, coordinateMode);
  if (mode == ResizeMode::Nearest) {
    int64_t i = roundNearest(s, nearestMode);
    i = i < 0 ? 0 : (i > in - 1 ? in - 1 : i);
    return {{i, i}, {1.0f, 0.0f}};
  }
  double last = static_cast<double>(in - 1);
  s = s < 0.0 ? 0.0 : (s > last ? last : s);
  int64_t i0 = static_cast<int64_t>(::floor(s));
  int64_t i1 = i0 + 1 < in - 1 ? i0 + 1 : in - 1;
  float l1 = static_cast<float>(s - static_cast<double>(i0));
  return {{i0, i1}, {1.0f - l1, l1}};
}

/// The source index along an axis of extent `n` for padded position `i`,
/// or -1 for the constant fill.
MEMOPT_HOST_DEVICE inline int64_t padSource(int64_t i, int64_t n,
                                            PadMode mode) {
  if (i >= 0 && i < n)
    return i;
  switch (mode) {
  case PadMode::Constant:
    return -1;
  case PadMode::Reflect:
    return i < 0 ? -i : 2 * (n - 1) - i;
  case PadMode::Edge:
    return i < 0 ? 0 : n - 1;
  }
  return -1;
}

/// The padded positions along one axis that read input position `j` (the
/// inverse of padSource), as at most three ascending, disjoint ranges
/// [lo[r], hi[r]]: an edge pad's first and last positions are read by
/// their whole border, a reflect pad's by their mirror image too.
struct PadReaders {
  int count;
  int64_t lo[3], hi[3];
};

MEMOPT_HOST_DEVICE inline PadReaders padReaders(int64_t j, int64_t n,
                                                int64_t before, int64_t after,
                                                PadMode mode) {
  PadReaders r{0, {}, {}};
  auto add = [&r](int64_t lo, int64_t hi) {
    r.lo[r.count] = lo;
    r.hi[r.count] = hi;
    ++r.count;
  };
  switch (mode) {
  case PadMode::Constant:
    add(before + j, before + j);
    break;
  case PadMode::Edge:
    add(j == 0 ? 0 : before + j, j == n - 1 ? before + n - 1 + after
                                            : before + j);
    break;
  case PadMode::Reflect:
    if (j >= 1 && j <= before)
      add(before - j, before - j);
    add(before + j, before + j);
    if (j <= n - 2 && j >= n - 1 - after)
      add(before + 2 * (n - 1) - j, before + 2 * (n - 1) - j);
    break;
  }
  return r;
}

/// The gradient of one input element of a pad: the sum of `dy` (the
/// padded tensor's gradient, read as float through `dy[offset]`) over the
/// padded positions that copied it, in row-major order (so the CPU and
/// the CUDA kernel add the same terms in the same order). `in` is the
/// input's coordinates, `outStrides` the padded tensor's strides.
#ifdef __CUDACC__
// The CUDA kernel's Source reads device memory (__device__ only).
#pragma nv_exec_check_disable
#endif
template <typename Source>
MEMOPT_HOST_DEVICE inline float padGradient(const Source &dy, int rank,
                                            const int64_t *in,
                                            const int64_t *shape,
                                            const int64_t *pads,
                                            const int64_t *outStrides,
                                            PadMode mode) {
  PadReaders readers[kMaxRank];
  int range[kMaxRank];
  int64_t pos[kMaxRank];
  for (int a = 0; a < rank; ++a) {
    readers[a] = padReaders(in[a], shape[a], pads[a], pads[rank + a], mode);
    range[a] = 0;
    pos[a] = readers[a].lo[0];
  }
  float sum = 0.0f;
  while (true) {
    int64_t offset = 0;
    for (int a = 0; a < rank; ++a)
      offset += pos[a] * outStrides[a];
    sum += dy[offset];
    int a = rank - 1;
    for (; a >= 0; --a) {
      if (pos[a] < readers[a].hi[range[a]]) {
        ++pos[a];
        break;
      }
      if (range[a] + 1 < readers[a].count) {
        pos[a] = readers[a].lo[++range[a]];
        break;
      }
      range[a] = 0;
      pos[a] = readers[a].lo[0];
    }
    if (a < 0)
      return sum;
  }
}

/// The gradient of element (o, j, i) of a gather's input (outer x extent x
/// inner, GatherLayout): the sum of `dy` (outer x count x inner, read as
/// float through `dy[offset]`) over the index positions k with
/// indices[k] = j, in ascending k (`offsets` and `positions`:
/// invertGatherIndices), so that the CPU and the CUDA kernel add the same
/// terms in the same order.
#ifdef __CUDACC__
// The CUDA kernel's Source reads device memory (__device__ only).
#pragma nv_exec_check_disable
#endif
template <typename Source>
MEMOPT_HOST_DEVICE inline float
gatherGradient(const Source &dy, const int64_t *offsets,
               const int64_t *positions, int64_t o, int64_t j, int64_t i,
               int64_t count, int64_t inner) {
  float sum = 0.0f;
  for (int64_t r = offsets[j]; r < offsets[j + 1]; ++r)
    sum += dy[(o * count + positions[r]) * inner + i];
  return sum;
}

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_INDEXMATH_H
