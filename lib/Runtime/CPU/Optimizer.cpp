//===- Optimizer.cpp - SGD and Adam/AdamW parameter updates ---------------===//
//
// torch.optim's single-tensor updates, elementwise in float with the
// hyperparameters rounded to float as PyTorch's scalar arguments are; the
// bias corrections are computed in double as Python does. Results may alias
// their operands (an in-place update). Elements are independent and split
// over threads.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace memopt::rt {
using namespace detail;

namespace {

/// Calls `f` with `flag` as a compile-time constant (std::true_type or
/// std::false_type), so that `f` can be instantiated once per value.
template <typename F> void withFlag(bool flag, F f) {
  if (flag)
    f(std::true_type());
  else
    f(std::false_type());
}

} // namespace

void sgdUpdate(ConstTensor param, ConstTensor grad, ConstTensor momentumBuffer,
               int64_t step, Tensor newParam, Tensor newMomentumBuffer,
               double lr, double momentum, double dampening,
               double weightDecay, bool nesterov) {
  checkSgdUpdate(param, grad, momentumBuffer, step, newParam,
                 newMomentumBuffer, lr, momentum, dampening, weightDecay,
                 nesterov);
  const float wd = static_cast<float>(weightDecay);
  const float mu = static_cast<float>(momentum);
  const float keep = static_cast<float>(1 - dampening);
  const float rate = static_cast<float>(-lr);
  const bool firstStep = step == 1;
  const int64_t n = param.numel();
  // One loop per combination of the options, each free of branches so that
  // it vectorizes.
  withFlag(weightDecay != 0, [&](auto decay) {
    withFlag(momentum != 0, [&](auto useMomentum) {
      withFlag(firstStep, [&](auto first) {
        withFlag(nesterov, [&](auto useNesterov) {
          parallelForEach(n, [=](int64_t i) {
            float p = param.data[i];
            float g = grad.data[i];
            if constexpr (decay)
              g = g + wd * p;
            if constexpr (useMomentum) {
              float buf =
                  first ? g : momentumBuffer.data[i] * mu + keep * g;
              newMomentumBuffer.data[i] = buf;
              g = useNesterov ? g + mu * buf : buf;
            }
            newParam.data[i] = p + rate * g;
          });
        });
      });
    });
  });
}

void adamUpdate(ConstTensor param, ConstTensor grad, ConstTensor expAvg,
                ConstTensor expAvgSq, int64_t step, Tensor newParam,
                Tensor newExpAvg, Tensor newExpAvgSq, double lr, double beta1,
                double beta2, double eps, double weightDecay, bool decoupled) {
  checkAdamUpdate(param, grad, expAvg, expAvgSq, step, newParam, newExpAvg,
                  newExpAvgSq, lr, beta1, beta2, eps, weightDecay);
  const double t = static_cast<double>(step);
  const float wd = static_cast<float>(weightDecay);
  const float decay = static_cast<float>(1 - lr * weightDecay);
  const float w1 = static_cast<float>(1 - beta1);
  const float b2 = static_cast<float>(beta2), w2 = static_cast<float>(1 - beta2);
  const float stepSize = static_cast<float>(-lr / (1 - std::pow(beta1, t)));
  const float correction2 =
      static_cast<float>(std::sqrt(1 - std::pow(beta2, t)));
  const float epsF = static_cast<float>(eps);
  const int64_t n = param.numel();
  withFlag(decoupled, [&](auto decoupledDecay) {
    withFlag(!decoupled && weightDecay != 0, [&](auto l2) {
      parallelForEach(n, [=](int64_t i) {
        float p = param.data[i];
        float g = grad.data[i];
        if constexpr (decoupledDecay)
          p = p * decay;
        if constexpr (l2)
          g = g + wd * p;
        float m = expAvg.data[i];
        m = m + w1 * (g - m);
        float v = expAvgSq.data[i] * b2 + w2 * (g * g);
        float denom = std::sqrt(v) / correction2 + epsF;
        newParam.data[i] = p + stepSize * (m / denom);
        newExpAvg.data[i] = m;
        newExpAvgSq.data[i] = v;
      });
    });
  });
}

//===----------------------------------------------------------------------===//
// Updates that an fp16 step skips on inf/NaN gradients (tg-loss-scale)
//===----------------------------------------------------------------------===//

namespace {

std::atomic<bool> skippedUpdate{false};

bool allFinite(ConstTensor grad) {
  const int64_t n = grad.numel();
  bool finite = true;
  // Branch-free, so that it vectorizes.
  for (int64_t i = 0; i < n; ++i)
    finite &= std::isfinite(grad.data[i]);
  return finite;
}

/// The update skipped: the results keep the operands' values (copied
/// where they are not the same buffers).
void keepValues(ConstTensor from, Tensor to) {
  if (from.present() && to.present() && from.data != to.data)
    std::memmove(to.data, from.data, to.bytes());
}

} // namespace

bool detail::takeSkippedUpdate() { return skippedUpdate.exchange(false); }

void sgdUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                            ConstTensor momentumBuffer, int64_t step,
                            Tensor newParam, Tensor newMomentumBuffer,
                            double lr, double momentum, double dampening,
                            double weightDecay, bool nesterov) {
  checkSgdUpdate(param, grad, momentumBuffer, step, newParam,
                 newMomentumBuffer, lr, momentum, dampening, weightDecay,
                 nesterov);
  if (allFinite(grad))
    return sgdUpdate(param, grad, momentumBuffer, step, newParam,
                     newMomentumBuffer, lr, momentum, dampening, weightDecay,
                     nesterov);
  skippedUpdate = true;
  keepValues(param, newParam);
  if (momentum != 0)
    keepValues(momentumBuffer, newMomentumBuffer);
}

void adamUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                             ConstTensor expAvg, ConstTensor expAvgSq,
                             int64_t step, Tensor newParam, Tensor newExpAvg,
                             Tensor newExpAvgSq, double lr, double beta1,
                             double beta2, double eps, double weightDecay,
                             bool decoupled) {
  checkAdamUpdate(param, grad, expAvg, expAvgSq, step, newParam, newExpAvg,
                  newExpAvgSq, lr, beta1, beta2, eps, weightDecay);
  if (allFinite(grad))
    return adamUpdate(param, grad, expAvg, expAvgSq, step, newParam,
                      newExpAvg, newExpAvgSq, lr, beta1, beta2, eps,
                      weightDecay, decoupled);
  skippedUpdate = true;
  keepValues(param, newParam);
  keepValues(expAvg, newExpAvg);
  keepValues(expAvgSq, newExpAvgSq);
}

} // namespace memopt::rt
