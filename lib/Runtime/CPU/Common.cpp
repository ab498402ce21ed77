//===- Common.cpp - Helpers shared by the CPU kernels ---------------------===//

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace memopt::rt::detail {

void fatal(const char *kernel, const std::string &message) {
  std::fprintf(stderr, "memopt runtime: %s: %s\n", kernel, message.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string shapeString(const Dims &shape) {
  if (shape.size == 0)
    return "scalar";
  std::string text;
  for (int i = 0; i < shape.size; ++i) {
    if (i)
      text += "x";
    text += std::to_string(shape[i]);
  }
  return text;
}

void requireShape(const char *kernel, const char *name, const Dims &actual,
                  const Dims &expected) {
  if (actual != expected)
    fatal(kernel, std::string("'") + name + "' has shape " +
                      shapeString(actual) + ", expected " +
                      shapeString(expected));
}

void requireRank(const char *kernel, const char *name, const Dims &shape,
                 int rank) {
  if (shape.size != rank)
    fatal(kernel, std::string("'") + name + "' has shape " +
                      shapeString(shape) + ", expected rank " +
                      std::to_string(rank));
}

Dims broadcastStrides(const char *kernel, const Dims &operand,
                      const Dims &target) {
  if (operand.size > target.size)
    fatal(kernel, "operand of shape " + shapeString(operand) +
                      " does not broadcast to " + shapeString(target));
  Dims own = contiguousStrides(operand);
  Dims strides;
  strides.size = target.size;
  int shift = target.size - operand.size;
  for (int i = 0; i < target.size; ++i) {
    if (i < shift) {
      strides[i] = 0;
      continue;
    }
    int64_t dim = operand[i - shift];
    if (dim != target[i] && dim != 1)
      fatal(kernel, "operand of shape " + shapeString(operand) +
                        " does not broadcast to " + shapeString(target));
    strides[i] = dim == 1 ? 0 : own[i - shift];
  }
  return strides;
}

namespace {

/// Output extent of a pooling along one axis, as tg's shape inference
/// computes it.
int64_t windowExtent(const char *kernel, int64_t in, int64_t size,
                     int64_t stride, int64_t padLo, int64_t padHi,
                     int64_t dilation, bool ceilMode) {
  int64_t span = dilation * (size - 1) + 1;
  int64_t padded = in + padLo + padHi;
  require(padded >= span, kernel, "the window does not fit in the input");
  int64_t out = (padded - span) / stride + 1;
  // In ceil mode a last, partial window counts when it starts inside the
  // input or the top/left padding.
  if (ceilMode && (padded - span) % stride != 0 && out * stride < in + padLo)
    ++out;
  return out;
}

} // namespace

void requireSpatialRank(const char *kernel, const Dims &shape) {
  require(shape.size >= 3 && shape.size <= 5, kernel,
          "the input must have rank 3, 4 or 5 (1 to 3 spatial axes)");
}

Dims poolShape(const char *kernel, const Dims &input, const Dims &size,
               const Dims &strides, const Dims &pads, const Dims &dilations,
               bool ceilMode) {
  requireSpatialRank(kernel, input);
  int axes = input.size - 2;
  require(size.size == axes && strides.size == axes &&
              dilations.size == axes && pads.size == 2 * axes,
          kernel, "kernel, strides and dilations need one value per spatial "
                  "axis, pads two");
  Dims shape = {input[0], input[1]};
  for (int i = 0; i < axes; ++i) {
    require(size[i] >= 1 && strides[i] >= 1 && dilations[i] >= 1, kernel,
            "kernel, strides and dilations must be >= 1");
    require(pads[i] >= 0 && pads[i + axes] >= 0 && pads[i] <= size[i] / 2 &&
                pads[i + axes] <= size[i] / 2,
            kernel, "pads must be in [0, kernel / 2]");
    shape[shape.size++] =
        windowExtent(kernel, input[2 + i], size[i], strides[i], pads[i],
                     pads[axes + i], dilations[i], ceilMode);
  }
  return shape;
}

Dims globalPoolShape(const char *kernel, const Dims &input) {
  requireSpatialRank(kernel, input);
  Dims shape = input;
  for (int i = 2; i < shape.size; ++i)
    shape[i] = 1;
  return shape;
}

void checkResizeShapes(const char *kernel, const Dims &input,
                       const Dims &output, const Scales &scales) {
  requireSpatialRank(kernel, input);
  requireRank(kernel, "output", output, input.size);
  require(scales.size == input.size - 2, kernel,
          "scales need one value per spatial axis");
  require(input[0] == output[0] && input[1] == output[1], kernel,
          "input and output differ in N or C");
  for (int i = 0; i < scales.size; ++i) {
    require(scales[i] > 0, kernel, "scales must be positive");
    require(std::fabs(input[2 + i] * scales[i] -
                      static_cast<double>(output[2 + i])) < 1.0,
            kernel, "sizes disagree with scales");
  }
}

Dims sliceShape(const char *kernel, const Dims &input, const Dims &starts,
                const Dims &ends, const Dims &steps) {
  require(starts.size == input.size && ends.size == input.size &&
              steps.size == input.size,
          kernel, "starts, ends and steps need one value per axis");
  Dims shape = input;
  for (int i = 0; i < input.size; ++i) {
    require(0 <= starts[i] && starts[i] < ends[i] && ends[i] <= input[i] &&
                steps[i] >= 1,
            kernel, "slice indices must satisfy 0 <= start < end <= dim and "
                    "step >= 1");
    shape[i] = (ends[i] - starts[i] + steps[i] - 1) / steps[i];
  }
  return shape;
}

int64_t sliceStrides(const Dims &input, const Dims &starts, const Dims &steps,
                     Dims &strides) {
  strides = contiguousStrides(input);
  int64_t base = 0;
  for (int i = 0; i < input.size; ++i) {
    base += starts[i] * strides[i];
    strides[i] *= steps[i];
  }
  return base;
}

ReduceAxes reduceAxes(const char *kernel, const Dims &input,
                      const Dims &output, const Dims &axes, bool keepdims) {
  require(input.size <= kMaxRank, kernel, "rank above kMaxRank");
  bool reduced[kMaxRank] = {};
  for (int i = 0; i < axes.size; ++i) {
    require(axes[i] >= 0 && axes[i] < input.size &&
                (i == 0 || axes[i] > axes[i - 1]),
            kernel, "axes must be sorted, distinct and in range");
    reduced[axes[i]] = true;
  }
  if (axes.size == 0)
    for (int i = 0; i < input.size; ++i)
      reduced[i] = true;

  Dims strides = contiguousStrides(input);
  Dims expected;
  ReduceAxes split;
  for (int i = 0; i < input.size; ++i) {
    Dims &shape = reduced[i] ? split.reducedShape : split.keptShape;
    Dims &str = reduced[i] ? split.reducedStrides : split.keptStrides;
    shape.values[shape.size++] = input[i];
    str.values[str.size++] = strides[i];
    if (!reduced[i] || keepdims)
      expected.values[expected.size++] = reduced[i] ? 1 : input[i];
  }
  requireShape(kernel, "output", output, expected);
  return split;
}

void concatLayout(const char *kernel, const ConstTensor *inputs, int count,
                  const Dims &output, int64_t axis, int64_t &outer,
                  int64_t &inner) {
  require(count >= 1, kernel, "needs at least one operand");
  const Dims &out = output;
  require(axis >= 0 && axis < out.size, kernel, "axis out of range");
  int64_t total = 0;
  for (int k = 0; k < count; ++k) {
    const Dims &shape = inputs[k].shape;
    require(shape.size == out.size, kernel, "operands differ in rank");
    for (int i = 0; i < out.size; ++i)
      require(i == axis || shape[i] == out[i], kernel,
              "operands differ from the output off the axis");
    total += shape[axis];
  }
  require(total == out[axis], kernel,
          "the operands' extents along the axis do not add up to the output's");
  outer = 1;
  inner = 1;
  for (int i = 0; i < axis; ++i)
    outer *= out[i];
  for (int i = axis + 1; i < out.size; ++i)
    inner *= out[i];
}

Dims padShape(const char *kernel, const Dims &input, const Dims &pads,
              PadMode mode) {
  const int rank = input.size;
  require(rank <= kMaxRank, kernel, "rank above kMaxRank");
  require(pads.size == 2 * rank, kernel, "pads needs 2 * rank values");
  Dims expected = input;
  for (int i = 0; i < rank; ++i) {
    require(pads[i] >= 0 && pads[rank + i] >= 0, kernel,
            "pads must be non-negative");
    if (mode == PadMode::Reflect)
      require(pads[i] < input[i] && pads[rank + i] < input[i], kernel,
              "reflect pads must be smaller than the axis");
    if (mode == PadMode::Edge && (pads[i] > 0 || pads[rank + i] > 0))
      require(input[i] > 0, kernel, "edge padding of an empty axis");
    expected[i] = input[i] + pads[i] + pads[rank + i];
  }
  return expected;
}

GatherLayout gatherLayout(const char *kernel, const Dims &input,
                          const Dims &output, int64_t axis,
                          const int64_t *indices, int64_t count) {
  const int rank = input.size;
  require(rank >= 1 && axis >= 0 && axis < rank, kernel,
          "axis out of range for the input's rank");
  // The indices' rank: the output keeps the other rank - 1 axes.
  const int indexRank = output.size - rank + 1;
  require(indexRank >= 0 && output.size <= kMaxRank, kernel,
          "the output's rank does not fit the input's");
  GatherLayout layout{1, input[axis], 1};
  int64_t gathered = 1;
  for (int d = 0; d < output.size; ++d) {
    if (d < axis) {
      require(output[d] == input[d], kernel,
              "the output differs from the input before the axis");
      layout.outer *= input[d];
    } else if (d < axis + indexRank) {
      gathered *= output[d];
    } else {
      require(output[d] == input[d - indexRank + 1], kernel,
              "the output differs from the input after the axis");
      layout.inner *= output[d];
    }
  }
  require(gathered == count, kernel,
          "the output's gathered axes do not hold one element per index");
  for (int64_t k = 0; k < count; ++k)
    require(indices[k] >= 0 && indices[k] < layout.extent, kernel,
            "an index is outside the axis");
  return layout;
}

void invertGatherIndices(const int64_t *indices, int64_t count, int64_t extent,
                         int64_t *offsets, int64_t *positions) {
  // A counting sort, stable: each position list stays ascending.
  std::fill(offsets, offsets + extent + 1, int64_t(0));
  for (int64_t k = 0; k < count; ++k)
    ++offsets[indices[k] + 1];
  for (int64_t j = 0; j < extent; ++j)
    offsets[j + 1] += offsets[j];
  for (int64_t k = 0; k < count; ++k)
    positions[offsets[indices[k]]++] = k;
  // The fill advanced each offset to its list's end: shift them back.
  for (int64_t j = extent; j > 0; --j)
    offsets[j] = offsets[j - 1];
  offsets[0] = 0;
}

Dims transposeShape(const char *kernel, const Dims &input, const Dims &perm,
                    Dims &strides) {
  require(perm.size == input.size && input.size <= kMaxRank, kernel,
          "perm needs one value per axis");
  Dims inStrides = contiguousStrides(input);
  Dims expected = input;
  strides = input;
  bool seen[kMaxRank] = {};
  for (int i = 0; i < input.size; ++i) {
    require(perm[i] >= 0 && perm[i] < input.size && !seen[perm[i]], kernel,
            "perm must be a permutation");
    seen[perm[i]] = true;
    expected[i] = input[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  return expected;
}

void matmulSizes(const char *kernel, const Dims &l, const Dims &r,
                 const Dims &o, int64_t &m, int64_t &k, int64_t &n) {
  require(l.size >= 2 && r.size >= 2, kernel, "operands must have rank >= 2");
  m = l[l.size - 2];
  k = l[l.size - 1];
  n = r[r.size - 1];
  require(r[r.size - 2] == k, kernel, "inner dimensions differ");
  require(o.size == std::max(l.size, r.size) && o[o.size - 2] == m &&
              o[o.size - 1] == n,
          kernel, "output shape does not match the operands");
}

void gemmSizes(const char *kernel, const Dims &a, const Dims &b,
               const Dims &output, bool transA, bool transB, int64_t &m,
               int64_t &k, int64_t &n) {
  requireRank(kernel, "a", a, 2);
  requireRank(kernel, "b", b, 2);
  m = transA ? a[1] : a[0];
  k = transA ? a[0] : a[1];
  n = transB ? b[0] : b[1];
  require((transB ? b[1] : b[0]) == k, kernel, "inner dimensions differ");
  requireShape(kernel, "output", output, Dims{m, n});
}

void checkCast(const ConstTensor &input, const Tensor &output) {
  requireShape("cast", "output", output.shape, input.shape);
  // Widening cannot run in place (the result is larger); narrowing in place
  // would read elements already overwritten by other threads.
  require(output.data != input.data || output.type == input.type, "cast",
          "the result must not alias the operand");
}

Dims checkPRelu(const char *kernel, const ConstTensor &gradOutput,
                const ConstTensor &input, const ConstTensor &slope,
                const Tensor &output) {
  requireShape(kernel, "output", output.shape, input.shape);
  bool sameType = slope.type == input.type && output.type == input.type;
  if (gradOutput.present()) {
    requireShape(kernel, "grad_output", gradOutput.shape, input.shape);
    sameType &= gradOutput.type == input.type;
  }
  require(sameType, kernel,
          "every tensor must have the input's element type (mixed "
          "precision casts the slope with the input)");
  return broadcastStrides(kernel, slope.shape, input.shape);
}

void requireF32Channels(const char *kernel,
                        std::initializer_list<ElementType> channels) {
  for (ElementType type : channels)
    require(type == ElementType::F32, kernel,
            "scale, bias, statistics and their gradients must be f32 "
            "(mixed precision keeps them in f32)");
}

void checkSgdUpdate(const ConstTensor &param, const ConstTensor &grad,
                    const ConstTensor &momentumBuffer, int64_t step,
                    const Tensor &newParam, const Tensor &newMomentumBuffer,
                    double lr, double momentum, double dampening,
                    double weightDecay, bool nesterov) {
  const char *kernel = "sgd_update";
  requireShape(kernel, "grad", grad.shape, param.shape);
  requireShape(kernel, "new_param", newParam.shape, param.shape);
  if (momentum != 0) {
    require(momentumBuffer.present() && newMomentumBuffer.present(), kernel,
            "momentum needs the momentum buffers");
    requireShape(kernel, "momentum_buffer", momentumBuffer.shape, param.shape);
    requireShape(kernel, "new_momentum_buffer", newMomentumBuffer.shape,
                 param.shape);
    require(step >= 1, kernel, "step must be >= 1");
  }
  require(lr >= 0 && momentum >= 0 && weightDecay >= 0, kernel,
          "lr, momentum and weight_decay must be non-negative");
  require(!nesterov || (momentum > 0 && dampening == 0), kernel,
          "nesterov needs a positive momentum and zero dampening");
}

void checkAdamUpdate(const ConstTensor &param, const ConstTensor &grad,
                     const ConstTensor &expAvg, const ConstTensor &expAvgSq,
                     int64_t step, const Tensor &newParam,
                     const Tensor &newExpAvg, const Tensor &newExpAvgSq,
                     double lr, double beta1, double beta2, double eps,
                     double weightDecay) {
  const char *kernel = "adam_update";
  for (auto [name, shape] :
       {std::pair{"grad", grad.shape}, {"exp_avg", expAvg.shape},
        {"exp_avg_sq", expAvgSq.shape}, {"new_param", newParam.shape},
        {"new_exp_avg", newExpAvg.shape},
        {"new_exp_avg_sq", newExpAvgSq.shape}})
    requireShape(kernel, name, shape, param.shape);
  require(lr >= 0 && weightDecay >= 0 && beta1 >= 0 && beta1 < 1 &&
              beta2 >= 0 && beta2 < 1 && eps > 0 && step >= 1,
          kernel, "hyperparameters out of range");
}

StridedWalk::StridedWalk(const Dims &shape, const Dims &stridesA,
                         const Dims &stridesB, const Dims &stridesC)
    : shape(shape), strides{stridesA, stridesB, stridesC},
      remaining(shape.product()) {
  counter.size = shape.size;
  for (Dims &operand : strides)
    if (operand.size == 0)
      operand.size = shape.size;
}

void StridedWalk::next() {
  --remaining;
  ++position;
  for (int i = shape.size - 1; i >= 0; --i) {
    for (int operand = 0; operand < kOperands; ++operand)
      offsets[operand] += strides[operand][i];
    if (++counter[i] < shape[i])
      return;
    for (int operand = 0; operand < kOperands; ++operand)
      offsets[operand] -= strides[operand][i] * shape[i];
    counter[i] = 0;
  }
}

} // namespace memopt::rt::detail
