//===- Segmentation.cu - Kernels of segmentation networks on the GPU ------===//
//
// The CUDA forms of lib/Runtime/CPU/Activation.cpp, Softmax.cpp,
// InstanceNorm.cpp and SegmentationLoss.cpp: the same argument checks
// (Common.h, AxisLayout.h), the same per-element formulas
// (ActivationFormulas.h), sums in double with the deterministic block
// reduction of KernelSupport.cuh. The activations, prelu and instance
// norm take bf16 / f16 activations (cuda::Load / Store), the softmax and
// the losses f32, as tg-amp's table leaves them. Rows along an axis are
// one thread each;
// an instance-norm slice, a channel's gradient sums and each loss are one
// block. A class index outside [0, C) yields NaN here (the CPU kernels
// abort): the trainer checks label maps when it reads them.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/ActivationFormulas.h"
#include "../CPU/AxisLayout.h"
#include "KernelSupport.cuh"

#include <cmath>

namespace memopt::rt {
using namespace detail;
using cuda::checkLaunch;
using cuda::IndexMap;
using cuda::kLaunchThreads;
using cuda::launchBlocks;

namespace {

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

// The activations run on the tensors' element type (f32, or bf16 / f16
// under mixed precision), computing in f32 (KernelSupport.cuh).
template <typename F>
__global__ void mapKernel(cuda::Load in, cuda::Store out, int64_t n, F f) {
  MEMOPT_GRID_LOOP(i, n) out.set(i, f(in[i]));
}

template <typename F>
__global__ void gradKernel(cuda::Load dy, cuda::Load x, cuda::Store dx,
                           int64_t n, F f) {
  MEMOPT_GRID_LOOP(i, n) dx.set(i, f(dy[i], x[i]));
}

template <typename F>
void map(const char *kernel, ConstTensor input, Tensor output, F f) {
  requireShape(kernel, "output", output.shape, input.shape);
  int64_t n = input.numel();
  mapKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(kernel, input), cuda::store(kernel, output), n, f);
  checkLaunch(kernel);
}

template <typename F>
void mapGrad(const char *kernel, ConstTensor gradOutput, ConstTensor input,
             Tensor gradInput, F f) {
  requireShape(kernel, "grad_output", gradOutput.shape, input.shape);
  requireShape(kernel, "grad_input", gradInput.shape, input.shape);
  int64_t n = input.numel();
  gradKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(kernel, gradOutput), cuda::load(kernel, input),
      cuda::store(kernel, gradInput), n, f);
  checkLaunch(kernel);
}

/// prelu (dy null) and prelu_backward; the slope is read at its broadcast
/// offset, the other operands at the element's index. Every tensor has the
/// input's element type (tg-amp casts the slope with the input).
__global__ void preluKernel(cuda::Load dy, cuda::Load x, cuda::Load slope,
                            cuda::Store out, IndexMap map, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t ox, os;
    map.offsets(i, ox, os);
    out.set(i, dy.data ? formulas::PReluGrad{}(dy[i], x[i], slope[os])
                       : formulas::PRelu{}(x[i], slope[os]));
  }
}

void preluLaunch(const char *kernel, ConstTensor gradOutput,
                 ConstTensor input, ConstTensor slope, Tensor output) {
  Dims slopeStrides = checkPRelu(kernel, gradOutput, input, slope, output);
  IndexMap map(input.shape, broadcastStrides(kernel, input.shape, input.shape),
               slopeStrides);
  int64_t n = input.numel();
  cuda::Load dy{gradOutput.data, input.type};
  preluKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      dy, cuda::load(kernel, input), cuda::load(kernel, slope),
      cuda::store(kernel, output), map, n);
  checkLaunch(kernel);
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

