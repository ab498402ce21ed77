//===- InstanceNorm.cpp - Instance normalization --------------------------===//
//
// Every (sample, channel) slice is normalized with its own mean and biased
// variance; the slices run in parallel and each slice's sums are LaneSums
// in double, so the statistics are bit-reproducible for any thread count.
// The backward is batch normalization's per slice; the scale and bias
// gradients sum the per-slice terms over the batch in sample order.
// Under mixed precision the input, output and their gradients are bf16 or
// f16 (read as float, stored rounded) while scale, bias, statistics and
// the parameter gradients stay f32, as BatchNorm.cpp does.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "AxisLayout.h"
#include "LowPrecision.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

void instanceNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
                  Tensor output, Tensor savedMean, Tensor savedInvStd,
                  double epsilon) {
  AxisLayout l =
      checkInstanceNorm(input, scale, bias, output, savedMean, savedInvStd);
  const char *kernel = "instance_norm";
  const double count = static_cast<double>(l.inner);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    parallelFor(l.outer * l.size, input.numel(), [&](int64_t first,
                                                     int64_t last) {
      for (int64_t s = first; s < last; ++s) {
        const T *x = input.elements<T>() + s * l.inner;
        T *y = output.elements<T>() + s * l.inner;
        LaneSums<1> sum;
        sum.add(l.inner,
                [x](int64_t i) { return LaneSums<1>::Terms{float(x[i])}; });
        double mean = sum.total() / count;
        LaneSums<1> squares;
        squares.add(l.inner, [x, mean](int64_t i) {
          double d = float(x[i]) - mean;
          return LaneSums<1>::Terms{d * d};
        });
        double invStd = 1.0 / std::sqrt(squares.total() / count + epsilon);
        int64_t c = s % l.size;
        // y = x * k + b0 with k and b0 folded per slice in double.
        double k = invStd * scale.data[c];
        float kf = static_cast<float>(k);
        float b0 = static_cast<float>(bias.data[c] - mean * k);
        for (int64_t i = 0; i < l.inner; ++i)
          y[i] = float(x[i]) * kf + b0;
        savedMean.data[s] = static_cast<float>(mean);
        savedInvStd.data[s] = static_cast<float>(invStd);
      }
    });
  });
}

void instanceNormBackward(ConstTensor gradOutput, ConstTensor input,
                          ConstTensor scale, ConstTensor savedMean,
                          ConstTensor savedInvStd, Tensor gradInput,
                          Tensor gradScale, Tensor gradBias) {
  AxisLayout l = checkInstanceNormBackward(gradOutput, input, scale, savedMean,
                                           savedInvStd, gradInput, gradScale,
                                           gradBias);
  const char *kernel = "instance_norm_backward";
  const double count = static_cast<double>(l.inner);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    // Channels run in parallel; a channel walks its slices in sample order,
    // so its scale and bias gradients are summed in a fixed order.
    parallelFor(l.size, input.numel(), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        double gs = 0, gb = 0;
        for (int64_t n = 0; n < l.outer; ++n) {
          int64_t s = n * l.size + c;
          const T *x = input.elements<T>() + s * l.inner;
          const T *dy = gradOutput.elements<T>() + s * l.inner;
          T *dx = gradInput.elements<T>() + s * l.inner;
          const double mean = savedMean.data[s], invStd = savedInvStd.data[s];
          LaneSums<2> sums;
          sums.add(l.inner, [=](int64_t i) {
            double g = float(dy[i]);
            return LaneSums<2>::Terms{g, g * ((float(x[i]) - mean) * invStd)};
          });
          double a = sums.total(0), b = sums.total(1);
          gb += a;
          gs += b;
          // dx = k * (dy - a / M - x_hat * b / M), k = scale * inv_std.
          double k = scale.data[c] * invStd;
          for (int64_t i = 0; i < l.inner; ++i) {
            double xhat = (float(x[i]) - mean) * invStd;
            dx[i] = static_cast<float>(
                k * (float(dy[i]) - a / count - xhat * b / count));
          }
        }
        gradScale.data[c] = static_cast<float>(gs);
        gradBias.data[c] = static_cast<float>(gb);
      }
    });
  });
}

} // namespace memopt::rt
