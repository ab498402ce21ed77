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
// Every pooling is computed as a 3-D one (depth, height, width), 1-D and
// 2-D ones with unit leading axes: a 3-D max window takes the maximum of
// its depth slices' 2-D maxima in depth order, which keeps the first
// maximum in row-major (d, h, w) order and the NaN rule, and a 2-D
// pooling (one slice) computes exactly as before.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "LowPrecision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace memopt::rt {
using namespace detail;

namespace {

/// One window axis: its input and output extents, window, stride, dilation
/// and pads.
struct Axis {
  int64_t in, out, kernel, stride, dilation, padBegin, padEnd;

  /// The first input position of window `o` inside the input and the end
  /// of its taps, for a window of dilated taps.
  std::pair<int64_t, int64_t> taps(int64_t o) const {
    int64_t first = o * stride - padBegin;
    int64_t end = std::min(first + (kernel - 1) * dilation + 1, in);
    while (first < 0)
      first += dilation;
    return {first, end};
  }
};

/// The shapes and window of a pooling: a 2-D window over height and width
/// and the depth axis (one unit slice for 1-D and 2-D poolings).
struct Window {
  int64_t planes, inH, inW, outH, outW;
  Hw kernel, strides, dilations;
  Pads pads;
  Axis depth;

  int64_t inSlice() const { return inH * inW; }
  int64_t outSlice() const { return outH * outW; }
  int64_t inVolume() const { return depth.in * inSlice(); }
  int64_t outVolume() const { return depth.out * outSlice(); }
};

Window makeWindow(const char *kernel, const Dims &input, const Dims &output,
                  const Dims &size, const Dims &strides, const Dims &pads,
                  const Dims &dilations, bool ceilMode) {
  Dims expected =
      poolShape(kernel, input, size, strides, pads, dilations, ceilMode);
  requireShape(kernel, "output", output, expected);
  // Axis i of 3 (depth, height, width) of a pooling with `axes` spatial
  // axes; the leading ones a 1-D or 2-D pooling lacks are unit windows.
  int axes = input.size - 2, lead = 3 - axes;
  auto at = [&](const Dims &values, int i, int64_t unit) {
    return i < lead ? unit : values[i - lead];
  };
  Dims begins(pads.begin(), axes), ends(pads.begin() + axes, axes);
  Dims in(input.begin() + 2, axes), out(expected.begin() + 2, axes);
  Axis a[3];
  for (int i = 0; i < 3; ++i)
    a[i] = {at(in, i, 1),        at(out, i, 1),       at(size, i, 1),
            at(strides, i, 1),   at(dilations, i, 1), at(begins, i, 0),
            at(ends, i, 0)};
  return {input[0] * input[1],
          a[1].in,
          a[2].in,
          a[1].out,
          a[2].out,
          Hw{a[1].kernel, a[2].kernel},
          Hw{a[1].stride, a[2].stride},
          Hw{a[1].dilation, a[2].dilation},
          Pads{a[1].padBegin, a[2].padBegin, a[1].padEnd, a[2].padEnd},
          a[0]};
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

/// Calls `f(od, oh, ow0, best, count)` for every output slice, row and
/// block of up to kColumnBlock columns from `ow0`, in row-major order, with
/// the argmax indices in `volume` (the maximum over the window's depth
/// slices of their 2-D maxima, the first of equal ones; a NaN wins).
template <typename T, typename F>
void forEachArgmaxBlock(const Window &w, const T *volume, F f) {
  int64_t best[kColumnBlock], sliceBest[kColumnBlock];
  for (int64_t od = 0; od < w.depth.out; ++od) {
    auto [d0, d1] = w.depth.taps(od);
    for (int64_t oh = 0; oh < w.outH; ++oh)
      for (int64_t ow0 = 0; ow0 < w.outW; ow0 += kColumnBlock) {
        int64_t count = std::min(kColumnBlock, w.outW - ow0);
        std::fill(best, best + count, int64_t(-1));
        for (int64_t d = d0; d < d1; d += w.depth.dilation) {
          int64_t offset = d * w.inSlice();
          argmaxRow(w, volume + offset, oh, ow0, count, sliceBest);
          for (int64_t j = 0; j < count; ++j) {
            if (sliceBest[j] < 0)
              continue;
            int64_t index = offset + sliceBest[j];
            float v = volume[index];
            if (best[j] < 0 || v > static_cast<float>(volume[best[j]]) ||
                std::isnan(v))
              best[j] = index;
          }
        }
        f(od, oh, ow0, best, count);
      }
  }
}

/// The clipped slices, rows and columns of average window (od, oh, ow) and
/// its divisor.
struct AvgWindow {
  int64_t d0, d1, h0, h1, w0, w1;
  double divisor;
};

AvgWindow avgWindow(const Window &w, int64_t od, int64_t oh, int64_t ow,
                    bool countIncludePad) {
  int64_t d0 = od * w.depth.stride - w.depth.padBegin;
  int64_t h0 = oh * w.strides[0] - w.pads[0];
  int64_t w0 = ow * w.strides[1] - w.pads[1];
  int64_t d1 = std::min(d0 + w.depth.kernel, w.depth.in + w.depth.padEnd);
  int64_t h1 = std::min(h0 + w.kernel[0], w.inH + w.pads[2]);
  int64_t w1 = std::min(w0 + w.kernel[1], w.inW + w.pads[3]);
  int64_t padded = (d1 - d0) * (h1 - h0) * (w1 - w0);
  d0 = std::max<int64_t>(d0, 0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  d1 = std::min(d1, w.depth.in);
  h1 = std::min(h1, w.inH);
  w1 = std::min(w1, w.inW);
  int64_t covered = (d1 - d0) * (h1 - h0) * (w1 - w0);
  return {d0, d1, h0, h1, w0, w1,
          static_cast<double>(countIncludePad ? padded : covered)};
}

/// Calls `f(od, oh, ow, a)` for every output position and its window.
template <typename F>
void forEachAvgWindow(const Window &w, bool countIncludePad, F f) {
  for (int64_t od = 0; od < w.depth.out; ++od)
    for (int64_t oh = 0; oh < w.outH; ++oh)
      for (int64_t ow = 0; ow < w.outW; ++ow)
        f((od * w.outH + oh) * w.outW + ow,
          avgWindow(w, od, oh, ow, countIncludePad));
}

/// Calls `f(p)` for every plane, planes split over threads.
template <typename F> void forEachPlane(const Window &w, F f) {
  int64_t work = w.planes * (w.inVolume() + w.outVolume());
  parallelFor(w.planes, work, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p)
      f(p);
  });
}

/// Unit dilations, one per spatial axis of `kernel`: average pooling has
/// none.
Dims unitDilations(const Dims &kernel) {
  Dims ones = kernel;
  for (int i = 0; i < ones.size; ++i)
    ones[i] = 1;
  return ones;
}

} // namespace

