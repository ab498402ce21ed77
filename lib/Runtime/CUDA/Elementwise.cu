//===- Elementwise.cu - Elementwise ops, losses and optimizer updates -----===//
//
// The elementwise kernels of Kernels.h on device memory, with the CPU
// backend's formulas (lib/Runtime/CPU/Elementwise.cpp, Loss.cpp,
// Optimizer.cpp): float arithmetic per element, mean losses summed in
// double by a deterministic block reduction, optimizer hyperparameters
// rounded to float on the host as PyTorch does. Results may alias an
// operand of the same shape.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/Random.h"

#include "../CPU/ActivationFormulas.h"
#include "../CPU/Common.h"
#include "KernelSupport.cuh"

#include <cmath>

namespace memopt::rt {
using namespace detail;
using cuda::launchBlocks;
using cuda::checkLaunch;
using cuda::IndexMap;
using cuda::kLaunchThreads;

namespace {

//===----------------------------------------------------------------------===//
// Unary and binary maps
//===----------------------------------------------------------------------===//

template <typename F>
__global__ void mapKernel(cuda::Load in, cuda::Store out, int64_t n, F f) {
  MEMOPT_GRID_LOOP(i, n) out.set(i, f(in[i]));
}

template <typename F>
__global__ void zipKernel(cuda::Load a, cuda::Load b, cuda::Store out,
                          int64_t n, F f) {
  MEMOPT_GRID_LOOP(i, n) out.set(i, f(a[i], b[i]));
}

template <typename F>
__global__ void broadcastZipKernel(cuda::Load a, cuda::Load b, cuda::Store out,
                                   IndexMap map, int64_t n, F f) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t oa, ob;
    map.offsets(i, oa, ob);
    out.set(i, f(a[oa], b[ob]));
  }
}

/// tg.select: a copy of the chosen element, the other is not used. `map`
/// gives the offsets of the condition and `on_true`, `falseMap` that of
/// `on_false`.
__global__ void selectKernel(cuda::Load condition, cuda::Load onTrue,
                             cuda::Load onFalse, cuda::Store out, IndexMap map,
                             IndexMap falseMap, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t oc, oa, ob, unused;
    map.offsets(i, oc, oa);
    falseMap.offsets(i, ob, unused);
    out.set(i, condition[oc] != 0.0f ? onTrue[oa] : onFalse[ob]);
  }
}

template <typename F>
void unary(const char *op, ConstTensor input, Tensor output, F f) {
  requireShape(op, "output", output.shape, input.shape);
  int64_t n = input.numel();
  mapKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output), n, f);
  checkLaunch(op);
}

/// `f(a[i], b[i])` for operands of one shape (the activation gradients).
template <typename F>
void zip(const char *op, ConstTensor a, ConstTensor b, Tensor output, F f) {
  requireShape(op, "grad_output", a.shape, b.shape);
  requireShape(op, "grad_input", output.shape, b.shape);
  int64_t n = b.numel();
  zipKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, a), cuda::load(op, b), cuda::store(op, output), n, f);
  checkLaunch(op);
}

template <typename F>
void binary(const char *op, ConstTensor lhs, ConstTensor rhs, Tensor output,
            F f) {
  int64_t n = output.numel();
  cuda::Load a = cuda::load(op, lhs), b = cuda::load(op, rhs);
  cuda::Store out = cuda::store(op, output);
  if (lhs.shape == output.shape && rhs.shape == output.shape) {
    zipKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
        a, b, out, n, f);
  } else {
    IndexMap map(output.shape, broadcastStrides(op, lhs.shape, output.shape),
                 broadcastStrides(op, rhs.shape, output.shape));
    broadcastZipKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
        a, b, out, map, n, f);
  }
  checkLaunch(op);
}

