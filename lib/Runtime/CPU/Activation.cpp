//===- Activation.cpp - Activations of segmentation networks --------------===//
//
// hard_sigmoid, hard_swish, elu, softplus, erf and prelu with their
// gradients, per element with the formulas of ActivationFormulas.h (shared
// with the CUDA backend). Like Elementwise.cpp, results may alias an
// operand of the same shape (prelu's slope excepted).
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "ActivationFormulas.h"
#include "Common.h"
#include "LowPrecision.h"

namespace memopt::rt {
using namespace detail;

namespace {

template <typename F>
void map(const char *kernel, ConstTensor input, Tensor output, F f) {
  requireShape(kernel, "output", output.shape, input.shape);
  requireType(kernel, "output", output.type, input.type);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *in = input.elements<T>();
    T *out = output.elements<T>();
    parallelForEach(input.numel(),
                    [&](int64_t i) { out[i] = f(float(in[i])); });
  });
}

template <typename F>
void mapGrad(const char *kernel, ConstTensor gradOutput, ConstTensor input,
             Tensor gradInput, F f) {
  requireShape(kernel, "grad_output", gradOutput.shape, input.shape);
  requireShape(kernel, "grad_input", gradInput.shape, input.shape);
  requireType(kernel, "grad_output", gradOutput.type, input.type);
  requireType(kernel, "grad_input", gradInput.type, input.type);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *dy = gradOutput.elements<T>(), *x = input.elements<T>();
    T *dx = gradInput.elements<T>();
    parallelForEach(input.numel(),
                    [&](int64_t i) { dx[i] = f(float(dy[i]), float(x[i])); });
  });
}

} // namespace

#include "ActivationEntryPoints.inc"

namespace {

/// prelu (`gradOutput` absent) and prelu_backward: every tensor of the
/// input's type (tg-amp casts the slope with the input), the slope read at
/// its broadcast offset.
void preluWalk(const char *kernel, ConstTensor gradOutput, ConstTensor input,
               ConstTensor slope, Tensor output) {
  Dims ss = checkPRelu(kernel, gradOutput, input, slope, output);
  Dims xs = broadcastStrides(kernel, input.shape, input.shape);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *x = input.elements<T>(), *a = slope.elements<T>(),
            *dy = gradOutput.elements<T>();
    T *out = output.elements<T>();
    for (StridedWalk w(input.shape, xs, ss); !w.done(); w.next()) {
      int64_t i = w.index();
      float slopeValue = a[w.offset(1)];
      out[i] = dy ? formulas::PReluGrad{}(dy[i], x[i], slopeValue)
                  : formulas::PRelu{}(x[i], slopeValue);
    }
  });
}

} // namespace

void prelu(ConstTensor input, ConstTensor slope, Tensor output) {
  preluWalk("prelu", ConstTensor(), input, slope, output);
}

void preluBackward(ConstTensor gradOutput, ConstTensor input, ConstTensor slope,
                   Tensor gradInput) {
  preluWalk("prelu_backward", gradOutput, input, slope, gradInput);
}

} // namespace memopt::rt
