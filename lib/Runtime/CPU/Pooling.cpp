//===- Pooling.cpp - Max, average and global average pooling
//---------------===//
//
// Windows follow PyTorch's CPU kernels: a max window starts at its first
// position inside the input, keeps the first maximum in row-major order
// (a NaN replaces the running maximum), and an average window's divisor
// counts either the covered input positions or the window clipped to the
// padded input (count_include_pad). Pads may be asymmetric as in ONNX: the
// bottom/right pad clips the average divisor exactly as the top/left one.
// Planes (N x C) are independent and split over threads.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "LowPrecision.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memopt::rt {
using namespace detail;

namespace {

/// The shapes and window of a 2-D pooling.
struct Window {
  int64_t planes, inH, inW, outH, outW;
  Hw kernel, strides, dilations;
  Pads pads;
};

Window makeWindow(const char *kernel, const Dims &input, const Dims &output,
                  Hw size, Hw strides, Pads pads, Hw dilations, bool ceilMode) {
  Dims expected =
      poolShape(kernel, input, size, strides, pads, dilations, ceilMode);
  requireShape(kernel, "output", output, expected);
  return {input[0] * input[1],
          input[2],
          input[3],
          expected[2],
          expected[3],
          size,
          strides,
          dilations,
          pads};
}

/// The flat index in its plane of the maximum of window (oh, ow), or -1 if
/// the window covers no input position.
template <typename T>
int64_t argmax(const Window &w, const T *plane, int64_t oh, int64_t ow) {
  int64_t h0 = oh * w.strides[0] - w.pads[0];
  int64_t w0 = ow * w.strides[1] - w.pads[1];
  int64_t h1 = std::min(h0 + (w.kernel[0] - 1) * w.dilations[0] + 1, w.inH);
  int64_t w1 = std::min(w0 + (w.kernel[1] - 1) * w.dilations[1] + 1, w.inW);
  while (h0 < 0)
    h0 += w.dilations[0];
  while (w0 < 0)
    w0 += w.dilations[1];
  int64_t best = -1;
  float bestValue = -std::numeric_limits<float>::infinity();
  for (int64_t h = h0; h < h1; h += w.dilations[0])
    for (int64_t x = w0; x < w1; x += w.dilations[1]) {
      int64_t index = h * w.inW + x;
      float v = plane[index];
      if (best < 0 || v > bestValue || std::isnan(v)) {
        best = index;
        bestValue = v;
      }
    }
  return best;
}

/// Output columns whose max windows are searched together.
constexpr int64_t kColumnBlock = 256;

/// `argmax` of the windows (oh, ow0 + j) for j < count <= kColumnBlock,
/// into `best`. The columns whose window lies inside the input go tap by
/// tap (in the window's row-major order) over all columns: branch-free
/// selects over independent columns with 32-bit indices, which the compiler
/// vectorizes; the result is the same.
template <typename T>
void argmaxRow(const Window &w, const T *plane, int64_t oh, int64_t ow0,
               int64_t count, int64_t *best) {
  const int64_t sw = w.strides[1], dw = w.dilations[1];
  // Inner columns: ow * sw - pad >= 0 and the last tap < inW.
  int64_t lo = (w.pads[1] + sw - 1) / sw;
  int64_t last = w.inW - 1 + w.pads[1] - (w.kernel[1] - 1) * dw;
  int64_t hi = last < 0 ? 0 : last / sw + 1;
  if (w.inH * w.inW > std::numeric_limits<int32_t>::max())
    hi = lo;
  int64_t a = std::clamp(lo, ow0, ow0 + count);
  int64_t b = std::clamp(hi, a, ow0 + count);
  for (int64_t ow = ow0; ow < ow0 + count; ++ow)
    if (ow < a || ow >= b)
      best[ow - ow0] = argmax(w, plane, oh, ow);
  int64_t h0 = oh * w.strides[0] - w.pads[0];
  int64_t h1 = std::min(h0 + (w.kernel[0] - 1) * w.dilations[0] + 1, w.inH);
  while (h0 < 0)
    h0 += w.dilations[0];
  const int64_t n = b - a, x0 = a * sw - w.pads[1];
  if (n == 0 || h0 >= h1) {
    std::fill(best + (a - ow0), best + (b - ow0), int64_t(-1));
    return;
  }
  float value[kColumnBlock];
  int32_t index[kColumnBlock];
  for (int64_t j = 0; j < n; ++j) {
    index[j] = static_cast<int32_t>(h0 * w.inW + x0 + j * sw);
    value[j] = plane[index[j]];
  }
  for (int64_t h = h0; h < h1; h += w.dilations[0])
    for (int64_t k = h == h0 ? 1 : 0; k < w.kernel[1]; ++k) {
      const int64_t first = h * w.inW + x0 + k * dw;
      for (int64_t j = 0; j < n; ++j) {
        float v = plane[first + j * sw];
        bool take = (v > value[j]) | (v != v);
        value[j] = take ? v : value[j];
        index[j] = take ? static_cast<int32_t>(first + j * sw) : index[j];
      }
    }
  for (int64_t j = 0; j < n; ++j)
    best[a - ow0 + j] = index[j];
}

/// Calls `f(oh, ow0, best, count)` for every output row and block of up to
/// kColumnBlock columns from `ow0`, in row-major order, with their argmax
/// indices.
template <typename T, typename F>
void forEachArgmaxBlock(const Window &w, const T *plane, F f) {
  int64_t best[kColumnBlock];
  for (int64_t oh = 0; oh < w.outH; ++oh)
    for (int64_t ow0 = 0; ow0 < w.outW; ow0 += kColumnBlock) {
      int64_t count = std::min(kColumnBlock, w.outW - ow0);
      argmaxRow(w, plane, oh, ow0, count, best);
      f(oh, ow0, best, count);
    }
}

/// The clipped rows and columns of average window (oh, ow) and its divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double divisor;
};

