//===- Resize.cpp - Nearest and bilinear resize and their adjoints --------===//
//
// ONNX Resize semantics (tg.resize): an output coordinate maps back to a
// source coordinate with the given scale and coordinate mode; nearest rounds
// it with the nearest mode, bilinear interpolates between its two
// neighbours. Source coordinates outside the input clamp to the border, which
// is ONNX's edge extension and PyTorch's clamping of negative coordinates.
// The backward scatters every output gradient with the same weights.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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
  checkResizeShapes(kernel, input, output, scales);
  return {input[0] * input[1], input[2], input[3], output[2], output[3]};
}

} // namespace

void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            std::array<double, 2> scales) {
  ResizeShape r = checkResize("resize", input.shape, output.shape, scales);
  for (int64_t p = 0; p < r.planes; ++p) {
    const float *in = input.data + p * r.inH * r.inW;
    float *out = output.data + p * r.outH * r.outW;
    for (int64_t oh = 0; oh < r.outH; ++oh) {
      Taps th = taps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
                     nearestMode);
      const float *row0 = in + th.index[0] * r.inW;
      const float *row1 = in + th.index[1] * r.inW;
      for (int64_t ow = 0; ow < r.outW; ++ow) {
        Taps tw = taps(ow, scales[1], r.inW, r.outW, mode, coordinateMode,
                       nearestMode);
        if (mode == ResizeMode::Nearest) {
          out[oh * r.outW + ow] = row0[tw.index[0]];
          continue;
        }
        float top = tw.weight[0] * row0[tw.index[0]] +
                    tw.weight[1] * row0[tw.index[1]];
        float bottom = tw.weight[0] * row1[tw.index[0]] +
                       tw.weight[1] * row1[tw.index[1]];
        out[oh * r.outW + ow] = th.weight[0] * top + th.weight[1] * bottom;
      }
    }
  }
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    std::array<double, 2> scales) {
  ResizeShape r = checkResize("resize_backward", gradInput.shape,
                              gradOutput.shape, scales);
  std::memset(gradInput.data, 0, gradInput.bytes());
  for (int64_t p = 0; p < r.planes; ++p) {
    const float *dy = gradOutput.data + p * r.outH * r.outW;
    float *dx = gradInput.data + p * r.inH * r.inW;
    for (int64_t oh = 0; oh < r.outH; ++oh) {
      Taps th = taps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
                     nearestMode);
      for (int64_t ow = 0; ow < r.outW; ++ow) {
        Taps tw = taps(ow, scales[1], r.inW, r.outW, mode, coordinateMode,
                       nearestMode);
        float g = dy[oh * r.outW + ow];
        if (mode == ResizeMode::Nearest) {
          dx[th.index[0] * r.inW + tw.index[0]] += g;
          continue;
        }
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            dx[th.index[i] * r.inW + tw.index[j]] +=
                th.weight[i] * tw.weight[j] * g;
      }
    }
  }
}

} // namespace memopt::rt
