//===- Resize.cpp - Nearest and bilinear resize and their adjoints --------===//
//
// ONNX Resize semantics (tg.resize): an output coordinate maps back to a
// source coordinate with the given scale and coordinate mode; nearest rounds
// it with the nearest mode, linear interpolates between its two neighbours
// along every spatial axis (linear, bilinear, trilinear in PyTorch's
// nesting: width innermost). Source coordinates outside the input clamp to the border, which
// is ONNX's edge extension and PyTorch's clamping of negative coordinates.
// The backward scatters every output gradient with the same weights.
//
// 1 to 3 spatial axes; a 3-D resize is a weighted pair of 2-D ones per
// output slice, and 1-D and 2-D resizes skip the axes they lack.
//
// Planes are split over threads. Within a plane, output columns go in blocks
// of kColumnBlock whose taps are computed once per block rather than once
// per element; the backward accumulates in that fixed order (a block, then
// its rows), whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "IndexMath.h"
#include "LowPrecision.h"

#include <algorithm>
#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

/// The extents of a resize over (depth, height, width), with unit leading
/// axes for 1-D and 2-D ones, and its scales.
struct ResizeShape {
  int axes;
  int64_t planes, inD, inH, inW, outD, outH, outW;
  double scaleD, scaleH, scaleW;
};

ResizeShape checkResize(const char *kernel, const Dims &input,
                        const Dims &output, const Scales &scales) {
  checkResizeShapes(kernel, input, output, scales);
  int axes = input.size - 2, lead = 3 - axes;
  auto at = [&](const Dims &shape, int i) {
    return i < lead ? int64_t(1) : shape[2 + i - lead];
  };
  auto scale = [&](int i) { return i < lead ? 1.0 : scales[i - lead]; };
  return {axes,
          input[0] * input[1],
          at(input, 0),
          at(input, 1),
          at(input, 2),
          at(output, 0),
          at(output, 1),
          at(output, 2),
          scale(0),
          scale(1),
          scale(2)};
}

/// Output columns whose taps are computed together.
constexpr int64_t kColumnBlock = 256;

/// The taps of one output position: along depth and height those of the
/// resize when it has the axis, otherwise the one input position.
struct Taps {
  ResizeTaps depth, height;
};

/// Calls `f(plane, taps, oslice, oh, ow0, columnTaps, count)` for every
/// plane, output slice, block of up to kColumnBlock output columns starting
/// at `ow0` and output row `oh`, in that nesting; planes are split over
/// threads.
template <typename F>
void forEachBlock(const ResizeShape &r, ResizeMode mode,
                  CoordinateMode coordinateMode, NearestMode nearestMode,
                  F f) {
  auto taps = [&](int64_t o, double scale, int64_t in, int64_t out,
                  bool present) {
    return present ? resizeTaps(o, scale, in, out, mode, coordinateMode,
                                nearestMode)
                   : ResizeTaps{{0, 0}, {1.0f, 0.0f}};
  };
  int64_t work =
      r.planes * (r.inD * r.inH * r.inW + r.outD * r.outH * r.outW);
  parallelFor(r.planes, work, [&](int64_t first, int64_t last) {
    ResizeTaps columns[kColumnBlock];
    for (int64_t p = first; p < last; ++p)
      for (int64_t od = 0; od < r.outD; ++od)
        for (int64_t ow0 = 0; ow0 < r.outW; ow0 += kColumnBlock) {
          int64_t count = std::min(kColumnBlock, r.outW - ow0);
          for (int64_t j = 0; j < count; ++j)
            columns[j] = resizeTaps(ow0 + j, r.scaleW, r.inW, r.outW, mode,
                                    coordinateMode, nearestMode);
          for (int64_t oh = 0; oh < r.outH; ++oh)
            f(p,
              Taps{taps(od, r.scaleD, r.inD, r.outD, r.axes == 3),
                   taps(oh, r.scaleH, r.inH, r.outH, r.axes >= 2)},
              od, oh, ow0, columns, count);
        }
  });
}

} // namespace

