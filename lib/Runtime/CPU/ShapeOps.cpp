//===- ShapeOps.cpp - Concat, slice, pad, transpose, broadcast, reduce ----===//
//
// Data movement on row-major tensors of any rank up to kMaxRank, and the
// reductions. Sums accumulate sequentially in double.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <cstring>

namespace memopt::rt {
using namespace detail;

namespace {

/// The shape of a strided slice, after checking the attributes.
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

/// Calls `f(outputOffset, inputOffset, length)` for the runs of contiguous
/// elements that a slice of `input` to `output` copies, in row-major order:
/// the trailing axes taken whole with step 1 and the next one with step 1
/// form one run.
template <typename F>
void forEachSliceRun(const Dims &input, const Dims &output, const Dims &starts,
                     const Dims &steps, F f) {
  Dims strides = contiguousStrides(input);
  int64_t base = 0;
  for (int i = 0; i < input.size; ++i) {
    base += starts[i] * strides[i];
    strides[i] *= steps[i];
  }
  int64_t run = 1;
  int outer = input.size;
  while (outer > 0 && steps[outer - 1] == 1) {
    --outer;
    run *= output[outer];
    if (output[outer] != input[outer])
      break;
  }
  Dims outerShape(output.values, outer), outerStrides(strides.values, outer);
  for (StridedWalk w(outerShape, outerStrides); !w.done(); w.next())
    f(w.index() * run, base + w.offset(0), run);
}

/// The source index along an axis of extent `n` for padded position `i`,
/// or -1 for the constant fill.
int64_t padSource(int64_t i, int64_t n, PadMode mode) {
  if (i >= 0 && i < n)
    return i;
  switch (mode) {
  case PadMode::Constant:
    return -1;
  case PadMode::Reflect:
    return i < 0 ? -i : 2 * (n - 1) - i;
  case PadMode::Edge:
    return i < 0 ? 0 : n - 1;
  }
  return -1;
}

void reduce(const char *kernel, ConstTensor input, Tensor output,
            const Dims &axes, bool keepdims, bool mean) {
  const Dims &in = input.shape;
  require(in.size <= kMaxRank, kernel, "rank above kMaxRank");
  bool reduced[kMaxRank] = {};
  for (int i = 0; i < axes.size; ++i) {
    require(axes[i] >= 0 && axes[i] < in.size &&
                (i == 0 || axes[i] > axes[i - 1]),
            kernel, "axes must be sorted, distinct and in range");
    reduced[axes[i]] = true;
  }
  if (axes.size == 0)
    for (int i = 0; i < in.size; ++i)
      reduced[i] = true;

  Dims strides = contiguousStrides(in);
  Dims expected, keptShape, keptStrides, redShape, redStrides;
  for (int i = 0; i < in.size; ++i) {
    Dims &shape = reduced[i] ? redShape : keptShape;
    Dims &str = reduced[i] ? redStrides : keptStrides;
    shape.values[shape.size++] = in[i];
    str.values[str.size++] = strides[i];
    if (!reduced[i] || keepdims)
      expected.values[expected.size++] = reduced[i] ? 1 : in[i];
  }
  requireShape(kernel, "output", output.shape, expected);
  const double count = static_cast<double>(redShape.product());
  // The last reduced axis is summed in a plain loop, the others walked.
  int64_t lastExtent = 1, lastStride = 0;
  if (redShape.size > 0) {
    --redShape.size;
    --redStrides.size;
    lastExtent = redShape.values[redShape.size];
    lastStride = redStrides.values[redStrides.size];
  }
  for (StridedWalk k(keptShape, keptStrides); !k.done(); k.next()) {
    double sum = 0;
    const float *base = input.data + k.offset(0);
    for (StridedWalk r(redShape, redStrides); !r.done(); r.next())
      for (int64_t j = 0; j < lastExtent; ++j)
        sum += base[r.offset(0) + j * lastStride];
    output.data[k.index()] = static_cast<float>(mean ? sum / count : sum);
  }
}

} // namespace

void concat(const ConstTensor *inputs, int count, Tensor output,
            int64_t axis) {
  const char *kernel = "concat";
  require(count >= 1, kernel, "needs at least one operand");
  const Dims &out = output.shape;
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
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i)
    outer *= out[i];
  for (int i = axis + 1; i < out.size; ++i)
    inner *= out[i];
  float *dst = output.data;
  for (int64_t o = 0; o < outer; ++o)
    for (int k = 0; k < count; ++k) {
      int64_t block = inputs[k].dim(axis) * inner;
      std::memcpy(dst, inputs[k].data + o * block, block * sizeof(float));
      dst += block;
    }
}

