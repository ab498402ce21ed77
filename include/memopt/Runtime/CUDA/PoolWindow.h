//===- PoolWindow.h - Pooling windows of the CUDA kernels -------*- C++ -*-===//
//
// The CUDA runtime's max and average pooling (lib/Runtime/CUDA/Data.cu)
// compute one output element, or one input-gradient element, per thread.
// This header is what each thread computes, for 1 to 3 spatial axes: every
// pooling is a 3-D one over (depth, height, width), the axes a 1-D or 2-D
// pooling lacks as unit leading axes (one-position windows, no pads), as
// on the CPU (lib/Runtime/CPU/Pooling.cpp). The gradients gather: an
// input-gradient element visits the output windows that may cover it, in
// row-major (d, h, w) order, and sums their contributions itself, so no
// two threads write one element and the sums have the CPU's scatter order.
//
// Host and device code (the accessors are templates: a pointer on the
// host, the kernels' typed loads on the device), so unit tests check it
// against the CPU kernels without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_POOLWINDOW_H
#define MEMOPT_RUNTIME_CUDA_POOLWINDOW_H

#include "memopt/Runtime/Tensor.h"

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define MEMOPT_POOL_HOST_DEVICE __host__ __device__
#else
#define MEMOPT_POOL_HOST_DEVICE
#endif

namespace memopt::rt::cuda {

/// The shapes and window of a pooling over (depth, height, width), passed
/// to kernels by value.
struct PoolWindow {
  int64_t planes;
  int64_t in[3], out[3], kernel[3], strides[3], dilations[3], padBegin[3],
      padEnd[3];

  MEMOPT_POOL_HOST_DEVICE int64_t inVolume() const {
    return in[0] * in[1] * in[2];
  }
  MEMOPT_POOL_HOST_DEVICE int64_t outVolume() const {
    return out[0] * out[1] * out[2];
  }

  /// The coordinates (d, h, w) of flat position `index` in a volume of
  /// `extent`.
  MEMOPT_POOL_HOST_DEVICE static void
  coordinates(int64_t index, const int64_t extent[3], int64_t c[3]) {
    c[2] = index % extent[2];
    c[1] = index / extent[2] % extent[1];
    c[0] = index / (extent[2] * extent[1]);
  }

  /// The flat index in its volume of the maximum of max window `o`, or -1
  /// when the window covers no input position (the CPU's rules: first
  /// maximum in row-major (d, h, w) order, a NaN wins).
  template <typename Volume>
  MEMOPT_POOL_HOST_DEVICE int64_t argmax(const Volume &volume,
                                         const int64_t o[3]) const {
    int64_t first[3], end[3];
    for (int a = 0; a < 3; ++a) {
      first[a] = o[a] * strides[a] - padBegin[a];
      end[a] = first[a] + (kernel[a] - 1) * dilations[a] + 1;
      end[a] = end[a] < in[a] ? end[a] : in[a];
      while (first[a] < 0)
        first[a] += dilations[a];
    }
    int64_t best = -1;
    float bestValue = 0;
    for (int64_t d = first[0]; d < end[0]; d += dilations[0])
      for (int64_t h = first[1]; h < end[1]; h += dilations[1])
        for (int64_t x = first[2]; x < end[2]; x += dilations[2]) {
          int64_t index = (d * in[1] + h) * in[2] + x;
          float v = volume[index];
          if (best < 0 || v > bestValue || v != v) {
            best = index;
            bestValue = v;
          }
        }
    return best;
  }

  /// The clipped extent [first[a], end[a]) of average window `o` along
  /// each axis and its divisor (the window clipped to the padded input
  /// with `countIncludePad`, else the input positions it covers).
  MEMOPT_POOL_HOST_DEVICE void average(const int64_t o[3], bool countIncludePad,
                                       int64_t first[3], int64_t end[3],
                                       double &divisor) const {
    int64_t padded = 1, covered = 1;
    for (int a = 0; a < 3; ++a) {
      first[a] = o[a] * strides[a] - padBegin[a];
      end[a] = first[a] + kernel[a];
      end[a] = end[a] < in[a] + padEnd[a] ? end[a] : in[a] + padEnd[a];
      padded *= end[a] - first[a];
      first[a] = first[a] > 0 ? first[a] : 0;
      end[a] = end[a] < in[a] ? end[a] : in[a];
      covered *= end[a] - first[a];
    }
    divisor = static_cast<double>(countIncludePad ? padded : covered);
  }

