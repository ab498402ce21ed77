//===- Loss.cpp - Mean losses and their gradients --------------------------===//
//
// MSE, L1 and BCE with reduction = mean, as PyTorch computes them: the
// per-element terms in float, their sum sequentially in double.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <algorithm>
#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

template <typename F>
void meanLoss(const char *kernel, ConstTensor prediction, ConstTensor target,
              Tensor loss, F term) {
  requireShape(kernel, "target", target.shape, prediction.shape);
  requireRank(kernel, "loss", loss.shape, 0);
  const int64_t n = prediction.numel();
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += term(prediction.data[i], target.data[i]);
  loss.data[0] = static_cast<float>(sum / static_cast<double>(n));
}

/// `f(p, t, g)` for every element, g = grad_loss / N (as a float).
template <typename F>
void lossBackward(const char *kernel, ConstTensor gradLoss,
                  ConstTensor prediction, ConstTensor target,
                  Tensor gradPrediction, F f) {
  requireRank(kernel, "grad_loss", gradLoss.shape, 0);
  requireShape(kernel, "target", target.shape, prediction.shape);
  requireShape(kernel, "grad_prediction", gradPrediction.shape,
               prediction.shape);
  const int64_t n = prediction.numel();
  const float g = gradLoss.data[0];
  const float invN = static_cast<float>(1.0 / static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i)
    gradPrediction.data[i] = f(prediction.data[i], target.data[i], g, invN);
}

} // namespace

void mseLoss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("mse_loss", prediction, target, loss, [](float p, float t) {
    float d = p - t;
    return d * d;
  });
}

void l1Loss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("l1_loss", prediction, target, loss,
           [](float p, float t) { return std::fabs(p - t); });
}

void bceLoss(ConstTensor prediction, ConstTensor target, Tensor loss) {
  meanLoss("bce_loss", prediction, target, loss, [](float p, float t) {
    float logP = std::max(std::log(p), -100.0f);
    float log1mP = std::max(std::log(1 - p), -100.0f);
    return -(t * logP + (1 - t) * log1mP);
  });
}

void mseLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction) {
  lossBackward("mse_loss_backward", gradLoss, prediction, target,
               gradPrediction, [](float p, float t, float g, float invN) {
                 return 2 * invN * (p - t) * g;
               });
}

void l1LossBackward(ConstTensor gradLoss, ConstTensor prediction,
                    ConstTensor target, Tensor gradPrediction) {
  lossBackward("l1_loss_backward", gradLoss, prediction, target,
               gradPrediction, [](float p, float t, float g, float invN) {
                 float d = p - t;
                 float s = d > 0 ? 1.0f : (d < 0 ? -1.0f : 0.0f);
                 return s * g * invN;
               });
}

void bceLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction) {
  lossBackward("bce_loss_backward", gradLoss, prediction, target,
               gradPrediction, [](float p, float t, float g, float invN) {
                 return g * (p - t) / std::max((1 - p) * p, 1e-12f) * invN;
               });
}

} // namespace memopt::rt
