//===- Optimizer.cpp - SGD and Adam/AdamW parameter updates ---------------===//
//
// torch.optim's single-tensor updates, elementwise in float with the
// hyperparameters rounded to float as PyTorch's scalar arguments are; the
// bias corrections are computed in double as Python does. Results may alias
// their operands (an in-place update).
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

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
  for (int64_t i = 0; i < n; ++i) {
    float p = param.data[i];
    float g = grad.data[i];
    if (weightDecay != 0)
      g = g + wd * p;
    if (momentum != 0) {
      float buf = firstStep ? g : momentumBuffer.data[i] * mu + keep * g;
      newMomentumBuffer.data[i] = buf;
      g = nesterov ? g + mu * buf : buf;
    }
    newParam.data[i] = p + rate * g;
  }
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
  for (int64_t i = 0; i < n; ++i) {
    float p = param.data[i];
    float g = grad.data[i];
    if (decoupled)
      p = p * decay;
    else if (weightDecay != 0)
      g = g + wd * p;
    float m = expAvg.data[i];
    m = m + w1 * (g - m);
    float v = expAvgSq.data[i] * b2 + w2 * (g * g);
    float denom = std::sqrt(v) / correction2 + epsF;
    newParam.data[i] = p + stepSize * (m / denom);
    newExpAvg.data[i] = m;
    newExpAvgSq.data[i] = v;
  }
}

} // namespace memopt::rt