void slice(ConstTensor input, Tensor output, const Dims &starts,
           const Dims &ends, const Dims &steps) {
  const char *kernel = "slice";
  requireShape(kernel, "output", output.shape,
               sliceShape(kernel, input.shape, starts, ends, steps));
  forEachSliceRun(input.shape, output.shape, starts, steps,
                  [&](int64_t to, int64_t from, int64_t length) {
                    std::memcpy(output.data + to, input.data + from,
                                length * sizeof(float));
                  });
}

void sliceBackward(ConstTensor gradOutput, Tensor gradInput,
                   const Dims &starts, const Dims &ends, const Dims &steps) {
  const char *kernel = "slice_backward";
  requireShape(kernel, "grad_output", gradOutput.shape,
               sliceShape(kernel, gradInput.shape, starts, ends, steps));
  std::memset(gradInput.data, 0, gradInput.bytes());
  forEachSliceRun(gradInput.shape, gradOutput.shape, starts, steps,
                  [&](int64_t from, int64_t to, int64_t length) {
                    std::memcpy(gradInput.data + to, gradOutput.data + from,
                                length * sizeof(float));
                  });
}

void pad(ConstTensor input, Tensor output, const Dims &pads, PadMode mode,
         double value) {
  const char *kernel = "pad";
  const Dims &in = input.shape;
  const int rank = in.size;
  require(pads.size == 2 * rank, kernel, "pads needs 2 * rank values");
  Dims expected = in;
  for (int i = 0; i < rank; ++i) {
    require(pads[i] >= 0 && pads[rank + i] >= 0, kernel,
            "pads must be non-negative");
    if (mode == PadMode::Reflect)
      require(pads[i] < in[i] && pads[rank + i] < in[i], kernel,
              "reflect pads must be smaller than the axis");
    if (mode == PadMode::Edge && (pads[i] > 0 || pads[rank + i] > 0))
      require(in[i] > 0, kernel, "edge padding of an empty axis");
    expected[i] = in[i] + pads[i] + pads[rank + i];
  }
  requireShape(kernel, "output", output.shape, expected);
  const float fill = static_cast<float>(value);
  Dims strides = contiguousStrides(in);
  Dims counter;
  counter.size = rank;
  const int64_t n = output.numel();
  for (int64_t o = 0; o < n; ++o) {
    int64_t offset = 0;
    bool inside = true;
    for (int i = 0; i < rank && inside; ++i) {
      int64_t s = padSource(counter[i] - pads[i], in[i], mode);
      inside = s >= 0;
      offset += s * strides[i];
    }
    output.data[o] = inside ? input.data[offset] : fill;
    for (int i = rank - 1; i >= 0; --i) {
      if (++counter[i] < expected[i])
        break;
      counter[i] = 0;
    }
  }
}

void reshape(ConstTensor input, Tensor output) {
  require(input.numel() == output.numel(), "reshape",
          "element counts differ");
  if (output.data != input.data)
    std::memmove(output.data, input.data, output.bytes());
}

void transpose(ConstTensor input, Tensor output, const Dims &perm) {
  const char *kernel = "transpose";
  const Dims &in = input.shape;
  require(perm.size == in.size && in.size <= kMaxRank, kernel,
          "perm needs one value per axis");
  Dims inStrides = contiguousStrides(in);
  Dims expected = in, strides = in;
  bool seen[kMaxRank] = {};
  for (int i = 0; i < in.size; ++i) {
    require(perm[i] >= 0 && perm[i] < in.size && !seen[perm[i]], kernel,
            "perm must be a permutation");
    seen[perm[i]] = true;
    expected[i] = in[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  requireShape(kernel, "output", output.shape, expected);
  for (StridedWalk w(output.shape, strides); !w.done(); w.next())
    output.data[w.index()] = input.data[w.offset(0)];
}

void broadcast(ConstTensor input, Tensor output) {
  Dims strides = broadcastStrides("broadcast", input.shape, output.shape);
  for (StridedWalk w(output.shape, strides); !w.done(); w.next())
    output.data[w.index()] = input.data[w.offset(0)];
}

void reduceSum(ConstTensor input, Tensor output, const Dims &axes,
               bool keepdims) {
  reduce("reduce_sum", input, output, axes, keepdims, /*mean=*/false);
}

void reduceMean(ConstTensor input, Tensor output, const Dims &axes,
                bool keepdims) {
  reduce("reduce_mean", input, output, axes, keepdims, /*mean=*/true);
}

} // namespace memopt::rt
