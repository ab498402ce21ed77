//===- BatchNorm.cpp - Batch normalization
//---------------------------------===//
//
// Training-mode batch normalization, its backward and the inference form, on
// N x C x ... tensors. Channels run in parallel; each channel's sums are
// LaneSums in double on one thread, so the statistics are bit-reproducible
// for any thread count and as accurate as PyTorch's.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "LowPrecision.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

/// The N, C and spatial extents of a batch-norm input.
struct Layout {
  int64_t batch, channels, inner;
  int64_t perChannel() const { return batch * inner; }
  /// The first element of channel `c` in batch item `n`.
  int64_t offset(int64_t n, int64_t c) const {
    return (n * channels + c) * inner;
  }
};

Layout layoutOf(const char *kernel, const Dims &input) {
  require(input.size >= 2, kernel, "'input' must have rank >= 2 (N x C x ...)");
  int64_t inner = 1;
  for (int i = 2; i < input.size; ++i)
    inner *= input[i];
  return {input[0], input[1], inner};
}

void requireChannels(const char *kernel, const char *name, const Dims &shape,
                     int64_t channels) {
  requireShape(kernel, name, shape, Dims{channels});
}

} // namespace

void batchNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
               ConstTensor runningMean, ConstTensor runningVar, Tensor output,
               Tensor newRunningMean, Tensor newRunningVar, Tensor savedMean,
               Tensor savedInvStd, double epsilon, double momentum) {
  const char *kernel = "batch_norm";
  Layout l = layoutOf(kernel, input.shape);
  requireShape(kernel, "output", output.shape, input.shape);
  for (auto [name, shape] : {std::pair{"scale", scale.shape},
                             {"bias", bias.shape},
                             {"running_mean", runningMean.shape},
                             {"running_var", runningVar.shape},
                             {"new_running_mean", newRunningMean.shape},
                             {"new_running_var", newRunningVar.shape},
                             {"saved_mean", savedMean.shape},
                             {"saved_inv_std", savedInvStd.shape}})
    requireChannels(kernel, name, shape, l.channels);
  require(l.perChannel() > 0, kernel, "empty batch");

  requireType(kernel, "output", output.type, input.type);
  // The statistics and parameters are f32 whatever the input's type.
  const double count = static_cast<double>(l.perChannel());
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *inData = input.elements<T>();
    T *outData = output.elements<T>();
    parallelFor(l.channels, input.numel(), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        LaneSums<1> sum;
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = inData + l.offset(n, c);
          sum.add(l.inner,
                  [x](int64_t i) { return LaneSums<1>::Terms{double(x[i])}; });
        }
        double mean = sum.total() / count;
        LaneSums<1> squares;
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = inData + l.offset(n, c);
          squares.add(l.inner, [x, mean](int64_t i) {
            double d = x[i] - mean;
            return LaneSums<1>::Terms{d * d};
          });
        }
        double var = squares.total() / count;
        // PyTorch divides by M - 1 for the running variance; with M = 1 that
        // is a division by zero, as in PyTorch (which refuses such inputs).
        double unbiased = squares.total() / (count - 1);
        float invStd = static_cast<float>(1.0 / std::sqrt(var + epsilon));
        float meanF = static_cast<float>(mean);
        float a = scale.data[c] * invStd;
        float b = bias.data[c];
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = inData + l.offset(n, c);
          T *y = outData + l.offset(n, c);
          for (int64_t i = 0; i < l.inner; ++i)
            y[i] = (x[i] - meanF) * a + b;
        }
        newRunningMean.data[c] = static_cast<float>(
            (1 - momentum) * runningMean.data[c] + momentum * mean);
        newRunningVar.data[c] = static_cast<float>(
            (1 - momentum) * runningVar.data[c] + momentum * unbiased);
        savedMean.data[c] = meanF;
        savedInvStd.data[c] = invStd;
      }
    });
  });
}

void batchNormInference(ConstTensor input, ConstTensor scale, ConstTensor bias,
                        ConstTensor mean, ConstTensor var, Tensor output,
                        double epsilon) {
  const char *kernel = "batch_norm_inference";
  Layout l = layoutOf(kernel, input.shape);
  requireShape(kernel, "output", output.shape, input.shape);
  for (auto [name, shape] : {std::pair{"scale", scale.shape},
                             {"bias", bias.shape},
                             {"mean", mean.shape},
                             {"var", var.shape}})
    requireChannels(kernel, name, shape, l.channels);
  requireType(kernel, "output", output.type, input.type);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    parallelFor(l.channels, input.numel(), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        float invStd =
            static_cast<float>(1.0 / std::sqrt(var.data[c] + epsilon));
        float a = scale.data[c] * invStd;
        float m = mean.data[c], b = bias.data[c];
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = input.elements<T>() + l.offset(n, c);
          T *y = output.elements<T>() + l.offset(n, c);
          for (int64_t i = 0; i < l.inner; ++i)
            y[i] = (x[i] - m) * a + b;
        }
      }
    });
  });
}

void batchNormBackward(ConstTensor gradOutput, ConstTensor input,
                       ConstTensor scale, ConstTensor savedMean,
                       ConstTensor savedInvStd, Tensor gradInput,
                       Tensor gradScale, Tensor gradBias) {
  const char *kernel = "batch_norm_backward";
  Layout l = layoutOf(kernel, input.shape);
  requireShape(kernel, "grad_output", gradOutput.shape, input.shape);
  requireShape(kernel, "grad_input", gradInput.shape, input.shape);
  for (auto [name, shape] : {std::pair{"scale", scale.shape},
                             {"saved_mean", savedMean.shape},
                             {"saved_inv_std", savedInvStd.shape},
                             {"grad_scale", gradScale.shape},
                             {"grad_bias", gradBias.shape}})
    requireChannels(kernel, name, shape, l.channels);

  requireType(kernel, "grad_output", gradOutput.type, input.type);
  requireType(kernel, "grad_input", gradInput.type, input.type);
  const double count = static_cast<double>(l.perChannel());
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *inData = input.elements<T>(),
            *gradOutData = gradOutput.elements<T>();
    T *gradInData = gradInput.elements<T>();
    parallelFor(l.channels, input.numel(), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        const double mean = savedMean.data[c], invStd = savedInvStd.data[c];
        // Sum 0: dy; sum 1: dy * x_hat.
        LaneSums<2> sums;
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = inData + l.offset(n, c);
          const T *dy = gradOutData + l.offset(n, c);
          sums.add(l.inner, [=](int64_t i) {
            double g = dy[i];
            return LaneSums<2>::Terms{g, g * ((x[i] - mean) * invStd)};
          });
        }
        const double sumGrad = sums.total(0), sumGradXhat = sums.total(1);
        // grad_input = scale * inv_std * (dy - mean(dy) - x_hat * mean(dy
        // x_hat))
        const double k = scale.data[c] * invStd;
        const double meanGrad = sumGrad / count;
        const double meanGradXhat = sumGradXhat / count;
        for (int64_t n = 0; n < l.batch; ++n) {
          const T *x = inData + l.offset(n, c);
          const T *dy = gradOutData + l.offset(n, c);
          T *dx = gradInData + l.offset(n, c);
          for (int64_t i = 0; i < l.inner; ++i) {
            double xhat = (x[i] - mean) * invStd;
            dx[i] = static_cast<float>(
                k * (dy[i] - meanGrad - xhat * meanGradXhat));
          }
        }
        gradScale.data[c] = static_cast<float>(sumGradXhat);
        gradBias.data[c] = static_cast<float>(sumGrad);
      }
    });
  });
}

} // namespace memopt::rt