struct Relu {
  // NaN propagates, as in torch.relu.
  __device__ float operator()(float x) const { return x < 0 ? 0.0f : x; }
};
struct Sigmoid {
  __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
struct Tanh {
  __device__ float operator()(float x) const { return tanhf(x); }
};
struct Neg {
  __device__ float operator()(float x) const { return -x; }
};
struct Exp {
  __device__ float operator()(float x) const { return expf(x); }
};
struct Log {
  __device__ float operator()(float x) const { return logf(x); }
};
struct Sqrt {
  __device__ float operator()(float x) const { return sqrtf(x); }
};
struct Abs {
  __device__ float operator()(float x) const { return fabsf(x); }
};
struct Sign {
  __device__ float operator()(float x) const {
    return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f);
  }
};
struct LeakyRelu {
  float alpha;
  __device__ float operator()(float x) const { return x >= 0 ? x : alpha * x; }
};
struct Clip {
  float lo, hi;
  __device__ float operator()(float x) const {
    return x < lo ? lo : (x > hi ? hi : x);
  }
};
struct Floor {
  __device__ float operator()(float x) const { return floorf(x); }
};
struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Sub {
  __device__ float operator()(float a, float b) const { return a - b; }
};
struct Mul {
  __device__ float operator()(float a, float b) const { return a * b; }
};
struct Div {
  __device__ float operator()(float a, float b) const { return a / b; }
};
struct ReluGrad {
  __device__ float operator()(float dy, float y) const {
    return y <= 0 ? 0.0f : dy;
  }
};
struct SigmoidGrad {
  __device__ float operator()(float dy, float y) const {
    return dy * (1 - y) * y;
  }
};
struct TanhGrad {
  __device__ float operator()(float dy, float y) const {
    return dy * (1 - y * y);
  }
};
struct LeakyReluGrad {
  float alpha;
  __device__ float operator()(float dy, float x) const {
    return x > 0 ? dy : alpha * dy;
  }
};
struct ClipGrad {
  float lo, hi;
  __device__ float operator()(float dy, float x) const {
    return lo <= x && x <= hi ? dy : 0.0f;
  }
};

//===----------------------------------------------------------------------===//
// Dropout and uniform random numbers
//===----------------------------------------------------------------------===//

// SplitMix64 of Random.h, as the CPU backend: element i's number depends on
// the seed and i only, so both backends draw the same numbers.
__global__ void dropoutKernel(cuda::Load in, cuda::Store out,
                              cuda::Store mask, int64_t n, double ratio,
                              float keep, uint64_t seedHash) {
  MEMOPT_GRID_LOOP(i, n) {
    uint64_t bits = splitMix64(seedHash ^ static_cast<uint64_t>(i));
    double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
    float m = u < ratio ? 0.0f : keep;
    mask.set(i, m);
    out.set(i, in[i] * m);
  }
}

__global__ void randomUniformKernel(cuda::Store out, int64_t n,
                                    uint64_t seedHash, float low, float span) {
  MEMOPT_GRID_LOOP(i, n) {
    out.set(i, uniformElement(seedHash, static_cast<uint64_t>(i), low, span));
  }
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

struct SquaredError {
  __device__ double operator()(float p, float t) const {
    float d = p - t;
    return d * d;
  }
};
struct AbsoluteError {
  __device__ double operator()(float p, float t) const { return fabsf(p - t); }
};
struct BinaryCrossEntropy {
  __device__ double operator()(float p, float t) const {
    float logP = fmaxf(logf(p), -100.0f);
    float log1mP = fmaxf(logf(1 - p), -100.0f);
    return -(t * logP + (1 - t) * log1mP);
  }
};

/// One block: loss[0] = mean of term(p[i], t[i]).
template <typename F>
__global__ void meanLossKernel(const float *p, const float *t, float *loss,
                               int64_t n, F term) {
  double sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kLaunchThreads)
    sum += term(p[i], t[i]);
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    loss[0] = static_cast<float>(sum / static_cast<double>(n));
}

template <typename F>
void meanLoss(const char *op, ConstTensor prediction, ConstTensor target,
              Tensor loss, F term) {
  requireShape(op, "target", target.shape, prediction.shape);
  requireRank(op, "loss", loss.shape, 0);
  meanLossKernel<<<1, kLaunchThreads, 0, cuda::stream()>>>(
      prediction.data, target.data, loss.data, prediction.numel(), term);
  checkLaunch(op);
}