template <bool Log>
__global__ void softmaxKernel(const float *x, float *y, AxisLayout l) {
  MEMOPT_GRID_LOOP(r, l.rows()) {
    int64_t o = r / l.inner, i = r % l.inner;
    float max = -INFINITY;
    for (int64_t k = 0; k < l.size; ++k)
      max = fmaxf(max, x[l.at(o, k, i)]);
    double sum = 0;
    for (int64_t k = 0; k < l.size; ++k)
      sum += expf(x[l.at(o, k, i)] - max);
    float logSum = static_cast<float>(::log(sum));
    float inv = static_cast<float>(1.0 / sum);
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      y[at] = Log ? x[at] - max - logSum : expf(x[at] - max) * inv;
    }
  }
}

template <bool Log>
__global__ void softmaxGradKernel(const float *dy, const float *y, float *dx,
                                  AxisLayout l) {
  MEMOPT_GRID_LOOP(r, l.rows()) {
    int64_t o = r / l.inner, i = r % l.inner;
    double sum = 0;
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      sum += Log ? dy[at] : static_cast<double>(dy[at]) * y[at];
    }
    float s = static_cast<float>(sum);
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      dx[at] = Log ? dy[at] - expf(y[at]) * s : y[at] * (dy[at] - s);
    }
  }
}

template <bool Log>
void softmaxLaunch(const char *kernel, ConstTensor input, Tensor output,
                   int64_t axis) {
  requireShape(kernel, "output", output.shape, input.shape);
  AxisLayout l = axisLayout(kernel, input.shape, axis);
  softmaxKernel<Log><<<launchBlocks(l.rows()), kLaunchThreads, 0,
                       cuda::stream()>>>(input.data, output.data, l);
  checkLaunch(kernel);
}

template <bool Log>
void softmaxGradLaunch(const char *kernel, ConstTensor gradOutput,
                       ConstTensor output, Tensor gradInput, int64_t axis) {
  requireShape(kernel, "grad_output", gradOutput.shape, output.shape);
  requireShape(kernel, "grad_input", gradInput.shape, output.shape);
  AxisLayout l = axisLayout(kernel, output.shape, axis);
  softmaxGradKernel<Log><<<launchBlocks(l.rows()), kLaunchThreads, 0,
                           cuda::stream()>>>(gradOutput.data, output.data,
                                             gradInput.data, l);
  checkLaunch(kernel);
}

//===----------------------------------------------------------------------===//
// Instance normalization
//===----------------------------------------------------------------------===//

// The input, output and their gradients in f32, bf16 or f16 (computed in
// f32, sums in double); scale, bias and statistics f32, as on the CPU.

/// One block per (n, c) slice.
__global__ void instanceNormKernel(cuda::Load x, const float *scale,
                                   const float *bias, cuda::Store y,
                                   float *mean, float *invStd, AxisLayout l,
                                   double epsilon) {
  int64_t s = blockIdx.x;
  cuda::Load xs = x + s * l.inner;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < l.inner; i += kLaunchThreads)
    sum += xs[i];
  double m = cuda::blockSum(sum) / static_cast<double>(l.inner);
  double squares = 0;
  for (int64_t i = threadIdx.x; i < l.inner; i += kLaunchThreads) {
    double d = xs[i] - m;
    squares += d * d;
  }
  double var = cuda::blockSum(squares) / static_cast<double>(l.inner);
  double inv = 1.0 / ::sqrt(var + epsilon);
  int64_t c = s % l.size;
  double k = inv * scale[c];
  float kf = static_cast<float>(k);
  float b0 = static_cast<float>(bias[c] - m * k);
  for (int64_t i = threadIdx.x; i < l.inner; i += kLaunchThreads)
    y.set(s * l.inner + i, xs[i] * kf + b0);
  if (threadIdx.x == 0) {
    mean[s] = static_cast<float>(m);
    invStd[s] = static_cast<float>(inv);
  }
}

