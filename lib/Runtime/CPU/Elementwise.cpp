//===- Elementwise.cpp - Elementwise ops and activation gradients ---------===//
//
// Unary ops, broadcasting binary ops and comparisons, dropout, uniform random
// numbers and the activation gradients.
// Results may alias an operand of the same shape: every element is read
// before it is written. Elements are independent, so the loops split over
// threads freely.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "memopt/Runtime/Random.h"

#include "ActivationFormulas.h"
#include "Common.h"
#include "LowPrecision.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

template <typename F>
void unary(const char *kernel, ConstTensor input, Tensor output, F f) {
  requireShape(kernel, "output", output.shape, input.shape);
  requireType(kernel, "output", output.type, input.type);
  const int64_t n = input.numel();
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *in = input.elements<T>();
    T *out = output.elements<T>();
    parallelForEach(n, [&](int64_t i) { out[i] = f(in[i]); });
  });
}

/// `f(a[i], b[i])` for operands of one shape.
template <typename F>
void zip(const char *kernel, const char *aName, ConstTensor a, ConstTensor b,
         Tensor output, F f) {
  requireShape(kernel, aName, a.shape, b.shape);
  requireShape(kernel, "grad_input", output.shape, b.shape);
  requireType(kernel, aName, a.type, b.type);
  requireType(kernel, "grad_input", output.type, b.type);
  const int64_t n = b.numel();
  dispatchFloatType(kernel, b.type, [&](auto tag) {
    using T = decltype(tag);
    const T *x = a.elements<T>(), *y = b.elements<T>();
    T *out = output.elements<T>();
    parallelForEach(n, [&](int64_t i) { out[i] = f(x[i], y[i]); });
  });
}

template <typename F>
void binary(const char *kernel, ConstTensor lhs, ConstTensor rhs, Tensor output,
            F f) {
  requireType(kernel, "lhs", lhs.type, output.type);
  requireType(kernel, "rhs", rhs.type, output.type);
  dispatchFloatType(kernel, output.type, [&](auto tag) {
    using T = decltype(tag);
    const T *a = lhs.elements<T>(), *b = rhs.elements<T>();
    T *out = output.elements<T>();
    if (lhs.shape == output.shape && rhs.shape == output.shape) {
      const int64_t n = output.numel();
      parallelForEach(n, [&](int64_t i) { out[i] = f(a[i], b[i]); });
      return;
    }
    // With broadcasting the result must not alias an operand.
    Dims ls = broadcastStrides(kernel, lhs.shape, output.shape);
    Dims rs = broadcastStrides(kernel, rhs.shape, output.shape);
    for (StridedWalk w(output.shape, ls, rs); !w.done(); w.next())
      out[w.index()] = f(a[w.offset(0)], b[w.offset(1)]);
  });
}

} // namespace

void relu(ConstTensor input, Tensor output) {
  // NaN propagates, as in torch.relu.
  unary("relu", input, output, [](float x) { return x < 0 ? 0.0f : x; });
}

void sigmoid(ConstTensor input, Tensor output) {
  unary("sigmoid", input, output,
        [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}

void tanh(ConstTensor input, Tensor output) {
  unary("tanh", input, output, [](float x) { return std::tanh(x); });
}

void neg(ConstTensor input, Tensor output) {
  unary("neg", input, output, [](float x) { return -x; });
}

void exp(ConstTensor input, Tensor output) {
  unary("exp", input, output, [](float x) { return std::exp(x); });
}

void log(ConstTensor input, Tensor output) {
  unary("log", input, output, [](float x) { return std::log(x); });
}

void sqrt(ConstTensor input, Tensor output) {
  unary("sqrt", input, output, [](float x) { return std::sqrt(x); });
}

void abs(ConstTensor input, Tensor output) {
  unary("abs", input, output, [](float x) { return std::fabs(x); });
}

void sign(ConstTensor input, Tensor output) {
  // NaN gives 0, as in torch.sign.
  unary("sign", input, output,
        [](float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f); });
}

void leakyRelu(ConstTensor input, Tensor output, double alpha) {
  const float a = static_cast<float>(alpha);
  unary("leaky_relu", input, output,
        [a](float x) { return x >= 0 ? x : a * x; });
}

void clip(ConstTensor input, Tensor output, double min, double max) {
  const float lo = static_cast<float>(min), hi = static_cast<float>(max);
  require(lo <= hi, "clip", "min must not exceed max");
  // NaN propagates, as in torch.clamp.
  unary("clip", input, output,
        [lo, hi](float x) { return x < lo ? lo : (x > hi ? hi : x); });
}

void add(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("add", lhs, rhs, output, [](float a, float b) { return a + b; });
}

void sub(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("sub", lhs, rhs, output, [](float a, float b) { return a - b; });
}

void mul(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("mul", lhs, rhs, output, [](float a, float b) { return a * b; });
}

void div(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  binary("div", lhs, rhs, output, [](float a, float b) { return a / b; });
}

void dropout(ConstTensor input, Tensor output, Tensor mask, double ratio,
             uint64_t seed) {
  const char *kernel = "dropout";
  require(ratio >= 0 && ratio < 1, kernel, "ratio must be in [0, 1)");
  requireShape(kernel, "output", output.shape, input.shape);
  requireShape(kernel, "mask", mask.shape, input.shape);
  const float keep = static_cast<float>(1.0 / (1.0 - ratio));
  // An element is dropped when its 53-bit uniform number is below `ratio`.
  const uint64_t seedHash = splitMix64(seed);
  requireType(kernel, "output", output.type, input.type);
  requireType(kernel, "mask", mask.type, input.type);
  const int64_t n = input.numel();
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *in = input.elements<T>();
    T *out = output.elements<T>(), *maskOut = mask.elements<T>();
    parallelForEach(n, [&](int64_t i) {
      uint64_t bits = splitMix64(seedHash ^ static_cast<uint64_t>(i));
      double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
      float m = u < ratio ? 0.0f : keep;
      maskOut[i] = m;
      out[i] = in[i] * m;
    });
  });
}

