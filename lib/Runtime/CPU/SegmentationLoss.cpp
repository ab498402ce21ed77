//===- SegmentationLoss.cpp - Cross-entropy and Dice of logits ------------===//
//
// The losses of --loss=ce and --loss=dice on logits N x C x ... against a
// class map (or, for Dice with one channel, a float mask). Softmax over
// the channels is recomputed per position with its maximum subtracted;
// the sums are taken in double in index order, sequentially, so the loss
// is the same for any thread count.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "AxisLayout.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

/// The softmax over the channels at position (o, i) into `p` (C floats)
/// and the log of its denominator plus the maximum (the logsumexp).
double channelSoftmax(const AxisLayout &l, const float *z, int64_t o,
                      int64_t i, float *p) {
  float max = -INFINITY;
  for (int64_t k = 0; k < l.size; ++k)
    max = std::fmax(max, z[l.at(o, k, i)]);
  double sum = 0;
  for (int64_t k = 0; k < l.size; ++k)
    sum += std::exp(z[l.at(o, k, i)] - max);
  if (p) {
    float inv = static_cast<float>(1.0 / sum);
    for (int64_t k = 0; k < l.size; ++k)
      p[k] = std::exp(z[l.at(o, k, i)] - max) * inv;
  }
  return max + std::log(sum);
}

/// Calls `f(o, i, t)` for every position (o, i) of the class map `target`
/// in index order, t being the position's checked class index.
template <typename F>
void forEachLabel(const char *kernel, const AxisLayout &l, ConstTensor target,
                  F f) {
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      int64_t position = o * l.inner + i;
      f(o, i, classIndex(kernel, target.data[position], l.size, position));
    }
}

float sigmoidOf(float z) { return 1.0f / (1.0f + std::exp(-z)); }

/// Channels are at most this many for the per-position softmax buffer of
/// the Dice kernels (a label map of more classes is not a segmentation).
constexpr int64_t kMaxDiceClasses = 1024;

/// The sums of the Dice loss: I = sum(p * t) and S = sum(p) + sum(t).
struct DiceSums {
  double intersection = 0, total = 0;
};

DiceSums diceSums(const char *kernel, const AxisLayout &l, ConstTensor logits,
                  ConstTensor target) {
  DiceSums sums;
  if (l.size == 1) {
    for (int64_t e = 0; e < logits.numel(); ++e) {
      double p = sigmoidOf(logits.data[e]), t = target.data[e];
      sums.intersection += p * t;
      sums.total += p + t;
    }
    return sums;
  }
  float p[kMaxDiceClasses];
  forEachLabel(kernel, l, target, [&](int64_t o, int64_t i, int64_t t) {
    channelSoftmax(l, logits.data, o, i, p);
    for (int64_t k = 0; k < l.size; ++k)
      sums.total += p[k];
    sums.intersection += p[t];
    sums.total += 1.0;
  });
  return sums;
}

AxisLayout diceLayout(const char *kernel, ConstTensor logits,
                      ConstTensor target, double epsilon) {
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape,
                            /*maskAllowed=*/true);
  require(l.size <= kMaxDiceClasses, kernel, "more than 1024 channels");
  require(epsilon >= 0, kernel, "'epsilon' must be non-negative");
  return l;
}

} // namespace

void crossEntropyLoss(ConstTensor logits, ConstTensor target, Tensor loss) {
  const char *kernel = "cross_entropy_loss";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape,
                            /*maskAllowed=*/false);
  requireRank(kernel, "loss", loss.shape, 0);
  double sum = 0;
  forEachLabel(kernel, l, target, [&](int64_t o, int64_t i, int64_t t) {
    double lse = channelSoftmax(l, logits.data, o, i, nullptr);
    sum += lse - logits.data[l.at(o, t, i)];
  });
  loss.data[0] = static_cast<float>(sum / static_cast<double>(l.rows()));
}

void crossEntropyLossBackward(ConstTensor gradLoss, ConstTensor logits,
                              ConstTensor target, Tensor gradLogits) {
  const char *kernel = "cross_entropy_loss_backward";
  AxisLayout l = lossLayout(kernel, logits.shape, target.shape,
                            /*maskAllowed=*/false);
  requireRank(kernel, "grad_loss", gradLoss.shape, 0);
  requireShape(kernel, "grad_logits", gradLogits.shape, logits.shape);
  require(gradLogits.data != logits.data, kernel,
          "'grad_logits' must not alias 'logits'");
  const float g =
      static_cast<float>(gradLoss.data[0] / static_cast<double>(l.rows()));
  forEachLabel(kernel, l, target, [&](int64_t o, int64_t i, int64_t t) {
    double lse = channelSoftmax(l, logits.data, o, i, nullptr);
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      float p = static_cast<float>(std::exp(logits.data[at] - lse));
      gradLogits.data[at] = (p - (k == t ? 1.0f : 0.0f)) * g;
    }
  });
}

void diceLoss(ConstTensor logits, ConstTensor target, Tensor loss,
              double epsilon) {
  const char *kernel = "dice_loss";
  AxisLayout l = diceLayout(kernel, logits, target, epsilon);
  requireRank(kernel, "loss", loss.shape, 0);
  DiceSums s = diceSums(kernel, l, logits, target);
  loss.data[0] = static_cast<float>(
      1.0 - (2.0 * s.intersection + epsilon) / (s.total + epsilon));
}

void diceLossBackward(ConstTensor gradLoss, ConstTensor logits,
                      ConstTensor target, Tensor gradLogits, double epsilon) {
  const char *kernel = "dice_loss_backward";
  AxisLayout l = diceLayout(kernel, logits, target, epsilon);
  requireRank(kernel, "grad_loss", gradLoss.shape, 0);
  requireShape(kernel, "grad_logits", gradLogits.shape, logits.shape);
  require(gradLogits.data != logits.data, kernel,
          "'grad_logits' must not alias 'logits'");
  DiceSums s = diceSums(kernel, l, logits, target);
  // d loss / d p_e = -(2 t_e (S + eps) - (2 I + eps)) / (S + eps)^2
  //                = b - a t_e.
  const double denom = s.total + epsilon;
  const double gl = gradLoss.data[0];
  const double a = gl * 2.0 / denom;
  const double b = gl * (2.0 * s.intersection + epsilon) / (denom * denom);
  if (l.size == 1) {
    for (int64_t e = 0; e < logits.numel(); ++e) {
      double p = sigmoidOf(logits.data[e]);
      double g = b - a * target.data[e];
      gradLogits.data[e] = static_cast<float>(g * p * (1.0 - p));
    }
    return;
  }
  float p[kMaxDiceClasses];
  forEachLabel(kernel, l, target, [&](int64_t o, int64_t i, int64_t t) {
    channelSoftmax(l, logits.data, o, i, p);
    // Through the softmax: dz_k = p_k (g_k - sum_j p_j g_j).
    double dot = 0;
    for (int64_t k = 0; k < l.size; ++k)
      dot += p[k] * (b - (k == t ? a : 0.0));
    for (int64_t k = 0; k < l.size; ++k)
      gradLogits.data[l.at(o, k, i)] =
          static_cast<float>(p[k] * ((b - (k == t ? a : 0.0)) - dot));
  });
}

} // namespace memopt::rt