void maxPool(ConstTensor input, Tensor output, const Dims &kernel,
               const Dims &strides, const Dims &pads, const Dims &dilations,
               bool ceilMode) {
  Window w = makeWindow("max_pool", input.shape, output.shape, kernel,
                        strides, pads, dilations, ceilMode);
  requireType("max_pool", "output", output.type, input.type);
  dispatchFloatType("max_pool", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inVolume();
      T *out = output.elements<T>() + p * w.outVolume();
      forEachArgmaxBlock(w, in,
                         [&](int64_t od, int64_t oh, int64_t ow0,
                             const int64_t *best, int64_t count) {
                           T *row = out + (od * w.outH + oh) * w.outW + ow0;
                           for (int64_t j = 0; j < count; ++j)
                             row[j] = best[j] < 0
                                          ? -std::numeric_limits<float>::infinity()
                                          : in[best[j]];
                         });
    });
  });
}

void maxPoolBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, const Dims &kernel,
                       const Dims &strides, const Dims &pads,
                       const Dims &dilations, bool ceilMode) {
  const char *name = "max_pool_backward";
  Window w = makeWindow(name, input.shape, gradOutput.shape, kernel, strides,
                        pads, dilations, ceilMode);
  requireShape(name, "grad_input", gradInput.shape, input.shape);
  requireType(name, "gradOutput", gradOutput.type, input.type);
  requireType(name, "gradInput", gradInput.type, input.type);
  dispatchFloatType(name, input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inVolume();
      const T *dy = gradOutput.elements<T>() + p * w.outVolume();
      T *dx = gradInput.elements<T>() + p * w.inVolume();
      std::fill(dx, dx + w.inVolume(), 0.0f);
      forEachArgmaxBlock(w, in,
                         [&](int64_t od, int64_t oh, int64_t ow0,
                             const int64_t *best, int64_t count) {
                           const T *row =
                               dy + (od * w.outH + oh) * w.outW + ow0;
                           for (int64_t j = 0; j < count; ++j)
                             if (best[j] >= 0)
                               dx[best[j]] += row[j];
                         });
    });
  });
}

