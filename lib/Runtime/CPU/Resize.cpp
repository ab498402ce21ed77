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

#include <algorithm>
#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

/// Up to two input positions and their weights for one output position.
struct Taps {
  int64_t index[2];
  float weight[2];
};

double sourceCoordinate(int64_t x, double scale, int64_t in, int64_t out,
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

int64_t roundNearest(double s, NearestMode mode) {
  double f = std::floor(s);
  switch (mode) {
  case NearestMode::Floor:
    return static_cast<int64_t>(f);
  case NearestMode::Ceil:
    return static_cast<int64_t>(std::ceil(s));
  case NearestMode::RoundPreferFloor:
  case NearestMode::RoundPreferCeil: {
    double d = s - f;
    bool up = d > 0.5 || (d == 0.5 && mode == NearestMode::RoundPreferCeil);
    return static_cast<int64_t>(f) + (up ? 1 : 0);
  }
  }
  return 0;
}

Taps taps(int64_t x, double scale, int64_t in, int64_t out, ResizeMode mode,
          CoordinateMode coordinateMode, NearestMode nearestMode) {
  double s = sourceCoordinate(x, scale, in, out, coordinateMode);
  if (mode == ResizeMode::Nearest) {
    int64_t i = std::clamp<int64_t>(roundNearest(s, nearestMode), 0, in - 1);
    return {{i, i}, {1.0f, 0.0f}};
  }
  s = std::clamp(s, 0.0, static_cast<double>(in - 1));
  int64_t i0 = static_cast<int64_t>(std::floor(s));
  int64_t i1 = std::min(i0 + 1, in - 1);
  float l1 = static_cast<float>(s - static_cast<double>(i0));
  return {{i0, i1}, {1.0f - l1, l1}};
}

struct ResizeShape {
  int64_t planes, inH, inW, outH, outW;
};

ResizeShape checkResize(const char *kernel, const Dims &input,
                        const Dims &output, std::array<double, 2> scales) {
  requireRank(kernel, "input", input, 4);
  requireRank(kernel, "output", output, 4);
  require(input[0] == output[0] && input[1] == output[1], kernel,
          "input and output differ in N or C");
  for (int i = 0; i < 2; ++i) {
    require(scales[i] > 0, kernel, "scales must be positive");
    require(std::fabs(input[2 + i] * scales[i] -
                      static_cast<double>(output[2 + i])) < 1.0,
            kernel, "sizes disagree with scales");
  }
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
    Taps columns[kColumnBlock];
    for (int64_t p = first; p < last; ++p)
      for (int64_t ow0 = 0; ow0 < r.outW; ow0 += kColumnBlock) {
        int64_t count = std::min(kColumnBlock, r.outW - ow0);
        for (int64_t j = 0; j < count; ++j)
          columns[j] = taps(ow0 + j, scales[1], r.inW, r.outW, mode,
                            coordinateMode, nearestMode);
        for (int64_t oh = 0; oh < r.outH; ++oh)
          f(p, oh,
            taps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
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
  forEachBlock(r, scales, mode, coordinateMode, nearestMode,
               [&](int64_t p, int64_t oh, const Taps &th, int64_t ow0,
                   const Taps *tw, int64_t count) {
                 const float *in = input.data + p * r.inH * r.inW;
                 const float *row0 = in + th.index[0] * r.inW;
                 const float *row1 = in + th.index[1] * r.inW;
                 float *out = output.data + (p * r.outH + oh) * r.outW + ow0;
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
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    std::array<double, 2> scales) {
  ResizeShape r = checkResize("resize_backward", gradInput.shape,
                              gradOutput.shape, scales);
  forEachBlock(r, scales, mode, coordinateMode, nearestMode,
               [&](int64_t p, int64_t oh, const Taps &th, int64_t ow0,
                   const Taps *tw, int64_t count) {
                 float *dx = gradInput.data + p * r.inH * r.inW;
                 // The plane's first call clears it, on the thread that
                 // owns the plane.
                 if (oh == 0 && ow0 == 0)
                   std::fill(dx, dx + r.inH * r.inW, 0.0f);
                 const float *dy =
                     gradOutput.data + (p * r.outH + oh) * r.outW + ow0;
                 float *row0 = dx + th.index[0] * r.inW;
                 if (mode == ResizeMode::Nearest) {
                   for (int64_t j = 0; j < count; ++j)
                     row0[tw[j].index[0]] += dy[j];
                   return;
                 }
                 float *rows[2] = {row0, dx + th.index[1] * r.inW};
                 for (int64_t j = 0; j < count; ++j)
                   for (int i = 0; i < 2; ++i)
                     for (int k = 0; k < 2; ++k)
                       rows[i][tw[j].index[k]] +=
                           th.weight[i] * tw[j].weight[k] * dy[j];
               });
}

} // namespace memopt::rt