void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            const Scales &scales) {
  ResizeShape r = checkResize("resize", input.shape, output.shape, scales);
  requireType("resize", "output", output.type, input.type);
  dispatchFloatType("resize", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachBlock(r, mode, coordinateMode, nearestMode,
                 [&](int64_t p, const Taps &t, int64_t od, int64_t oh,
                     int64_t ow0, const ResizeTaps *tw, int64_t count) {
                   const T *in =
                       input.elements<T>() + p * r.inD * r.inH * r.inW;
                   auto row = [&](int d, int h) {
                     return in + (t.depth.index[d] * r.inH +
                                  t.height.index[h]) *
                                     r.inW;
                   };
                   T *out = output.elements<T>() +
                            ((p * r.outD + od) * r.outH + oh) * r.outW + ow0;
                   if (mode == ResizeMode::Nearest) {
                     const T *source = row(0, 0);
                     for (int64_t j = 0; j < count; ++j)
                       out[j] = source[tw[j].index[0]];
                     return;
                   }
                   auto line = [&](const T *source, int64_t j) {
                     return tw[j].weight[0] * source[tw[j].index[0]] +
                            tw[j].weight[1] * source[tw[j].index[1]];
                   };
                   auto slice = [&](int d, int64_t j) {
                     if (r.axes == 1)
                       return line(row(d, 0), j);
                     return t.height.weight[0] * line(row(d, 0), j) +
                            t.height.weight[1] * line(row(d, 1), j);
                   };
                   for (int64_t j = 0; j < count; ++j)
                     out[j] = r.axes < 3 ? slice(0, j)
                                         : t.depth.weight[0] * slice(0, j) +
                                               t.depth.weight[1] * slice(1, j);
                 });
  });
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    const Scales &scales) {
  ResizeShape r =
      checkResize("resize_backward", gradInput.shape, gradOutput.shape, scales);
  requireType("resize_backward", "gradInput", gradInput.type, gradOutput.type);
  const int64_t volume = r.inD * r.inH * r.inW;
  dispatchFloatType("resize_backward", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    forEachBlock(r, mode, coordinateMode, nearestMode,
                 [&](int64_t p, const Taps &t, int64_t od, int64_t oh,
                     int64_t ow0, const ResizeTaps *tw, int64_t count) {
                   T *dx = gradInput.elements<T>() + p * volume;
                   // The plane's first call clears it, on the thread that
                   // owns the plane.
                   if (od == 0 && oh == 0 && ow0 == 0)
                     std::fill(dx, dx + volume, 0.0f);
                   const T *dy =
                       gradOutput.elements<T>() +
                       ((p * r.outD + od) * r.outH + oh) * r.outW + ow0;
                   auto row = [&](int d, int h) {
                     return dx + (t.depth.index[d] * r.inH +
                                  t.height.index[h]) *
                                     r.inW;
                   };
                   if (mode == ResizeMode::Nearest) {
                     T *target = row(0, 0);
                     for (int64_t j = 0; j < count; ++j)
                       target[tw[j].index[0]] += dy[j];
                     return;
                   }
                   // The weight of each tap is the product of its axes'
                   // weights, outermost first (PyTorch's order).
                   int depths = r.axes == 3 ? 2 : 1;
                   int heights = r.axes >= 2 ? 2 : 1;
                   for (int64_t j = 0; j < count; ++j)
                     for (int a = 0; a < depths; ++a)
                       for (int i = 0; i < heights; ++i)
                         for (int k = 0; k < 2; ++k) {
                           float weight =
                               r.axes == 3 ? t.depth.weight[a] *
                                                 t.height.weight[i] *
                                                 tw[j].weight[k]
                               : r.axes == 2
                                   ? t.height.weight[i] * tw[j].weight[k]
                                   : tw[j].weight[k];
                           row(a, i)[tw[j].index[k]] += weight * dy[j];
                         }
                 });
  });
}

} // namespace memopt::rt