void avgPool(ConstTensor input, Tensor output, const Dims &kernel,
               const Dims &strides, const Dims &pads, bool ceilMode,
               bool countIncludePad) {
  Window w = makeWindow("avg_pool", input.shape, output.shape, kernel,
                        strides, pads, unitDilations(kernel), ceilMode);
  requireType("avg_pool", "output", output.type, input.type);
  dispatchFloatType("avg_pool", input.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *in = input.elements<T>() + p * w.inVolume();
      T *out = output.elements<T>() + p * w.outVolume();
      forEachAvgWindow(w, countIncludePad, [&](int64_t o, const AvgWindow &a) {
        double sum = 0;
        for (int64_t d = a.d0; d < a.d1; ++d)
          for (int64_t h = a.h0; h < a.h1; ++h)
            for (int64_t x = a.w0; x < a.w1; ++x)
              sum += in[(d * w.inH + h) * w.inW + x];
        out[o] = static_cast<float>(sum / a.divisor);
      });
    });
  });
}

void avgPoolBackward(ConstTensor gradOutput, Tensor gradInput,
                       const Dims &kernel, const Dims &strides,
                       const Dims &pads, bool ceilMode, bool countIncludePad) {
  Window w = makeWindow("avg_pool_backward", gradInput.shape,
                        gradOutput.shape, kernel, strides, pads,
                        unitDilations(kernel), ceilMode);
  requireType("avg_pool_backward", "gradInput", gradInput.type,
              gradOutput.type);
  dispatchFloatType("avg_pool_backward", gradOutput.type, [&](auto tag) {
    using T = decltype(tag);
    forEachPlane(w, [&](int64_t p) {
      const T *dy = gradOutput.elements<T>() + p * w.outVolume();
      T *dx = gradInput.elements<T>() + p * w.inVolume();
      std::fill(dx, dx + w.inVolume(), 0.0f);
      forEachAvgWindow(w, countIncludePad, [&](int64_t o, const AvgWindow &a) {
        float g = static_cast<float>(dy[o] / a.divisor);
        for (int64_t d = a.d0; d < a.d1; ++d)
          for (int64_t h = a.h0; h < a.h1; ++h)
            for (int64_t x = a.w0; x < a.w1; ++x)
              dx[(d * w.inH + h) * w.inW + x] += g;
      });
    });
  });
}

void globalAvgPool(ConstTensor input, Tensor output) {
  const char *kernel = "global_avg_pool";
  requireShape(kernel, "output", output.shape,
               globalPoolShape(kernel, input.shape));
  const int64_t planes = input.dim(0) * input.dim(1);
  const int64_t size = input.numel() / std::max<int64_t>(planes, 1);
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