struct SquaredErrorGrad {
  __device__ float operator()(float p, float t, float g, float invN) const {
    return 2 * invN * (p - t) * g;
  }
};
struct AbsoluteErrorGrad {
  __device__ float operator()(float p, float t, float g, float invN) const {
    float d = p - t;
    float s = d > 0 ? 1.0f : (d < 0 ? -1.0f : 0.0f);
    return s * g * invN;
  }
};
struct BinaryCrossEntropyGrad {
  __device__ float operator()(float p, float t, float g, float invN) const {
    return g * (p - t) / fmaxf((1 - p) * p, 1e-12f) * invN;
  }
};

template <typename F>
__global__ void lossGradKernel(const float *gradLoss, const float *p,
                               const float *t, float *out, int64_t n,
                               float invN, F f) {
  const float g = gradLoss[0];
  MEMOPT_GRID_LOOP(i, n) out[i] = f(p[i], t[i], g, invN);
}

template <typename F>
void lossBackward(const char *op, ConstTensor gradLoss, ConstTensor prediction,
                  ConstTensor target, Tensor gradPrediction, F f) {
  requireRank(op, "grad_loss", gradLoss.shape, 0);
  requireShape(op, "target", target.shape, prediction.shape);
  requireShape(op, "grad_prediction", gradPrediction.shape, prediction.shape);
  int64_t n = prediction.numel();
  float invN = static_cast<float>(1.0 / static_cast<double>(n));
  lossGradKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      gradLoss.data, prediction.data, target.data, gradPrediction.data, n,
      invN, f);
  checkLaunch(op);
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

/// Set when a gradient checked by finiteCheckKernel holds an inf or a NaN
/// (many threads may store 1: the same value, so the result is exact);
/// cleared before each check.
__device__ int nonFiniteGradient;
/// Set by every update that skipped its gradient since the host last read
/// it (takeSkippedUpdate).
__device__ int skippedUpdateFlag;

__global__ void clearNonFiniteKernel() { nonFiniteGradient = 0; }

__global__ void finiteCheckKernel(const float *grad, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    if (!isfinite(grad[i]))
      nonFiniteGradient = 1;
  }
}

/// For a guarded update: whether to keep the operands' values instead
/// (the gradient checked just before holds an inf or a NaN). Thread 0
/// records the skip for the host.
__device__ bool skipUpdate(bool guarded) {
  if (!guarded || !nonFiniteGradient)
    return false;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    skippedUpdateFlag = 1;
  return true;
}

/// Queues the check of `grad` that the next guarded update reads.
void checkFinite(const char *op, ConstTensor grad) {
  clearNonFiniteKernel<<<1, 1, 0, cuda::stream()>>>();
  checkLaunch(op);
  int64_t n = grad.numel();
  finiteCheckKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      grad.data, n);
  checkLaunch(op);
}

struct SgdConstants {
  float wd, mu, keep, rate;
  bool decay, useMomentum, firstStep, nesterov;
  /// Skip the update (keep the values) if the gradient checked by
  /// checkFinite is not finite: tg.skip_nonfinite.
  bool guarded;
};

__global__ void sgdKernel(const float *param, const float *grad,
                          const float *buffer, float *newParam,
                          float *newBuffer, int64_t n, SgdConstants c) {
  const bool skip = skipUpdate(c.guarded);
  MEMOPT_GRID_LOOP(i, n) {
    if (skip) {
      newParam[i] = param[i];
      if (c.useMomentum)
        newBuffer[i] = buffer[i];
      continue;
    }
    float p = param[i];
    float g = grad[i];
    if (c.decay)
      g = g + c.wd * p;
    if (c.useMomentum) {
      float buf = c.firstStep ? g : buffer[i] * c.mu + c.keep * g;
      newBuffer[i] = buf;
      g = c.nesterov ? g + c.mu * buf : buf;
    }
    newParam[i] = p + c.rate * g;
  }
}

