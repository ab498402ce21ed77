//===- LowPrecisionBatchNorm.cu - Batch norm on bf16 / f16 activations ----===//
//
// Under mixed precision (tg-amp) batch_norm follows its input: the input,
// output and their gradients are bf16 or f16, while scale, bias, the
// running and the saved statistics and the parameter gradients stay f32.
// cuDNN's batch-norm calls (BatchNorm.cpp, used for f32) document half
// data with float parameters but not bf16, so both low types run here,
// with the CPU backend's formulas (lib/Runtime/CPU/BatchNorm.cpp): sums in
// double, the mean first and then the squared deviations, f32 per-channel
// values, y = (x - mean) * (scale * inv_std) + bias rounded once. One
// block per channel computes its statistics with the deterministic block
// sum (KernelSupport.cuh) and then writes the channel: no atomics, the
// same bits on every run.
//
//===----------------------------------------------------------------------===//

#include "LowPrecisionBatchNorm.h"

#include "KernelSupport.cuh"

#include <cmath>

namespace memopt::rt::cuda {
using detail::require;

namespace {

/// The N, C and spatial extents of a batch-norm input, by value.
struct Layout {
  int64_t batch, channels, inner;

  __device__ int64_t perChannel() const { return batch * inner; }
  /// The element of channel `c` at index `k` of its N * inner elements.
  __device__ int64_t offset(int64_t c, int64_t k) const {
    return ((k / inner) * channels + c) * inner + k % inner;
  }
};

Layout layoutOf(const Dims &input) {
  int64_t inner = 1;
  for (int i = 2; i < input.size; ++i)
    inner *= input[i];
  return {input[0], input[1], inner};
}

unsigned channelBlocks(const char *op, const Layout &l) {
  require(l.channels >= 1 && l.channels <= INT32_MAX, op,
          "bad number of channels");
  return static_cast<unsigned>(l.channels);
}

struct ForwardArgs {
  Load x;
  Store y;
  const float *scale, *bias, *runningMean, *runningVar;
  float *newRunningMean, *newRunningVar, *savedMean, *savedInvStd;
  double epsilon, momentum;
};

__global__ void forwardKernel(ForwardArgs a, Layout l) {
  const int64_t c = blockIdx.x, m = l.perChannel();
  const double count = static_cast<double>(m);
  double sum = 0;
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads)
    sum += a.x[l.offset(c, k)];
  const double mean = blockSum(sum) / count;
  double squares = 0;
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads) {
    double d = a.x[l.offset(c, k)] - mean;
    squares += d * d;
  }
  squares = blockSum(squares);
  const double var = squares / count;
  const float invStd = static_cast<float>(1.0 / ::sqrt(var + a.epsilon));
  const float meanF = static_cast<float>(mean);
  const float scale = a.scale[c] * invStd, bias = a.bias[c];
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads) {
    int64_t i = l.offset(c, k);
    a.y.set(i, (a.x[i] - meanF) * scale + bias);
  }
  if (threadIdx.x == 0) {
    // PyTorch's running variance is unbiased (M - 1).
    a.newRunningMean[c] = static_cast<float>((1 - a.momentum) *
                                                 a.runningMean[c] +
                                             a.momentum * mean);
    a.newRunningVar[c] = static_cast<float>(
        (1 - a.momentum) * a.runningVar[c] +
        a.momentum * (squares / (count - 1)));
    a.savedMean[c] = meanF;
    a.savedInvStd[c] = invStd;
  }
}

__global__ void inferenceKernel(Load x, Store y, const float *scale,
                                const float *bias, const float *mean,
                                const float *var, double epsilon, Layout l) {
  const int64_t c = blockIdx.x, m = l.perChannel();
  const float invStd = static_cast<float>(1.0 / ::sqrt(var[c] + epsilon));
  const float a = scale[c] * invStd, b = bias[c], mu = mean[c];
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads) {
    int64_t i = l.offset(c, k);
    y.set(i, (x[i] - mu) * a + b);
  }
}

struct BackwardArgs {
  Load dy, x;
  Store dx;
  const float *scale, *savedMean, *savedInvStd;
  float *gradScale, *gradBias;
};

__global__ void backwardKernel(BackwardArgs a, Layout l) {
  const int64_t c = blockIdx.x, m = l.perChannel();
  const double count = static_cast<double>(m);
  const double mean = a.savedMean[c], invStd = a.savedInvStd[c];
  double sumGrad = 0, sumGradXhat = 0;
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads) {
    int64_t i = l.offset(c, k);
    double g = a.dy[i];
    sumGrad += g;
    sumGradXhat += g * ((a.x[i] - mean) * invStd);
  }
  sumGrad = blockSum(sumGrad);
  sumGradXhat = blockSum(sumGradXhat);
  const double scale = a.scale[c] * invStd;
  const double meanGrad = sumGrad / count, meanGradXhat = sumGradXhat / count;
  for (int64_t k = threadIdx.x; k < m; k += kLaunchThreads) {
    int64_t i = l.offset(c, k);
    double xhat = (a.x[i] - mean) * invStd;
    a.dx.set(i, static_cast<float>(scale * (a.dy[i] - meanGrad -
                                             xhat * meanGradXhat)));
  }
  if (threadIdx.x == 0) {
    a.gradScale[c] = static_cast<float>(sumGradXhat);
    a.gradBias[c] = static_cast<float>(sumGrad);
  }
}

} // namespace

void lowPrecisionBatchNorm(ConstTensor input, ConstTensor scale,
                           ConstTensor bias, ConstTensor runningMean,
                           ConstTensor runningVar, Tensor output,
                           Tensor newRunningMean, Tensor newRunningVar,
                           Tensor savedMean, Tensor savedInvStd,
                           double epsilon, double momentum) {
  const char *op = "batch_norm";
  Layout l = layoutOf(input.shape);
  ForwardArgs a{load(op, input),       store(op, output),
                scale.data,            bias.data,
                runningMean.data,      runningVar.data,
                newRunningMean.data,   newRunningVar.data,
                savedMean.data,        savedInvStd.data,
                epsilon,               momentum};
  forwardKernel<<<channelBlocks(op, l), kLaunchThreads, 0, stream()>>>(a, l);
  checkLaunch(op);
}

void lowPrecisionBatchNormInference(ConstTensor input, ConstTensor scale,
                                    ConstTensor bias, ConstTensor mean,
                                    ConstTensor var, Tensor output,
                                    double epsilon) {
  const char *op = "batch_norm_inference";
  Layout l = layoutOf(input.shape);
  inferenceKernel<<<channelBlocks(op, l), kLaunchThreads, 0, stream()>>>(
      load(op, input), store(op, output), scale.data, bias.data, mean.data,
      var.data, epsilon, l);
  checkLaunch(op);
}

void lowPrecisionBatchNormBackward(ConstTensor gradOutput, ConstTensor input,
                                   ConstTensor scale, ConstTensor savedMean,
                                   ConstTensor savedInvStd, Tensor gradInput,
                                   Tensor gradScale, Tensor gradBias) {
  const char *op = "batch_norm_backward";
  Layout l = layoutOf(input.shape);
  BackwardArgs a{load(op, gradOutput), load(op, input),
                 store(op, gradInput), scale.data,
                 savedMean.data,       savedInvStd.data,
                 gradScale.data,       gradBias.data};
  backwardKernel<<<channelBlocks(op, l), kLaunchThreads, 0, stream()>>>(a, l);
  checkLaunch(op);
}

} // namespace memopt::rt::cuda
