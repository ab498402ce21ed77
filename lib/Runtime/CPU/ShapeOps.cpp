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

void reduce(const char *kernel, ConstTensor input, Tensor output,
            const Dims &axes, bool keepdims, bool mean) {
  ReduceAxes split = reduceAxes(kernel, input.shape, output.shape, axes,
                                keepdims);
  const double count = static_cast<double>(split.reducedShape.product());
  for (StridedWalk k(split.keptShape, split.keptStrides); !k.done();
       k.next()) {
    double sum = 0;
    const float *base = input.data + k.offset(0);
    for (StridedWalk r(split.reducedShape, split.reducedStrides); !r.done();
         r.next())
      sum += base[r.offset(0)];
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
  Dims strides;
  int64_t base = sliceStrides(input.shape, starts, steps, strides);
  for (StridedWalk w(output.shape, strides); !w.done(); w.next())
    output.data[w.index()] = input.data[base + w.offset(0)];
}

void sliceBackward(ConstTensor gradOutput, Tensor gradInput,
                   const Dims &starts, const Dims &ends, const Dims &steps) {
  const char *kernel = "slice_backward";
  requireShape(kernel, "grad_output", gradOutput.shape,
               sliceShape(kernel, gradInput.shape, starts, ends, steps));
  std::memset(gradInput.data, 0, gradInput.bytes());
  Dims strides;
  int64_t base = sliceStrides(gradInput.shape, starts, steps, strides);
  for (StridedWalk w(gradOutput.shape, strides); !w.done(); w.next())
    gradInput.data[base + w.offset(0)] = gradOutput.data[w.index()];
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
