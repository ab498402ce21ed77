//===- ShapeOps.cpp - Concat, slice, pad, transpose, broadcast, reduce ----===//
//
// Data movement on row-major tensors of any rank up to kMaxRank, and the
// reductions. Sums accumulate sequentially in double.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "IndexMath.h"

#include <cstring>

namespace memopt::rt {
using namespace detail;

namespace {

/// Calls `f(outputOffset, inputOffset, length)` for the runs of contiguous
/// elements that a slice of `input` to `output` copies, in row-major order:
/// the trailing axes taken whole with step 1 and the next one with step 1
/// form one run.
template <typename F>
void forEachSliceRun(const Dims &input, const Dims &output, const Dims &starts,
                     const Dims &steps, F f) {
  Dims strides;
  int64_t base = sliceStrides(input, starts, steps, strides);
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

void reduce(const char *kernel, ConstTensor input, Tensor output,
            const Dims &axes, bool keepdims, bool mean) {
  ReduceAxes split = reduceAxes(kernel, input.shape, output.shape, axes,
                                keepdims);
  const double count = static_cast<double>(split.reducedShape.product());
  // The last reduced axis is summed in a plain loop, the others walked (the
  // same order as one walk over all of them).
  Dims redShape = split.reducedShape, redStrides = split.reducedStrides;
  int64_t lastExtent = 1, lastStride = 0;
  if (redShape.size > 0) {
    --redShape.size;
    --redStrides.size;
    lastExtent = redShape.values[redShape.size];
    lastStride = redStrides.values[redStrides.size];
  }
  for (StridedWalk k(split.keptShape, split.keptStrides); !k.done();
       k.next()) {
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
  int64_t outer, inner;
  concatLayout("concat", inputs, count, output.shape, axis, outer, inner);
  float *dst = output.data;
  for (int64_t o = 0; o < outer; ++o)
    for (int k = 0; k < count; ++k) {
      int64_t block = inputs[k].dim(axis) * inner;
      // An operand that the memory plan computed in its slice of the
      // output is already in place.
      if (inputs[k].data + o * block != dst)
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
  const Dims &in = input.shape;
  const int rank = in.size;
  Dims expected = padShape("pad", in, pads, mode);
  requireShape("pad", "output", output.shape, expected);
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

void constant(const float *values, Tensor output) {
  std::memcpy(output.data, values, output.bytes());
}

void reshape(ConstTensor input, Tensor output) {
  require(input.numel() == output.numel(), "reshape",
          "element counts differ");
  if (output.data != input.data)
    std::memmove(output.data, input.data, output.bytes());
}

void transpose(ConstTensor input, Tensor output, const Dims &perm) {
  Dims strides;
  requireShape("transpose", "output", output.shape,
               transposeShape("transpose", input.shape, perm, strides));
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