struct AdamConstants {
  float wd, decay, w1, b2, w2, stepSize, correction2, eps;
  bool decoupled, coupledDecay;
  bool guarded; // as SgdConstants::guarded
};

__global__ void adamKernel(const float *param, const float *grad,
                           const float *expAvg, const float *expAvgSq,
                           float *newParam, float *newExpAvg,
                           float *newExpAvgSq, int64_t n, AdamConstants c) {
  const bool skip = skipUpdate(c.guarded);
  MEMOPT_GRID_LOOP(i, n) {
    if (skip) {
      newParam[i] = param[i];
      newExpAvg[i] = expAvg[i];
      newExpAvgSq[i] = expAvgSq[i];
      continue;
    }
    float p = param[i];
    float g = grad[i];
    if (c.decoupled)
      p = p * c.decay;
    else if (c.coupledDecay)
      g = g + c.wd * p;
    float m = expAvg[i];
    m = m + c.w1 * (g - m);
    float v = expAvgSq[i] * c.b2 + c.w2 * (g * g);
    float denom = sqrtf(v) / c.correction2 + c.eps;
    newParam[i] = p + c.stepSize * (m / denom);
    newExpAvg[i] = m;
    newExpAvgSq[i] = v;
  }
}

} // namespace

void relu(ConstTensor input, Tensor output) {
  unary("relu", input, output, Relu{});
}
void sigmoid(ConstTensor input, Tensor output) {
  unary("sigmoid", input, output, Sigmoid{});
}
void tanh(ConstTensor input, Tensor output) {
  unary("tanh", input, output, Tanh{});
}
void neg(ConstTensor input, Tensor output) {
  unary("neg", input, output, Neg{});
}
void exp(ConstTensor input, Tensor output) {
  unary("exp", input, output, Exp{});
}
void log(ConstTensor input, Tensor output) {
  unary("log", input, output, Log{});
}
void sqrt(ConstTensor input, Tensor output) {
  unary("sqrt", input, output, Sqrt{});
}
void abs(ConstTensor input, Tensor output) {
  unary("abs", input, output, Abs{});
}
void sign(ConstTensor input, Tensor output) {
  unary("sign", input, output, Sign{});
}

void leakyRelu(ConstTensor input, Tensor output, double alpha) {
  unary("leaky_relu", input, output, LeakyRelu{static_cast<float>(alpha)});
}

void clip(ConstTensor input, Tensor output, double min, double max) {
  require(min <= max, "clip", "min must not exceed max");
  unary("clip", input, output,
        Clip{static_cast<float>(min), static_cast<float>(max)});
}

void add(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("add", lhs, rhs, output, Add{});
}
void sub(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("sub", lhs, rhs, output, Sub{});
}
void mul(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("mul", lhs, rhs, output, Mul{});
}
void div(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("div", lhs, rhs, output, Div{});
}

void dropout(ConstTensor input, Tensor output, Tensor mask, double ratio,
             uint64_t seed) {
  const char *op = "dropout";
  require(ratio >= 0 && ratio < 1, op, "ratio must be in [0, 1)");
  requireShape(op, "output", output.shape, input.shape);
  requireShape(op, "mask", mask.shape, input.shape);
  int64_t n = input.numel();
  dropoutKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output), cuda::store(op, mask), n,
      ratio,
      static_cast<float>(1.0 / (1.0 - ratio)), splitMix64(seed));
  checkLaunch(op);
}

void floor(ConstTensor input, Tensor output) {
  unary("floor", input, output, Floor{});
}

void compare(ConstTensor lhs, ConstTensor rhs, Tensor output,
             Comparison predicate) {
  binary("compare", lhs, rhs, output, formulas::Compare{predicate});
}

