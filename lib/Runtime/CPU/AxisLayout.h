//===- AxisLayout.h - Row layouts of axis-wise kernels ----------*- C++ -*-===//
//
// The kernels that work along one axis (softmax, log_softmax, instance
// normalization, the segmentation losses over the channel axis) view a
// row-major tensor as outer x size x inner: element (o, k, i) is at
// (o * size + k) * inner + i. These helpers compute that view and check the
// operands, aborting with the kernel's name; the CPU kernels and the host
// side of the CUDA kernels share them. Private to the runtime libraries.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_AXISLAYOUT_H
#define MEMOPT_LIB_RUNTIME_CPU_AXISLAYOUT_H

#include "Common.h"
#include "memopt/Runtime/HostDevice.h"

#include <cmath>
#include <string>

namespace memopt::rt::detail {

struct AxisLayout {
  int64_t outer = 1, size = 1, inner = 1;
  MEMOPT_HOST_DEVICE int64_t at(int64_t o, int64_t k, int64_t i) const {
    return (o * size + k) * inner + i;
  }
  /// The number of (outer, inner) positions: rows along the axis.
  MEMOPT_HOST_DEVICE int64_t rows() const { return outer * inner; }
};

inline AxisLayout axisLayout(const char *kernel, const Dims &shape,
                             int64_t axis) {
  require(axis >= 0 && axis < shape.size, kernel,
          "'axis' must be in [0, rank)");
  AxisLayout l;
  for (int d = 0; d < shape.size; ++d) {
    if (d < axis)
      l.outer *= shape[d];
    else if (d == axis)
      l.size = shape[d];
    else
      l.inner *= shape[d];
  }
  return l;
}

/// The layout of segmentation-loss logits (N x C x ..., channels as the
/// axis) after checking `target`: a class map (the logits' shape without
/// axis 1) or, when `maskAllowed` and C = 1, a mask of the logits' shape.
inline AxisLayout lossLayout(const char *kernel, const Dims &logits,
                             const Dims &target, bool maskAllowed) {
  require(logits.size >= 2, kernel, "'logits' must have rank >= 2");
  AxisLayout l = axisLayout(kernel, logits, 1);
  if (maskAllowed && l.size == 1) {
    requireShape(kernel, "target", target, logits);
    return l;
  }
  Dims map;
  map.size = logits.size - 1;
  map.values[0] = logits[0];
  for (int d = 2; d < logits.size; ++d)
    map.values[d - 1] = logits[d];
  requireShape(kernel, "target (a class map)", target, map);
  return l;
}

/// The N x C slices (of `inner` elements) of an instance normalization,
/// after checking the input rank and the scale and statistics shapes.
inline AxisLayout instanceNormLayout(const char *kernel, const Dims &input,
                                     const Dims &scale, const Dims &stats) {
  require(input.size >= 3, kernel,
          "'input' must have rank >= 3 (N x C x D1 x ...)");
  AxisLayout l = axisLayout(kernel, input, 1);
  requireShape(kernel, "scale", scale, Dims{l.size});
  requireShape(kernel, "statistics", stats, Dims{l.outer, l.size});
  require(l.inner > 0, kernel, "empty slices");
  return l;
}

/// Checks the operands of tg.instance_norm (activations of one type, f32
/// per-channel tensors); returns its slices.
inline AxisLayout checkInstanceNorm(ConstTensor input, ConstTensor scale,
                                    ConstTensor bias, Tensor output,
                                    Tensor savedMean, Tensor savedInvStd) {
  const char *kernel = "instance_norm";
  AxisLayout l =
      instanceNormLayout(kernel, input.shape, scale.shape, savedMean.shape);
  requireShape(kernel, "bias", bias.shape, scale.shape);
  requireShape(kernel, "saved_inv_std", savedInvStd.shape, savedMean.shape);
  requireShape(kernel, "output", output.shape, input.shape);
  require(output.type == input.type, kernel,
          "'output' must have the input's element type");
  requireF32Channels(kernel,
                     {scale.type, bias.type, savedMean.type, savedInvStd.type});
  return l;
}

/// Checks the operands of tg.instance_norm_backward; returns its slices.
inline AxisLayout
checkInstanceNormBackward(ConstTensor gradOutput, ConstTensor input,
                          ConstTensor scale, ConstTensor savedMean,
                          ConstTensor savedInvStd, Tensor gradInput,
                          Tensor gradScale, Tensor gradBias) {
  const char *kernel = "instance_norm_backward";
  AxisLayout l =
      instanceNormLayout(kernel, input.shape, scale.shape, savedMean.shape);
  requireShape(kernel, "saved_inv_std", savedInvStd.shape, savedMean.shape);
  requireShape(kernel, "grad_output", gradOutput.shape, input.shape);
  requireShape(kernel, "grad_input", gradInput.shape, input.shape);
  requireShape(kernel, "grad_scale", gradScale.shape, scale.shape);
  requireShape(kernel, "grad_bias", gradBias.shape, scale.shape);
  require(gradOutput.type == input.type && gradInput.type == input.type,
          kernel, "'grad_output' and 'grad_input' must have the input's "
                  "element type");
  requireF32Channels(kernel, {scale.type, savedMean.type, savedInvStd.type,
                              gradScale.type, gradBias.type});
  return l;
}

/// The class index that a label-map value holds; aborts, naming the
/// position, unless it is an integer in [0, classes).
inline int64_t classIndex(const char *kernel, float value, int64_t classes,
                          int64_t position) {
  if (!(value >= 0 && value < static_cast<float>(classes)) ||
      value != std::floor(value))
    fatal(kernel, "target value " + std::to_string(value) + " at position " +
                      std::to_string(position) + " is not a class index in [0, " +
                      std::to_string(classes) + ")");
  return static_cast<int64_t>(value);
}

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_AXISLAYOUT_H
