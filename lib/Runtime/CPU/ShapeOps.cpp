//===- ShapeOps.cpp - Concat, slice, pad, gather, transpose, reduce -------===//
//
// Data movement on row-major tensors of any rank up to kMaxRank, and the
// reductions. Sums accumulate sequentially in double.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "IndexMath.h"
#include "LowPrecision.h"

#include <cstring>
#include <vector>

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
  ReduceAxes split =
      reduceAxes(kernel, input.shape, output.shape, axes, keepdims);
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
  requireType(kernel, "output", output.type, input.type);
  dispatchFloatType(kernel, input.type, [&](auto tag) {
    using T = decltype(tag);
    T *out = output.elements<T>();
    for (StridedWalk k(split.keptShape, split.keptStrides); !k.done();
         k.next()) {
      double sum = 0;
      const T *base = input.elements<T>() + k.offset(0);
      for (StridedWalk r(redShape, redStrides); !r.done(); r.next())
        for (int64_t j = 0; j < lastExtent; ++j)
          sum += double(base[r.offset(0) + j * lastStride]);
      out[k.index()] = static_cast<float>(mean ? sum / count : sum);
    }
  });
}

} // namespace

void concat(const ConstTensor *inputs, int count, Tensor output, int64_t axis) {
  int64_t outer, inner;
  concatLayout("concat", inputs, count, output.shape, axis, outer, inner);
  // A copy of elements of any type, in bytes.
  const size_t size = elementBytes(output.type);
  for (int k = 0; k < count; ++k)
    requireType("concat", "input", inputs[k].type, output.type);
  char *dst = reinterpret_cast<char *>(output.data);
  for (int64_t o = 0; o < outer; ++o)
    for (int k = 0; k < count; ++k) {
      size_t block = inputs[k].dim(axis) * inner * size;
      const char *src =
          reinterpret_cast<const char *>(inputs[k].data) + o * block;
      // An operand that the memory plan computed in its slice of the
      // output is already in place.
      if (src != dst)
        std::memcpy(dst, src, block);
      dst += block;
    }
}

void slice(ConstTensor input, Tensor output, const Dims &starts,
           const Dims &ends, const Dims &steps) {
  const char *kernel = "slice";
  requireShape(kernel, "output", output.shape,
               sliceShape(kernel, input.shape, starts, ends, steps));
  requireType(kernel, "output", output.type, input.type);
  const size_t size = elementBytes(input.type);
  auto *out = reinterpret_cast<char *>(output.data);
  auto *in = reinterpret_cast<const char *>(input.data);
  forEachSliceRun(input.shape, output.shape, starts, steps,
                  [&](int64_t to, int64_t from, int64_t length) {
                    std::memcpy(out + to * size, in + from * size,
                                length * size);
                  });
}

void sliceBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &starts,
                   const Dims &ends, const Dims &steps) {
  const char *kernel = "slice_backward";
  requireShape(kernel, "grad_output", gradOutput.shape,
               sliceShape(kernel, gradInput.shape, starts, ends, steps));
  requireType(kernel, "grad_input", gradInput.type, gradOutput.type);
  // All-zero bits are +0 in f32, bf16 and f16 alike.
  std::memset(gradInput.data, 0, gradInput.bytes());
  const size_t size = elementBytes(gradOutput.type);
  auto *dx = reinterpret_cast<char *>(gradInput.data);
  auto *dy = reinterpret_cast<const char *>(gradOutput.data);
  forEachSliceRun(gradInput.shape, gradOutput.shape, starts, steps,
                  [&](int64_t from, int64_t to, int64_t length) {
                    std::memcpy(dx + to * size, dy + from * size,
                                length * size);
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
  requireType("pad", "output", output.type, input.type);
  dispatchFloatType("pad", input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *source = input.elements<T>();
    T *out = output.elements<T>();
    for (int64_t o = 0; o < n; ++o) {
      int64_t offset = 0;
      bool inside = true;
      for (int i = 0; i < rank && inside; ++i) {
        int64_t s = padSource(counter[i] - pads[i], in[i], mode);
        inside = s >= 0;
        offset += s * strides[i];
      }
      if (inside)
        out[o] = source[offset];
      else
        out[o] = fill;
      for (int i = rank - 1; i >= 0; --i) {
        if (++counter[i] < expected[i])
          break;
        counter[i] = 0;
      }
    }
  });
}

namespace {
/// f32, bf16 or f16 elements read as float.
template <typename T> struct FloatView {
  const T *data;
  float operator[](int64_t i) const { return static_cast<float>(data[i]); }
};
} // namespace

void padBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &pads,
                 PadMode mode) {
  const char *kernel = "pad_backward";
  const Dims &in = gradInput.shape;
  const int rank = in.size;
  Dims outShape = padShape(kernel, in, pads, mode);
  requireShape(kernel, "grad_output", gradOutput.shape, outShape);
  requireType(kernel, "grad_input", gradInput.type, gradOutput.type);
  Dims outStrides = contiguousStrides(outShape);
  const int64_t n = gradInput.numel();
  dispatchFloatType(kernel, gradInput.type, [&](auto tag) {
    using T = decltype(tag);
    FloatView<T> dy{gradOutput.elements<T>()};
    T *dx = gradInput.elements<T>();
    // Gathers, like the CUDA kernel: each input element sums the padded
    // positions that copied it (IndexMath.h), in the same order; no two
    // elements share a write, so the threads need no order.
    parallelForEach(n, [&](int64_t i) {
      int64_t coords[kMaxRank];
      for (int64_t a = rank - 1, rest = i; a >= 0; --a) {
        coords[a] = rest % in[a];
        rest /= in[a];
      }
      dx[i] = padGradient(dy, rank, coords, in.begin(), pads.begin(),
                          outStrides.begin(), mode);
    });
  });
}

