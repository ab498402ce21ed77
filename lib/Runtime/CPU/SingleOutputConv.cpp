//===- SingleOutputConv.cpp - Gradients of one-output-channel convs -------===//
//
// A convolution with one output channel (a segmentation head's last layer)
// is the worst case of oneDNN's blocked layouts: its gradient is padded to
// 16 channels in the blocked copy, and the copies of its gradient and of the
// input-sized result take a workspace as large as two activations, at the
// very start of the backward, when every saved activation is live (and, in
// the forward, at its end). It costs a few multiply-adds per element, so
// the runtime computes it directly, without a workspace: the output as a
// double-precision gather per element, the data gradient tap by tap over
// contiguous rows, the filter gradient as one double-precision sum per
// weight, each in a fixed order (deterministic for any thread count).
//
//===----------------------------------------------------------------------===//

#include "SingleOutputConv.h"

#include "Common.h"
#include "LowPrecision.h"

#include <algorithm>
#include <utility>

namespace memopt::rt::detail {

bool isSingleOutputConv(const Dims &weight, int64_t groups) {
  return groups == 1 && weight.size == 4 && weight[0] == 1;
}

void singleOutputConv(ConstTensor input, ConstTensor weight, ConstTensor bias,
                      Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations) {
  const int64_t n = input.dim(0), c = input.dim(1), ih = input.dim(2),
                iw = input.dim(3);
  const int64_t oh = output.dim(2), ow = output.dim(3);
  const int64_t kh = weight.dim(2), kw = weight.dim(3);
  requireType("conv", "weight", weight.type, input.type);
  if (bias.present())
    requireType("conv", "bias", bias.type, input.type);
  requireType("conv", "output", output.type, input.type);
  dispatchFloatType("conv", input.type, [&](auto tag) {
    using T = decltype(tag);
    parallelFor(
        n * oh, n * oh * ow * c * kh * kw, [&](int64_t first, int64_t last) {
          for (int64_t row = first; row < last; ++row) {
            const int64_t b = row / oh, y = row % oh;
            T *out = output.elements<T>() + row * ow;
            for (int64_t v = 0; v < ow; ++v) {
              double sum = bias.present() ? double(bias.elements<T>()[0]) : 0.0;
              for (int64_t ch = 0; ch < c; ++ch) {
                const T *x = input.elements<T>() + (b * c + ch) * ih * iw;
                const T *w = weight.elements<T>() + ch * kh * kw;
                for (int64_t i = 0; i < kh; ++i) {
                  int64_t sy = y * strides[0] - pads[0] + i * dilations[0];
                  if (sy < 0 || sy >= ih)
                    continue;
                  for (int64_t j = 0; j < kw; ++j) {
                    int64_t sx = v * strides[1] - pads[1] + j * dilations[1];
                    if (sx >= 0 && sx < iw)
                      sum += double(w[i * kw + j]) * x[sy * iw + sx];
                  }
                }
              }
              out[v] = static_cast<float>(sum);
            }
          }
        });
  });
}

/// The output columns [first, last) whose input column v * stride - pad +
/// offset lies in [0, width).
static std::pair<int64_t, int64_t> validColumns(int64_t outWidth, int64_t width,
                                                int64_t stride, int64_t start) {
  // start + v * stride >= 0  and  start + v * stride < width
  int64_t first = start >= 0 ? 0 : (-start + stride - 1) / stride;
  int64_t last = start >= width ? 0 : (width - 1 - start) / stride + 1;
  return {first, std::min(outWidth, last)};
}

void singleOutputConvBackwardData(ConstTensor gradOutput, ConstTensor weight,
                                  Tensor gradInput, const Dims &strides, const Dims &pads,
                                  const Dims &dilations) {
  const int64_t n = gradInput.dim(0), c = gradInput.dim(1),
                ih = gradInput.dim(2), iw = gradInput.dim(3);
  const int64_t oh = gradOutput.dim(2), ow = gradOutput.dim(3);
  const int64_t kh = weight.dim(2), kw = weight.dim(3);
  // Each input plane is owned by one thread and accumulated tap by tap in
  // a fixed order, with contiguous runs of the gradient's rows.
  requireType("conv_backward_data", "weight", weight.type, gradOutput.type);
  requireType("conv_backward_data", "gradInput", gradInput.type,
              gradOutput.type);
  dispatchFloatType("conv_backward_data", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    parallelFor(
        n * c, n * c * oh * ow * kh * kw, [&](int64_t first, int64_t last) {
          for (int64_t plane = first; plane < last; ++plane) {
            const int64_t b = plane / c, ch = plane % c;
            const T *dy = gradOutput.elements<T>() + b * oh * ow;
            const T *w = weight.elements<T>() + ch * kh * kw;
            T *dx = gradInput.elements<T>() + plane * ih * iw;
            std::fill(dx, dx + ih * iw, 0.0f);
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const float tap = w[i * kw + j];
                const int64_t start = j * dilations[1] - pads[1];
                auto [v0, v1] = validColumns(ow, iw, strides[1], start);
                for (int64_t y = 0; y < oh; ++y) {
                  int64_t sy = y * strides[0] - pads[0] + i * dilations[0];
                  if (sy < 0 || sy >= ih)
                    continue;
                  T *row = dx + sy * iw + start;
                  const T *g = dy + y * ow;
                  for (int64_t v = v0; v < v1; ++v)
                    row[v * strides[1]] += tap * g[v];
                }
              }
          }
        });
  });
}

void singleOutputConvBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                    Tensor gradWeight, const Dims &strides, const Dims &pads,
                                    const Dims &dilations) {
  const int64_t n = input.dim(0), c = input.dim(1), ih = input.dim(2),
                iw = input.dim(3);
  const int64_t oh = gradOutput.dim(2), ow = gradOutput.dim(3);
  const int64_t kh = gradWeight.dim(2), kw = gradWeight.dim(3);
  requireType("conv_backward_filter", "input", input.type, gradOutput.type);
  requireType("conv_backward_filter", "gradWeight", gradWeight.type,
              gradOutput.type);
  dispatchFloatType("conv_backward_filter", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    parallelFor(c, c * kh * kw * n * oh * ow, [&](int64_t first, int64_t last) {
      for (int64_t ch = first; ch < last; ++ch)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            double sum = 0;
            for (int64_t b = 0; b < n; ++b) {
              const T *dy = gradOutput.elements<T>() + b * oh * ow;
              const T *x = input.elements<T>() + (b * c + ch) * ih * iw;
              for (int64_t y = 0; y < oh; ++y) {
                int64_t sy = y * strides[0] - pads[0] + i * dilations[0];
                if (sy < 0 || sy >= ih)
                  continue;
                for (int64_t v = 0; v < ow; ++v) {
                  int64_t sx = v * strides[1] - pads[1] + j * dilations[1];
                  if (sx >= 0 && sx < iw)
                    sum += double(dy[y * ow + v]) * x[sy * iw + sx];
                }
              }
            }
            gradWeight.elements<T>()[(ch * kh + i) * kw + j] =
                static_cast<float>(sum);
          }
    });
  });
}

} // namespace memopt::rt::detail