void select(ConstTensor condition, ConstTensor onTrue, ConstTensor onFalse,
            Tensor output) {
  const char *op = "select";
  int64_t n = output.numel();
  IndexMap map(output.shape,
               broadcastStrides(op, condition.shape, output.shape),
               broadcastStrides(op, onTrue.shape, output.shape));
  IndexMap falseMap(output.shape,
                    broadcastStrides(op, onFalse.shape, output.shape));
  selectKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, condition), cuda::load(op, onTrue),
      cuda::load(op, onFalse), cuda::store(op, output), map, falseMap, n);
  checkLaunch(op);
}

void randomUniform(Tensor output, double low, double high, uint64_t seed) {
  const char *op = "random_uniform";
  require(low < high, op, "low must be below high");
  int64_t n = output.numel();
  randomUniformKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::store(op, output), n, splitMix64(seed), static_cast<float>(low),
      static_cast<float>(high - low));
  checkLaunch(op);
}

void reluBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput) {
  zip("relu_backward", gradOutput, output, gradInput, ReluGrad{});
}
void sigmoidBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput) {
  zip("sigmoid_backward", gradOutput, output, gradInput, SigmoidGrad{});
}
void tanhBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput) {
  zip("tanh_backward", gradOutput, output, gradInput, TanhGrad{});
}
void leakyReluBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, double alpha) {
  zip("leaky_relu_backward", gradOutput, input, gradInput,
      LeakyReluGrad{static_cast<float>(alpha)});
}
void clipBackward(ConstTensor gradOutput, ConstTensor input, Tensor gradInput,
                  double min, double max) {
  require(min <= max, "clip_backward", "min must not exceed max");
  zip("clip_backward", gradOutput, input, gradInput,
      ClipGrad{static_cast<float>(min), static_cast<float>(max)});
}

void mseLoss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("mse_loss", prediction, target, loss, SquaredError{});
}
void l1Loss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("l1_loss", prediction, target, loss, AbsoluteError{});
}
void bceLoss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("bce_loss", prediction, target, loss, BinaryCrossEntropy{});
}

void mseLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction) {
  lossBackward("mse_loss_backward", gradLoss, prediction, target,
               gradPrediction, SquaredErrorGrad{});
}
void l1LossBackward(ConstTensor gradLoss, ConstTensor prediction,
                    ConstTensor target, Tensor gradPrediction) {
  lossBackward("l1_loss_backward", gradLoss, prediction, target,
               gradPrediction, AbsoluteErrorGrad{});
}
void bceLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction) {
  lossBackward("bce_loss_backward", gradLoss, prediction, target,
               gradPrediction, BinaryCrossEntropyGrad{});
}

namespace {

void launchSgd(ConstTensor param, ConstTensor grad, ConstTensor momentumBuffer,
               int64_t step, Tensor newParam, Tensor newMomentumBuffer,
               double lr, double momentum, double dampening,
               double weightDecay, bool nesterov, bool guarded) {
  checkSgdUpdate(param, grad, momentumBuffer, step, newParam,
                 newMomentumBuffer, lr, momentum, dampening, weightDecay,
                 nesterov);
  if (guarded)
    checkFinite("sgd_update", grad);
  SgdConstants c{static_cast<float>(weightDecay), static_cast<float>(momentum),
                 static_cast<float>(1 - dampening), static_cast<float>(-lr),
                 weightDecay != 0, momentum != 0, step == 1, nesterov,
                 guarded};
  int64_t n = param.numel();
  sgdKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      param.data, grad.data, momentumBuffer.data, newParam.data,
      newMomentumBuffer.data, n, c);
  checkLaunch("sgd_update");
}