void floor(ConstTensor input, Tensor output) {
  unary("floor", input, output, [](float x) { return std::floor(x); });
}

void compare(ConstTensor lhs, ConstTensor rhs, Tensor output,
             Comparison predicate) {
  binary("compare", lhs, rhs, output, formulas::Compare{predicate});
}

void select(ConstTensor condition, ConstTensor onTrue, ConstTensor onFalse,
            Tensor output) {
  const char *kernel = "select";
  requireType(kernel, "condition", condition.type, output.type);
  requireType(kernel, "on_true", onTrue.type, output.type);
  requireType(kernel, "on_false", onFalse.type, output.type);
  dispatchFloatType(kernel, output.type, [&](auto tag) {
    using T = decltype(tag);
    const T *c = condition.elements<T>(), *a = onTrue.elements<T>(),
            *b = onFalse.elements<T>();
    T *out = output.elements<T>();
    // A copy of the chosen element: nothing is computed with the other.
    auto choose = [](T cond, T x, T y) {
      return static_cast<float>(cond) != 0.0f ? x : y;
    };
    if (condition.shape == output.shape && onTrue.shape == output.shape &&
        onFalse.shape == output.shape) {
      parallelForEach(output.numel(),
                      [&](int64_t i) { out[i] = choose(c[i], a[i], b[i]); });
      return;
    }
    // With broadcasting the result must not alias an operand.
    Dims cs = broadcastStrides(kernel, condition.shape, output.shape);
    Dims as = broadcastStrides(kernel, onTrue.shape, output.shape);
    Dims bs = broadcastStrides(kernel, onFalse.shape, output.shape);
    for (StridedWalk w(output.shape, cs, as, bs); !w.done(); w.next())
      out[w.index()] =
          choose(c[w.offset(0)], a[w.offset(1)], b[w.offset(2)]);
  });
}

void randomUniform(Tensor output, double low, double high, uint64_t seed) {
  const char *kernel = "random_uniform";
  require(low < high, kernel, "low must be below high");
  const uint64_t seedHash = splitMix64(seed);
  const float lo = static_cast<float>(low);
  const float span = static_cast<float>(high - low);
  dispatchFloatType(kernel, output.type, [&](auto tag) {
    using T = decltype(tag);
    T *out = output.elements<T>();
    parallelForEach(output.numel(), [&](int64_t i) {
      out[i] = uniformElement(seedHash, static_cast<uint64_t>(i), lo, span);
    });
  });
}

void reluBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput) {
  zip("relu_backward", "grad_output", gradOutput, output, gradInput,
      [](float dy, float y) { return y <= 0 ? 0.0f : dy; });
}

void sigmoidBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput) {
  zip("sigmoid_backward", "grad_output", gradOutput, output, gradInput,
      [](float dy, float y) { return dy * (1 - y) * y; });
}

void tanhBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput) {
  zip("tanh_backward", "grad_output", gradOutput, output, gradInput,
      [](float dy, float y) { return dy * (1 - y * y); });
}

void leakyReluBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, double alpha) {
  const float a = static_cast<float>(alpha);
  zip("leaky_relu_backward", "grad_output", gradOutput, input, gradInput,
      [a](float dy, float x) { return x > 0 ? dy : a * dy; });
}

void clipBackward(ConstTensor gradOutput, ConstTensor input, Tensor gradInput,
                  double min, double max) {
  const float lo = static_cast<float>(min), hi = static_cast<float>(max);
  require(lo <= hi, "clip_backward", "min must not exceed max");
  zip("clip_backward", "grad_output", gradOutput, input, gradInput,
      [lo, hi](float dy, float x) { return lo <= x && x <= hi ? dy : 0.0f; });
}

} // namespace memopt::rt