AvgWindow avgWindow(const Window &w, int64_t oh, int64_t ow,
                    bool countIncludePad) {
  int64_t h0 = oh * w.strides[0] - w.pads[0];
  int64_t w0 = ow * w.strides[1] - w.pads[1];
  int64_t h1 = std::min(h0 + w.kernel[0], w.inH + w.pads[2]);
  int64_t w1 = std::min(w0 + w.kernel[1], w.inW + w.pads[3]);
  int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, w.inH);
  w1 = std::min(w1, w.inW);
  int64_t covered = (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1,
          static_cast<double>(countIncludePad ? padded : covered)};
}

/// Calls `f(p)` for every plane, planes split over threads.
template <typename F> void forEachPlane(const Window &w, F f) {
  int64_t work = w.planes * (w.inH * w.inW + w.outH * w.outW);
  parallelFor(w.planes, work, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p)
      f(p);
  });
}

} // namespace

void maxPool2d(ConstTensor input, Tensor output, Hw kernel, Hw strides,
               Pads pads, Hw dilations, bool ceilMode) {
  Window w = makeWindow("max_pool2d", input.shape, output.shape, kernel,
                        strides, pads, dilations, ceilMode);
  requireType("max_pool2d", "output", output.type, input.type);
  dispatchFloatType("max_pool2d", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inH * w.inW;
      T *out = output.elements<T>() + p * w.outH * w.outW;
      forEachArgmaxBlock(
          w, in,
          [&](int64_t oh, int64_t ow0, const int64_t *best, int64_t count) {
            for (int64_t j = 0; j < count; ++j)
              out[oh * w.outW + ow0 + j] =
                  best[j] < 0 ? -std::numeric_limits<float>::infinity()
                              : in[best[j]];
          });
    });
  });
}

