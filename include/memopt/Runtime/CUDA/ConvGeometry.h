//===- ConvGeometry.h - Convolutions as cuDNN's N-d descriptors -*- C++ -*-===//
//
// tg's convolutions take N x C x 1 to 3 spatial axes (rank 3 to 5). cuDNN's
// N-d convolution descriptors take 2 or 3 spatial axes, padded equally at
// both ends of each axis. This header maps a convolution onto them:
//
// - 2-D and 3-D convolutions keep their shapes;
// - a 1-D convolution (N x C x L) becomes a 2-D one with a trailing unit
//   axis (N x C x L x 1, kernel k x 1, stride s x 1, pad p x 0), so that
//   the bands of ConvBands.h still cut its one real axis;
// - anything else (another rank, attributes of the wrong length,
//   asymmetric pads) is refused with one line naming the limit.
//
// The CUDA runtime's bands cut the first spatial axis (rows of a 2-D
// image, slabs of depth of a 3-D volume): a "row" is then the
// `rowElements` contiguous elements of the remaining spatial axes, and a
// band of a tensor whose memory has more channels or rows than the call
// covers is a strided descriptor (`stridesOf`).
//
// The compiler (CudaWorkspace.cpp) runs the same checks when it sizes the
// workspace, so a model the CUDA runtime cannot convolve fails at compile
// time, at the op. Header-only and free of CUDA, so unit tests check it
// without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_CONVGEOMETRY_H
#define MEMOPT_RUNTIME_CUDA_CONVGEOMETRY_H

#include "memopt/Runtime/Tensor.h"

#include <array>
#include <cstdint>

namespace memopt::rt::cuda {

/// The most spatial axes a cuDNN convolution descriptor takes here.
inline constexpr int kMaxConvAxes = 3;

/// One value per spatial axis (unused axes are 1, or 0 for pads).
using AxisValues = std::array<int64_t, kMaxConvAxes>;

/// Why the CUDA runtime cannot convolve tensors of rank `rank` with these
/// attributes (one value per spatial axis; pads the begins, then the ends),
/// or null if it can.
inline const char *convUnsupported(int rank, const Dims &strides,
                                   const Dims &pads, const Dims &dilations) {
  if (rank < 3 || rank > 2 + kMaxConvAxes)
    return "the CUDA backend convolves 1-D to 3-D tensors only (rank 3 to "
           "5: N x C x 1 to 3 spatial axes)";
  int axes = rank - 2;
  if (strides.size != axes || dilations.size != axes || pads.size != 2 * axes)
    return "strides and dilations need one value per spatial axis, pads two";
  for (int i = 0; i < axes; ++i)
    if (pads[i] != pads[axes + i])
      return "cuDNN needs symmetric convolution padding (the begin and the "
             "end of each spatial axis equal); pad the input explicitly or "
             "use --target=cpu";
  return nullptr;
}

/// A convolution as cuDNN runs it: x (input), w (filter) and y (output) of
/// rank 2 + `axes`, with one stride, dilation and (symmetric) pad per
/// spatial axis.
struct ConvGeometry {
  /// 2 or 3.
  int axes = 0;
  Dims x, w, y;
  AxisValues strides{1, 1, 1}, dilations{1, 1, 1}, pads{0, 0, 0};
};

/// `shape` with a trailing unit axis when it is 1-D (rank 3).
inline Dims withUnitAxis(const Dims &shape) {
  Dims d = shape;
  if (d.size == 3)
    d[d.size++] = 1;
  return d;
}

/// The cuDNN geometry of the convolution of x, w and y (tg's shapes and
/// attributes); the caller has checked convUnsupported.
inline ConvGeometry convGeometry(const Dims &x, const Dims &w, const Dims &y,
                                 const Dims &strides, const Dims &pads,
                                 const Dims &dilations) {
  ConvGeometry g;
  int axes = x.size - 2;
  g.axes = axes == 1 ? 2 : axes;
  g.x = withUnitAxis(x);
  g.w = withUnitAxis(w);
  g.y = withUnitAxis(y);
  for (int i = 0; i < axes; ++i) {
    g.strides[i] = strides[i];
    g.dilations[i] = dilations[i];
    g.pads[i] = pads[i];
  }
  return g;
}

/// The elements of one row of `shape` (N x C x spatial axes): one step
/// along the first spatial axis, i.e. the product of the later ones (the
/// width of an image, the H x W slab of a volume).
inline int64_t rowElements(const Dims &shape) {
  int64_t n = 1;
  for (int i = 3; i < shape.size; ++i)
    n *= shape[i];
  return n;
}

/// The element strides of a tensor `shape` whose memory holds `channels`
/// >= shape[1] channels of `rows` >= shape[2] rows each (a slice of the
/// channels, a band of the rows of a larger tensor); contiguous otherwise.
inline Dims stridesOf(const Dims &shape, int64_t channels, int64_t rows) {
  Dims strides = shape;
  int64_t stride = 1;
  for (int i = shape.size - 1; i >= 3; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  strides[2] = stride;
  strides[1] = rows * stride;
  strides[0] = channels * rows * stride;
  return strides;
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_CONVGEOMETRY_H