/// One block per channel, walking the samples in order.
__global__ void instanceNormGradKernel(cuda::Load dy, cuda::Load x,
                                       const float *scale, const float *mean,
                                       const float *invStd, cuda::Store dx,
                                       float *gradScale, float *gradBias,
                                       AxisLayout l) {
  int64_t c = blockIdx.x;
  double gs = 0, gb = 0;
  const double count = static_cast<double>(l.inner);
  for (int64_t n = 0; n < l.outer; ++n) {
    int64_t s = n * l.size + c;
    cuda::Load xs = x + s * l.inner, dys = dy + s * l.inner;
    const double m = mean[s], inv = invStd[s];
    double a = 0, b = 0;
    for (int64_t i = threadIdx.x; i < l.inner; i += kLaunchThreads) {
      a += dys[i];
      b += dys[i] * ((xs[i] - m) * inv);
    }
    a = cuda::blockSum(a);
    b = cuda::blockSum(b);
    // blockSum's result is valid in thread 0 only: share it.
    __shared__ double shared[2];
    if (threadIdx.x == 0) {
      shared[0] = a;
      shared[1] = b;
    }
    __syncthreads();
    a = shared[0];
    b = shared[1];
    __syncthreads();
    gb += a;
    gs += b;
    double k = scale[c] * inv;
    for (int64_t i = threadIdx.x; i < l.inner; i += kLaunchThreads) {
      double xhat = (xs[i] - m) * inv;
      dx.set(s * l.inner + i,
             static_cast<float>(k * (dys[i] - a / count - xhat * b / count)));
    }
  }
  if (threadIdx.x == 0) {
    gradScale[c] = static_cast<float>(gs);
    gradBias[c] = static_cast<float>(gb);
  }
}

//===----------------------------------------------------------------------===//
// Segmentation losses (one block each)
//===----------------------------------------------------------------------===//

/// The logsumexp over the channels at position (o, i).
__device__ double channelLogSumExp(const AxisLayout &l, const float *z,
                                   int64_t o, int64_t i) {
  float max = -INFINITY;
  for (int64_t k = 0; k < l.size; ++k)
    max = fmaxf(max, z[l.at(o, k, i)]);
  double sum = 0;
  for (int64_t k = 0; k < l.size; ++k)
    sum += expf(z[l.at(o, k, i)] - max);
  return max + ::log(sum);
}

/// The class index at `position`, or -1 when the value is not one.
__device__ int64_t labelAt(const float *target, int64_t position,
                           int64_t classes) {
  float v = target[position];
  if (!(v >= 0 && v < static_cast<float>(classes)) || v != floorf(v))
    return -1;
  return static_cast<int64_t>(v);
}

__global__ void crossEntropyKernel(const float *z, const float *target,
                                   float *loss, AxisLayout l) {
  double sum = 0;
  for (int64_t r = threadIdx.x; r < l.rows(); r += kLaunchThreads) {
    int64_t o = r / l.inner, i = r % l.inner, t = labelAt(target, r, l.size);
    sum += t < 0 ? NAN : channelLogSumExp(l, z, o, i) - z[l.at(o, t, i)];
  }
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    loss[0] = static_cast<float>(sum / static_cast<double>(l.rows()));
}

__global__ void crossEntropyGradKernel(const float *gradLoss, const float *z,
                                       const float *target, float *dz,
                                       AxisLayout l) {
  const float g =
      static_cast<float>(gradLoss[0] / static_cast<double>(l.rows()));
  MEMOPT_GRID_LOOP(r, l.rows()) {
    int64_t o = r / l.inner, i = r % l.inner, t = labelAt(target, r, l.size);
    double lse = channelLogSumExp(l, z, o, i);
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      float p = static_cast<float>(::exp(z[at] - lse));
      dz[at] = t < 0 ? NAN : (p - (k == t ? 1.0f : 0.0f)) * g;
    }
  }
}

__device__ float sigmoidOf(float z) { return 1.0f / (1.0f + expf(-z)); }

/// p_k at position (o, i) given its logsumexp.
__device__ double softmaxAt(const AxisLayout &l, const float *z, int64_t o,
                            int64_t k, int64_t i, double lse) {
  // Rounded to float as the CPU kernel's per-position softmax buffer is.
  return static_cast<float>(::exp(z[l.at(o, k, i)] - lse));
}