void maxPool2dBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, Hw kernel, Hw strides, Pads pads,
                       Hw dilations, bool ceilMode) {
  const char *name = "max_pool2d_backward";
  Window w = makeWindow(name, input.shape, gradOutput.shape, kernel, strides,
                        pads, dilations, ceilMode);
  requireShape(name, "grad_input", gradInput.shape, input.shape);
  requireType(name, "gradOutput", gradOutput.type, input.type);
  requireType(name, "gradInput", gradInput.type, input.type);
  dispatchFloatType(name, input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inH * w.inW;
      const T *dy = gradOutput.elements<T>() + p * w.outH * w.outW;
      T *dx = gradInput.elements<T>() + p * w.inH * w.inW;
      std::fill(dx, dx + w.inH * w.inW, 0.0f);
      forEachArgmaxBlock(
          w, in,
          [&](int64_t oh, int64_t ow0, const int64_t *best, int64_t count) {
            for (int64_t j = 0; j < count; ++j)
              if (best[j] >= 0)
                dx[best[j]] += dy[oh * w.outW + ow0 + j];
          });
    });
  });
}

void avgPool2d(ConstTensor input, Tensor output, Hw kernel, Hw strides,
               Pads pads, bool ceilMode, bool countIncludePad) {
  Window w = makeWindow("avg_pool2d", input.shape, output.shape, kernel,
                        strides, pads, Hw{1, 1}, ceilMode);
  requireType("avg_pool2d", "output", output.type, input.type);
  dispatchFloatType("avg_pool2d", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inH * w.inW;
      T *out = output.elements<T>() + p * w.outH * w.outW;
      for (int64_t oh = 0; oh < w.outH; ++oh)
        for (int64_t ow = 0; ow < w.outW; ++ow) {
          AvgWindow a = avgWindow(w, oh, ow, countIncludePad);
          double sum = 0;
          for (int64_t h = a.h0; h < a.h1; ++h)
            for (int64_t x = a.w0; x < a.w1; ++x)
              sum += in[h * w.inW + x];
          out[oh * w.outW + ow] = static_cast<float>(sum / a.divisor);
        }
    });
  });
}

void avgPool2dBackward(ConstTensor gradOutput, Tensor gradInput, Hw kernel,
                       Hw strides, Pads pads, bool ceilMode,
                       bool countIncludePad) {
  Window w =
      makeWindow("avg_pool2d_backward", gradInput.shape, gradOutput.shape,
                 kernel, strides, pads, Hw{1, 1}, ceilMode);
  requireType("avg_pool2d_backward", "gradInput", gradInput.type,
              gradOutput.type);
  dispatchFloatType("avg_pool2d_backward", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *dy = gradOutput.elements<T>() + p * w.outH * w.outW;
      T *dx = gradInput.elements<T>() + p * w.inH * w.inW;
      std::fill(dx, dx + w.inH * w.inW, 0.0f);
      for (int64_t oh = 0; oh < w.outH; ++oh)
        for (int64_t ow = 0; ow < w.outW; ++ow) {
          AvgWindow a = avgWindow(w, oh, ow, countIncludePad);
          float g = static_cast<float>(dy[oh * w.outW + ow] / a.divisor);
          for (int64_t h = a.h0; h < a.h1; ++h)
            for (int64_t x = a.w0; x < a.w1; ++x)
              dx[h * w.inW + x] += g;
        }
    });
  });
}

void globalAvgPool(ConstTensor input, Tensor output) {
  const char *kernel = "global_avg_pool";
  requireRank(kernel, "input", input.shape, 4);
  requireShape(kernel, "output", output.shape,
               Dims{input.dim(0), input.dim(1), 1, 1});
  const int64_t planes = input.dim(0) * input.dim(1);
  const int64_t size = input.dim(2) * input.dim(3);
  parallelFor(planes, input.numel(), [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      double sum = 0;
      for (int64_t i = 0; i < size; ++i)
        sum += input.data[p * size + i];
      output.data[p] = static_cast<float>(sum / static_cast<double>(size));
    }
  });
}

} // namespace memopt::rt
