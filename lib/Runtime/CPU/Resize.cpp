//===- Resize.cpp - Nearest and bilinear resize and their adjoints --------===//
//
// ONNX Resize semantics (tg.resize): an output coordinate maps back to a
// source coordinate with the given scale and coordinate mode; nearest rounds
// it with the nearest mode, bilinear interpolates between its two
// neighbours. Source coordinates outside the input clamp to the border, which
// is ONNX's edge extension and PyTorch's clamping of negative coordinates.
// The backward scatters every output gradient with the same weights.
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

struct ResizeShape {
  int64_t planes, inH, inW, outH, outW;
};

ResizeShape checkResize(const char *kernel, const Dims &input,
                        const Dims &output, std::array<double, 2> scales) {
  checkResizeShapes(kernel, input, output, scales);
  return {input[0] * input[1], input[2], input[3], output[2], output[3]};
}

/// Output columns whose taps are computed together.
constexpr int64_t kColumnBlock = 256;

/// Calls `f(plane, oh, rowTaps, ow0, columnTaps, count)` for every plane,
/// every block of up to kColumnBlock output columns starting at `ow0`, and
/// every output row `oh`, in that nesting; planes are split over threads.
template <typename F>
void forEachBlock(const ResizeShape &r, std::array<double, 2> scales,
                  ResizeMode mode, CoordinateMode coordinateMode,
                  NearestMode nearestMode, F f) {
  int64_t work = r.planes * (r.inH * r.inW + r.outH * r.outW);
  parallelFor(r.planes, work, [&](int64_t first, int64_t last) {
    ResizeTaps columns[kColumnBlock];
    for (int64_t p = first; p < last; ++p)
      for (int64_t ow0 = 0; ow0 < r.outW; ow0 += kColumnBlock) {
        int64_t count = std::min(kColumnBlock, r.outW - ow0);
        for (int64_t j = 0; j < count; ++j)
          columns[j] = resizeTaps(ow0 + j, scales[1], r.inW, r.outW, mode,
                                  coordinateMode, nearestMode);
        for (int64_t oh = 0; oh < r.outH; ++oh)
          f(p, oh,
            resizeTaps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
                       nearestMode),
            ow0, columns, count);
      }
  });
}

} // namespace

void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            std::array<double, 2> scales) {
  ResizeShape r = checkResize("resize", input.shape, output.shape, scales);
  requireType("resize", "output", output.type, input.type);
  dispatchFloatType("resize", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachBlock(r, scales, mode, coordinateMode, nearestMode,
                 [&](int64_t p, int64_t oh, const ResizeTaps &th, int64_t ow0,
                     const ResizeTaps *tw, int64_t count) {
                   const T *in = input.elements<T>() + p * r.inH * r.inW;
                   const T *row0 = in + th.index[0] * r.inW;
                   const T *row1 = in + th.index[1] * r.inW;
                   T *out =
                       output.elements<T>() + (p * r.outH + oh) * r.outW + ow0;
                   if (mode == ResizeMode::Nearest) {
                     for (int64_t j = 0; j < count; ++j)
                       out[j] = row0[tw[j].index[0]];
                     return;
                   }
                   for (int64_t j = 0; j < count; ++j) {
                     float top = tw[j].weight[0] * row0[tw[j].index[0]] +
                                 tw[j].weight[1] * row0[tw[j].index[1]];
                     float bottom = tw[j].weight[0] * row1[tw[j].index[0]] +
                                    tw[j].weight[1] * row1[tw[j].index[1]];
                     out[j] = th.weight[0] * top + th.weight[1] * bottom;
                   }
                 });
  });
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    std::array<double, 2> scales) {
  ResizeShape r =
      checkResize("resize_backward", gradInput.shape, gradOutput.shape, scales);
  requireType("resize_backward", "gradInput", gradInput.type, gradOutput.type);
  dispatchFloatType("resize_backward", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    forEachBlock(r, scales, mode, coordinateMode, nearestMode,
                 [&](int64_t p, int64_t oh, const ResizeTaps &th, int64_t ow0,
                     const ResizeTaps *tw, int64_t count) {
                   T *dx = gradInput.elements<T>() + p * r.inH * r.inW;
                   // The plane's first call clears it, on the thread that
                   // owns the plane.
                   if (oh == 0 && ow0 == 0)
                     std::fill(dx, dx + r.inH * r.inW, 0.0f);
                   const T *dy = gradOutput.elements<T>() +
                                 (p * r.outH + oh) * r.outW + ow0;
                   T *row0 = dx + th.index[0] * r.inW;
                   if (mode == ResizeMode::Nearest) {
                     for (int64_t j = 0; j < count; ++j)
                       row0[tw[j].index[0]] += dy[j];
                     return;
                   }
                   T *rows[2] = {row0, dx + th.index[1] * r.inW};
                   for (int64_t j = 0; j < count; ++j)
                     for (int i = 0; i < 2; ++i)
                       for (int k = 0; k < 2; ++k)
                         rows[i][tw[j].index[k]] +=
                             th.weight[i] * tw[j].weight[k] * dy[j];
                 });
  });
}

} // namespace memopt::rt