void launchAdam(ConstTensor param, ConstTensor grad, ConstTensor expAvg,
                ConstTensor expAvgSq, int64_t step, Tensor newParam,
                Tensor newExpAvg, Tensor newExpAvgSq, double lr, double beta1,
                double beta2, double eps, double weightDecay, bool decoupled,
                bool guarded) {
  checkAdamUpdate(param, grad, expAvg, expAvgSq, step, newParam, newExpAvg,
                  newExpAvgSq, lr, beta1, beta2, eps, weightDecay);
  if (guarded)
    checkFinite("adam_update", grad);
  const double t = static_cast<double>(step);
  AdamConstants c{static_cast<float>(weightDecay),
                  static_cast<float>(1 - lr * weightDecay),
                  static_cast<float>(1 - beta1),
                  static_cast<float>(beta2),
                  static_cast<float>(1 - beta2),
                  static_cast<float>(-lr / (1 - std::pow(beta1, t))),
                  static_cast<float>(std::sqrt(1 - std::pow(beta2, t))),
                  static_cast<float>(eps),
                  decoupled,
                  weightDecay != 0,
                  guarded};
  int64_t n = param.numel();
  adamKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      param.data, grad.data, expAvg.data, expAvgSq.data, newParam.data,
      newExpAvg.data, newExpAvgSq.data, n, c);
  checkLaunch("adam_update");
}

} // namespace

void sgdUpdate(ConstTensor param, ConstTensor grad, ConstTensor momentumBuffer,
               int64_t step, Tensor newParam, Tensor newMomentumBuffer,
               double lr, double momentum, double dampening,
               double weightDecay, bool nesterov) {
  launchSgd(param, grad, momentumBuffer, step, newParam, newMomentumBuffer, lr,
            momentum, dampening, weightDecay, nesterov, /*guarded=*/false);
}

void adamUpdate(ConstTensor param, ConstTensor grad, ConstTensor expAvg,
                ConstTensor expAvgSq, int64_t step, Tensor newParam,
                Tensor newExpAvg, Tensor newExpAvgSq, double lr, double beta1,
                double beta2, double eps, double weightDecay, bool decoupled) {
  launchAdam(param, grad, expAvg, expAvgSq, step, newParam, newExpAvg,
             newExpAvgSq, lr, beta1, beta2, eps, weightDecay, decoupled,
             /*guarded=*/false);
}

// fp16 loss scaling (tg-loss-scale): the check and the decision stay on
// the GPU, queued on the stream between the gradient and the update, so
// the step does not wait for the host; the trainer reads the flag once
// after the step (takeSkippedUpdate).
void sgdUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                            ConstTensor momentumBuffer, int64_t step,
                            Tensor newParam, Tensor newMomentumBuffer,
                            double lr, double momentum, double dampening,
                            double weightDecay, bool nesterov) {
  launchSgd(param, grad, momentumBuffer, step, newParam, newMomentumBuffer, lr,
            momentum, dampening, weightDecay, nesterov, /*guarded=*/true);
}

void adamUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                             ConstTensor expAvg, ConstTensor expAvgSq,
                             int64_t step, Tensor newParam, Tensor newExpAvg,
                             Tensor newExpAvgSq, double lr, double beta1,
                             double beta2, double eps, double weightDecay,
                             bool decoupled) {
  launchAdam(param, grad, expAvg, expAvgSq, step, newParam, newExpAvg,
             newExpAvgSq, lr, beta1, beta2, eps, weightDecay, decoupled,
             /*guarded=*/true);
}

bool cuda::takeSkippedUpdate() {
  int skipped = 0;
  const char *op = "loss scaling";
  MEMOPT_CUDA_CHECK(op, cudaMemcpyFromSymbolAsync(
                            &skipped, skippedUpdateFlag, sizeof skipped, 0,
                            cudaMemcpyDeviceToHost, cuda::stream()));
  MEMOPT_CUDA_CHECK(op, cudaStreamSynchronize(cuda::stream()));
  if (skipped) {
    const int clear = 0;
    MEMOPT_CUDA_CHECK(op, cudaMemcpyToSymbolAsync(skippedUpdateFlag, &clear,
                                                  sizeof clear, 0,
                                                  cudaMemcpyHostToDevice,
                                                  cuda::stream()));
    MEMOPT_CUDA_CHECK(op, cudaStreamSynchronize(cuda::stream()));
  }
  return skipped != 0;
}

} // namespace memopt::rt