  /// The output positions along `axis` whose window may cover input
  /// position `i`: [first, last], clamped to the output.
  MEMOPT_POOL_HOST_DEVICE void candidates(int axis, int64_t i, int64_t &first,
                                          int64_t &last) const {
    int64_t reach = (kernel[axis] - 1) * dilations[axis];
    int64_t lo = i + padBegin[axis] - reach;
    first = lo <= 0 ? 0 : (lo + strides[axis] - 1) / strides[axis];
    last = (i + padBegin[axis]) / strides[axis];
    last = last < out[axis] - 1 ? last : out[axis] - 1;
  }

  /// Output element `o` (flat, in its plane) of max pooling of `volume`
  /// (one plane); -infinity for a window that covers no input.
  template <typename Volume>
  MEMOPT_POOL_HOST_DEVICE float maxAt(const Volume &volume, int64_t o) const {
    int64_t c[3];
    coordinates(o, out, c);
    int64_t best = argmax(volume, c);
    return best < 0 ? -INFINITY : static_cast<float>(volume[best]);
  }

  /// Calls `f(o, flat)` for every output window `o` (`flat`: its index in
  /// the plane) that may cover input position `c` (whose flat index is
  /// `index`), in row-major order.
  template <typename F>
  MEMOPT_POOL_HOST_DEVICE void forEachCandidate(int64_t index, int64_t c[3],
                                                F f) const {
    int64_t from[3], to[3], o[3];
    coordinates(index, in, c);
    for (int a = 0; a < 3; ++a)
      candidates(a, c[a], from[a], to[a]);
    for (o[0] = from[0]; o[0] <= to[0]; ++o[0])
      for (o[1] = from[1]; o[1] <= to[1]; ++o[1])
        for (o[2] = from[2]; o[2] <= to[2]; ++o[2])
          f(o, (o[0] * out[1] + o[1]) * out[2] + o[2]);
  }

  /// Element `index` of the max-pooling gradient of one plane: the sum of
  /// `grad` over the windows whose maximum it is, in output order.
  template <typename Volume, typename Grad>
  MEMOPT_POOL_HOST_DEVICE float
  maxGradAt(const Volume &volume, const Grad &grad, int64_t index) const {
    int64_t c[3];
    float sum = 0;
    forEachCandidate(index, c, [&](const int64_t o[3], int64_t flat) {
      if (argmax(volume, o) == index)
        sum += grad[flat];
    });
    return sum;
  }

  /// Output element `o` of average pooling of `volume` (one plane): a
  /// double sum in row-major order over its divisor.
  template <typename Volume>
  MEMOPT_POOL_HOST_DEVICE float averageAt(const Volume &volume, int64_t o,
                                          bool countIncludePad) const {
    int64_t c[3], first[3], end[3];
    coordinates(o, out, c);
    double divisor;
    average(c, countIncludePad, first, end, divisor);
    double sum = 0;
    for (int64_t d = first[0]; d < end[0]; ++d)
      for (int64_t h = first[1]; h < end[1]; ++h)
        for (int64_t x = first[2]; x < end[2]; ++x)
          sum += volume[(d * in[1] + h) * in[2] + x];
    return static_cast<float>(sum / divisor);
  }

  /// Element `index` of the average-pooling gradient of one plane: each
  /// covering window's gradient over its divisor, in output order.
  template <typename Grad>
  MEMOPT_POOL_HOST_DEVICE float averageGradAt(const Grad &grad, int64_t index,
                                              bool countIncludePad) const {
    int64_t c[3];
    float sum = 0;
    forEachCandidate(index, c, [&](const int64_t o[3], int64_t flat) {
      int64_t first[3], end[3];
      double divisor;
      average(o, countIncludePad, first, end, divisor);
      bool covers = true;
      for (int a = 0; a < 3; ++a)
        covers = covers && first[a] <= c[a] && c[a] < end[a];
      if (covers)
        sum += static_cast<float>(grad[flat] / divisor);
    });
    return sum;
  }
};

/// The window of a pooling of `input` (N x C x 1 to 3 spatial axes) into
/// `output` with one kernel size, stride and dilation per spatial axis and
/// the pads' begins, then ends; the caller has checked them (poolShape).
inline PoolWindow poolWindow(const Dims &input, const Dims &output,
                             const Dims &size, const Dims &strides,
                             const Dims &pads, const Dims &dilations) {
  int axes = input.size - 2, lead = 3 - axes;
  PoolWindow w{input[0] * input[1], {}, {}, {}, {}, {}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    bool present = a >= lead;
    int i = a - lead;
    w.in[a] = present ? input[2 + i] : 1;
    w.out[a] = present ? output[2 + i] : 1;
    w.kernel[a] = present ? size[i] : 1;
    w.strides[a] = present ? strides[i] : 1;
    w.dilations[a] = present ? dilations[i] : 1;
    w.padBegin[a] = present ? pads[i] : 0;
    w.padEnd[a] = present ? pads[axes + i] : 0;
  }
  return w;
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_POOLWINDOW_H