/// I = sum(p * t) and S = sum(p) + sum(t) of the Dice loss, in thread 0.
__device__ void diceSums(const float *z, const float *target, AxisLayout l,
                         double &intersection, double &total) {
  double inter = 0, tot = 0;
  if (l.size == 1) {
    for (int64_t e = threadIdx.x; e < l.rows(); e += kLaunchThreads) {
      double p = sigmoidOf(z[e]), t = target[e];
      inter += p * t;
      tot += p + t;
    }
  } else {
    for (int64_t r = threadIdx.x; r < l.rows(); r += kLaunchThreads) {
      int64_t o = r / l.inner, i = r % l.inner,
              t = labelAt(target, r, l.size);
      if (t < 0) {
        inter += NAN;
        continue;
      }
      double lse = channelLogSumExp(l, z, o, i);
      for (int64_t k = 0; k < l.size; ++k)
        tot += softmaxAt(l, z, o, k, i, lse);
      inter += softmaxAt(l, z, o, t, i, lse);
      tot += 1.0;
    }
  }
  intersection = cuda::blockSum(inter);
  total = cuda::blockSum(tot);
}

__global__ void diceKernel(const float *z, const float *target, float *loss,
                           AxisLayout l, double epsilon) {
  double intersection, total;
  diceSums(z, target, l, intersection, total);
  if (threadIdx.x == 0)
    loss[0] = static_cast<float>(1.0 - (2.0 * intersection + epsilon) /
                                           (total + epsilon));
}

/// One block: the sums, then every element's gradient.
__global__ void diceGradKernel(const float *gradLoss, const float *z,
                               const float *target, float *dz, AxisLayout l,
                               double epsilon) {
  double intersection, total;
  diceSums(z, target, l, intersection, total);
  __shared__ double shared[2];
  if (threadIdx.x == 0) {
    double denom = total + epsilon, gl = gradLoss[0];
    shared[0] = gl * 2.0 / denom;
    shared[1] = gl * (2.0 * intersection + epsilon) / (denom * denom);
  }
  __syncthreads();
  const double a = shared[0], b = shared[1];
  if (l.size == 1) {
    for (int64_t e = threadIdx.x; e < l.rows(); e += kLaunchThreads) {
      double p = sigmoidOf(z[e]);
      dz[e] = static_cast<float>((b - a * target[e]) * p * (1.0 - p));
    }
    return;
  }
  for (int64_t r = threadIdx.x; r < l.rows(); r += kLaunchThreads) {
    int64_t o = r / l.inner, i = r % l.inner, t = labelAt(target, r, l.size);
    double lse = channelLogSumExp(l, z, o, i);
    double dot = 0;
    for (int64_t k = 0; k < l.size; ++k)
      dot += softmaxAt(l, z, o, k, i, lse) * (b - (k == t ? a : 0.0));
    for (int64_t k = 0; k < l.size; ++k) {
      double p = softmaxAt(l, z, o, k, i, lse);
      dz[l.at(o, k, i)] = t < 0 ? NAN
                                : static_cast<float>(
                                      p * ((b - (k == t ? a : 0.0)) - dot));
    }
  }
}

} // namespace

#include "../CPU/ActivationEntryPoints.inc"

void prelu(ConstTensor input, ConstTensor slope, Tensor output) {
  preluLaunch("prelu", ConstTensor(), input, slope, output);
}
void preluBackward(ConstTensor gradOutput, ConstTensor input,
                   ConstTensor slope, Tensor gradInput) {
  preluLaunch("prelu_backward", gradOutput, input, slope, gradInput);
}

void softmax(ConstTensor input, Tensor output, int64_t axis) {
  softmaxLaunch<false>("softmax", input, output, axis);
}
void logSoftmax(ConstTensor input, Tensor output, int64_t axis) {
  softmaxLaunch<true>("log_softmax", input, output, axis);
}
void softmaxBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput, int64_t axis) {
  softmaxGradLaunch<false>("softmax_backward", gradOutput, output, gradInput,
                           axis);
}
void logSoftmaxBackward(ConstTensor gradOutput, ConstTensor output,
                        Tensor gradInput, int64_t axis) {
  softmaxGradLaunch<true>("log_softmax_backward", gradOutput, output,
                          gradInput, axis);
}

void instanceNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
                  Tensor output, Tensor savedMean, Tensor savedInvStd,
                  double epsilon) {
  AxisLayout l =
      checkInstanceNorm(input, scale, bias, output, savedMean, savedInvStd);
  const char *kernel = "instance_norm";
  instanceNormKernel<<<static_cast<unsigned>(l.outer * l.size), kLaunchThreads,
                       0, cuda::stream()>>>(
      cuda::load(kernel, input), scale.data, bias.data,
      cuda::store(kernel, output), savedMean.data, savedInvStd.data, l,
      epsilon);
  checkLaunch("instance_norm");
}

void instanceNormBackward(ConstTensor gradOutput, ConstTensor input,
                          ConstTensor scale, ConstTensor savedMean,
                          ConstTensor savedInvStd, Tensor gradInput,
                          Tensor gradScale, Tensor gradBias) {
  AxisLayout l = checkInstanceNormBackward(gradOutput, input, scale, savedMean,
                                           savedInvStd, gradInput, gradScale,
                                           gradBias);
  const char *kernel = "instance_norm_backward";
  instanceNormGradKernel<<<static_cast<unsigned>(l.size), kLaunchThreads, 0,
                           cuda::stream()>>>(
      cuda::load(kernel, gradOutput), cuda::load(kernel, input), scale.data,
      savedMean.data, savedInvStd.data, cuda::store(kernel, gradInput),
      gradScale.data, gradBias.data, l);
  checkLaunch("instance_norm_backward");
}

void crossEntropyLoss(ConstTensor logits, ConstTensor target, Tensor loss) {
  const char *kernel = "cross_entropy_loss";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape, false);
  requireRank(kernel, "loss", loss.shape, 0);
  crossEntropyKernel<<<1, kLaunchThreads, 0, cuda::stream()>>>(
      logits.data, target.data, loss.data, l);
  checkLaunch(kernel);
}

void crossEntropyLossBackward(ConstTensor gradLoss, ConstTensor logits,
                              ConstTensor target, Tensor gradLogits) {
  const char *kernel = "cross_entropy_loss_backward";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape, false);
  requireRank(kernel, "grad_loss", gradLoss.shape, 0);
  requireShape(kernel, "grad_logits", gradLogits.shape, logits.shape);
  crossEntropyGradKernel<<<launchBlocks(l.rows()), kLaunchThreads, 0,
                           cuda::stream()>>>(gradLoss.data, logits.data,
                                             target.data, gradLogits.data, l);
  checkLaunch(kernel);
}

void diceLoss(ConstTensor logits, ConstTensor target, Tensor loss,
              double epsilon) {
  const char *kernel = "dice_loss";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape, true);
  require(epsilon >= 0, kernel, "'epsilon' must be non-negative");
  requireRank(kernel, "loss", loss.shape, 0);
  diceKernel<<<1, kLaunchThreads, 0, cuda::stream()>>>(
      logits.data, target.data, loss.data, l, epsilon);
  checkLaunch(kernel);
}

void diceLossBackward(ConstTensor gradLoss, ConstTensor logits,
                      ConstTensor target, Tensor gradLogits, double epsilon) {
  const char *kernel = "dice_loss_backward";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape, true);
  require(epsilon >= 0, kernel, "'epsilon' must be non-negative");
  requireRank(kernel, "grad_loss", gradLoss.shape, 0);
  requireShape(kernel, "grad_logits", gradLogits.shape, logits.shape);
  diceGradKernel<<<1, kLaunchThreads, 0, cuda::stream()>>>(
      gradLoss.data, logits.data, target.data, gradLogits.data, l, epsilon);
  checkLaunch(kernel);
}

} // namespace memopt::rt
