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
#include "IndexMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

} // namespace

void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            std::array<double, 2> scales) {
  ResizeShape r = checkResize("resize", input.shape, output.shape, scales);
  for (int64_t p = 0; p < r.planes; ++p) {
    const float *in = input.data + p * r.inH * r.inW;
    float *out = output.data + p * r.outH * r.outW;
    for (int64_t oh = 0; oh < r.outH; ++oh) {
      ResizeTaps th = resizeTaps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
                     nearestMode);
      const float *row0 = in + th.index[0] * r.inW;
      const float *row1 = in + th.index[1] * r.inW;
      for (int64_t ow = 0; ow < r.outW; ++ow) {
        ResizeTaps tw = resizeTaps(ow, scales[1], r.inW, r.outW, mode, coordinateMode,
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
      ResizeTaps th = resizeTaps(oh, scales[0], r.inH, r.outH, mode, coordinateMode,
                     nearestMode);
      for (int64_t ow = 0; ow < r.outW; ++ow) {
        ResizeTaps tw = resizeTaps(ow, scales[1], r.inW, r.outW, mode, coordinateMode,
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