void gather(ConstTensor input, Tensor output, int64_t axis,
            const int64_t *indices, int64_t count) {
  const char *kernel = "gather";
  GatherLayout l =
      gatherLayout(kernel, input.shape, output.shape, axis, indices, count);
  requireType(kernel, "output", output.type, input.type);
  // A copy of `inner` contiguous elements per (outer, index) row.
  const size_t row = l.inner * elementBytes(input.type);
  auto *out = reinterpret_cast<char *>(output.data);
  auto *in = reinterpret_cast<const char *>(input.data);
  parallelFor(l.outer * count, l.outer * count * l.inner,
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  int64_t o = r / count, k = r % count;
                  std::memcpy(out + r * row,
                              in + (o * l.extent + indices[k]) * row, row);
                }
              });
}

void gatherBackward(ConstTensor gradOutput, Tensor gradInput, int64_t axis,
                    const int64_t *indices, int64_t count) {
  const char *kernel = "gather_backward";
  GatherLayout l = gatherLayout(kernel, gradInput.shape, gradOutput.shape, axis,
                                indices, count);
  requireType(kernel, "grad_input", gradInput.type, gradOutput.type);
  std::vector<int64_t> offsets(l.extent + 1), positions(count);
  invertGatherIndices(indices, count, l.extent, offsets.data(),
                      positions.data());
  dispatchFloatType(kernel, gradInput.type, [&](auto tag) {
    using T = decltype(tag);
    FloatView<T> dy{gradOutput.elements<T>()};
    T *dx = gradInput.elements<T>();
    // Gathers, like the CUDA kernel: each gradient element sums the index
    // positions that read it (IndexMath.h), in the same order; no two
    // elements share a write, so the threads need no order.
    parallelForEach(gradInput.numel(), [&](int64_t e) {
      int64_t i = e % l.inner, j = e / l.inner % l.extent,
              o = e / (l.inner * l.extent);
      dx[e] = gatherGradient(dy, offsets.data(), positions.data(), o, j, i,
                             count, l.inner);
    });
  });
}

void constant(const float *values, Tensor output) {
  std::memcpy(output.data, values, output.bytes());
}

void reshape(ConstTensor input, Tensor output) {
  require(input.numel() == output.numel(), "reshape", "element counts differ");
  requireType("reshape", "output", output.type, input.type);
  if (output.data != input.data)
    std::memmove(output.data, input.data, output.bytes());
}

void transpose(ConstTensor input, Tensor output, const Dims &perm) {
  Dims strides;
  requireShape("transpose", "output", output.shape,
               transposeShape("transpose", input.shape, perm, strides));
  requireType("transpose", "output", output.type, input.type);
  dispatchFloatType("transpose", input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *in = input.elements<T>();
    T *out = output.elements<T>();
    for (StridedWalk w(output.shape, strides); !w.done(); w.next())
      out[w.index()] = in[w.offset(0)];
  });
}

void broadcast(ConstTensor input, Tensor output) {
  Dims strides = broadcastStrides("broadcast", input.shape, output.shape);
  requireType("broadcast", "output", output.type, input.type);
  dispatchFloatType("broadcast", input.type, [&](auto tag) {
    using T = decltype(tag);
    const T *in = input.elements<T>();
    T *out = output.elements<T>();
    for (StridedWalk w(output.shape, strides); !w.done(); w.next())
      out[w.index()] = in[w.offset(0)];
  });
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
