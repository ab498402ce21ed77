//===- Softmax.cpp - Softmax and log-softmax along an axis ----------------===//
//
// Rows along the axis are independent and run in parallel; each row's sum
// is taken in double in index order, so results do not depend on the
// thread count. The maximum is subtracted before exponentiating, as
// PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "AxisLayout.h"

#include <cmath>

namespace memopt::rt {
using namespace detail;

namespace {

/// Calls `row(o, i)` for every row of `l`, in parallel.
template <typename Row> void forEachRow(const AxisLayout &l, Row row) {
  parallelFor(l.rows(), l.rows() * l.size, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      row(r / l.inner, r % l.inner);
  });
}

template <bool Log>
void softmaxImpl(const char *kernel, ConstTensor input, Tensor output,
                 int64_t axis) {
  requireShape(kernel, "output", output.shape, input.shape);
  require(input.data != output.data, kernel,
          "'output' must not alias 'input'");
  AxisLayout l = axisLayout(kernel, input.shape, axis);
  forEachRow(l, [&](int64_t o, int64_t i) {
    float max = -INFINITY;
    for (int64_t k = 0; k < l.size; ++k)
      max = std::fmax(max, input.data[l.at(o, k, i)]);
    double sum = 0;
    for (int64_t k = 0; k < l.size; ++k)
      sum += std::exp(input.data[l.at(o, k, i)] - max);
    if (Log) {
      float logSum = static_cast<float>(std::log(sum));
      for (int64_t k = 0; k < l.size; ++k)
        output.data[l.at(o, k, i)] = input.data[l.at(o, k, i)] - max - logSum;
    } else {
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t k = 0; k < l.size; ++k)
        output.data[l.at(o, k, i)] =
            std::exp(input.data[l.at(o, k, i)] - max) * inv;
    }
  });
}

template <bool Log>
void softmaxBackwardImpl(const char *kernel, ConstTensor gradOutput,
                         ConstTensor output, Tensor gradInput, int64_t axis) {
  requireShape(kernel, "grad_output", gradOutput.shape, output.shape);
  requireShape(kernel, "grad_input", gradInput.shape, output.shape);
  require(gradInput.data != gradOutput.data && gradInput.data != output.data,
          kernel, "'grad_input' must not alias an operand");
  AxisLayout l = axisLayout(kernel, output.shape, axis);
  forEachRow(l, [&](int64_t o, int64_t i) {
    double sum = 0;
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      sum += Log ? gradOutput.data[at]
                 : static_cast<double>(gradOutput.data[at]) * output.data[at];
    }
    float s = static_cast<float>(sum);
    for (int64_t k = 0; k < l.size; ++k) {
      int64_t at = l.at(o, k, i);
      gradInput.data[at] =
          Log ? gradOutput.data[at] - std::exp(output.data[at]) * s
              : output.data[at] * (gradOutput.data[at] - s);
    }
  });
}

} // namespace

void softmax(ConstTensor input, Tensor output, int64_t axis) {
  softmaxImpl<false>("softmax", input, output, axis);
}
void logSoftmax(ConstTensor input, Tensor output, int64_t axis) {
  softmaxImpl<true>("log_softmax", input, output, axis);
}
void softmaxBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput, int64_t axis) {
  softmaxBackwardImpl<false>("softmax_backward", gradOutput, output, gradInput,
                             axis);
}
void logSoftmaxBackward(ConstTensor gradOutput, ConstTensor output,
                        Tensor gradInput, int64_t axis) {
  softmaxBackwardImpl<true>("log_softmax_backward", gradOutput, output,
                            gradInput, axis);
}

} // namespace memopt::rt
