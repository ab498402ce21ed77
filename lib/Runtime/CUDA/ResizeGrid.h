//===- ResizeGrid.h - Resize of the CUDA kernels, per element ---*- C++ -*-===//
//
// The CUDA runtime's resize and its gradient (Data.cu) compute one output
// element, or one input-gradient element, per thread. This header is what
// each thread computes, for 1 to 3 spatial axes: every resize is a 3-D one
// over (depth, height, width), the axes a 1-D or 2-D one lacks absent (one
// position read with weight 1), as on the CPU (lib/Runtime/CPU/Resize.cpp);
// the taps of each axis are the CPU's (IndexMath.h: nearest with the ONNX
// nearest modes, linear, every ONNX coordinate mode). The gradient
// gathers: an input-gradient element visits the output positions that may
// read it, in row-major order, and sums weight x gradient itself.
//
// Host and device code (the accessors are templates), so unit tests check
// it against the CPU kernels without a GPU. Private to the runtime
// library and its tests.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_RESIZEGRID_H
#define MEMOPT_LIB_RUNTIME_CUDA_RESIZEGRID_H

#include "../CPU/IndexMath.h"

namespace memopt::rt::cuda {

/// One axis of a resize: extents, scale and modes, by value.
struct ResizeAxis {
  bool present;
  int64_t in, out;
  double scale;
  ResizeMode mode;
  CoordinateMode coordinateMode;
  NearestMode nearestMode;

  /// The input positions output position `x` reads and their weights.
  MEMOPT_HOST_DEVICE detail::ResizeTaps taps(int64_t x) const {
    if (!present)
      return {{0, 0}, {1.0f, 0.0f}};
    return detail::resizeTaps(x, scale, in, out, mode, coordinateMode,
                              nearestMode);
  }

  /// The weight with which output position `x` reads input position `i`
  /// (a sum when both taps are `i`; 0 when it does not read it).
  MEMOPT_HOST_DEVICE float weightOf(int64_t x, int64_t i) const {
    detail::ResizeTaps t = taps(x);
    if (mode == ResizeMode::Nearest)
      return t.index[0] == i ? 1.0f : 0.0f;
    return (t.index[0] == i ? t.weight[0] : 0.0f) +
           (t.index[1] == i ? t.weight[1] : 0.0f);
  }

  /// Output positions that may read input position `i`: the map is
  /// monotone with slope at most `reach`, so a window around i * out / in
  /// holds all of them; weightOf decides exactly.
  MEMOPT_HOST_DEVICE void candidates(int64_t i, int64_t &first,
                                     int64_t &last) const {
    double ratio = fmax(scale, static_cast<double>(out) / in);
    int64_t reach = static_cast<int64_t>(ceil(ratio)) + 2;
    int64_t centre = static_cast<int64_t>(::floor(i * ratio));
    first = centre - 2 * reach > 0 ? centre - 2 * reach : 0;
    last = centre + 2 * reach < out - 1 ? centre + 2 * reach : out - 1;
  }
};

/// A resize over (depth, height, width): `axes` of them present, the
/// last ones.
struct ResizeGrid {
  int axes;
  int64_t planes;
  ResizeAxis d, h, w;

  MEMOPT_HOST_DEVICE int64_t inVolume() const { return d.in * h.in * w.in; }
  MEMOPT_HOST_DEVICE int64_t outVolume() const { return d.out * h.out * w.out; }

  /// Output element `o` (flat, in its plane) of the resize of `volume`
  /// (one plane): linear along each axis, innermost first (the CPU's
  /// order), or the nearest input.
  template <typename Volume>
  MEMOPT_HOST_DEVICE float valueAt(const Volume &volume, int64_t o) const {
    detail::ResizeTaps td = d.taps(o / (h.out * w.out));
    detail::ResizeTaps th = h.taps(o / w.out % h.out);
    detail::ResizeTaps tw = w.taps(o % w.out);
    auto at = [&](int a, int b, int c) -> float {
      return volume[(td.index[a] * h.in + th.index[b]) * w.in + tw.index[c]];
    };
    if (w.mode == ResizeMode::Nearest)
      return at(0, 0, 0);
    auto line = [&](int a, int b) {
      return tw.weight[0] * at(a, b, 0) + tw.weight[1] * at(a, b, 1);
    };
    auto slice = [&](int a) {
      if (axes == 1)
        return line(a, 0);
      return th.weight[0] * line(a, 0) + th.weight[1] * line(a, 1);
    };
    return axes < 3 ? slice(0)
                    : td.weight[0] * slice(0) + td.weight[1] * slice(1);
  }

  /// Element `index` (flat, in its plane) of the resize gradient: the sum
  /// over the output positions that read it, in row-major order, of their
  /// gradient times the product of the axes' weights (outermost first).
  template <typename Grad>
  MEMOPT_HOST_DEVICE float gradAt(const Grad &grad, int64_t index) const {
    int64_t x = index % w.in, y = index / w.in % h.in,
            z = index / (w.in * h.in);
    int64_t od0, od1, oh0, oh1, ow0, ow1;
    d.candidates(z, od0, od1);
    h.candidates(y, oh0, oh1);
    w.candidates(x, ow0, ow1);
    float sum = 0;
    for (int64_t od = od0; od <= od1; ++od) {
      float wd = d.weightOf(od, z);
      if (wd == 0)
        continue;
      for (int64_t oh = oh0; oh <= oh1; ++oh) {
        float wh = h.weightOf(oh, y);
        if (wh == 0)
          continue;
        for (int64_t ow = ow0; ow <= ow1; ++ow) {
          float ww = w.weightOf(ow, x);
          if (ww != 0)
            sum += wd * wh * ww * grad[(od * h.out + oh) * w.out + ow];
        }
      }
    }
    return sum;
  }
};

/// The grid of a resize of `input` (N x C x 1 to 3 spatial axes) into
/// `output` by `scales`; the caller has checked them (checkResizeShapes).
inline ResizeGrid resizeGrid(const Dims &input, const Dims &output,
                             ResizeMode mode, CoordinateMode coordinateMode,
                             NearestMode nearestMode, const Scales &scales) {
  int axes = input.size - 2, lead = 3 - axes;
  auto axis = [&](int a) -> ResizeAxis {
    if (a < lead)
      return {false, 1, 1, 1.0, mode, coordinateMode, nearestMode};
    int i = a - lead;
    return {true, input[2 + i],   output[2 + i], scales[i],
            mode, coordinateMode, nearestMode};
  };
  return {axes, input[0] * input[1], axis(0), axis(1), axis(2)};
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_RESIZEGRID_H
