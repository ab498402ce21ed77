//===- Data.cu - Pooling, resizing, data movement and reductions ----------===//
//
// The semantics are the CPU backend's (lib/Runtime/CPU/Pooling.cpp,
// Resize.cpp, ShapeOps.cpp). Kernels whose CPU version scatters (the
// backward of max and average pooling, of resize, of slice) gather
// instead: each input-gradient element visits the output positions that
// read it, in row-major order, and sums their contributions itself. So no
// two threads write one element, no atomics are needed, and the sums have
// the CPU's order. Reductions are one block per output element with the
// deterministic block sum (KernelSupport.cuh).
//
// Every kernel here reads and writes the tensors' own element type (f32,
// or bf16 / f16 under mixed precision) through Load / Store, computing in
// f32; the copies (concat, reshape, constant) move the elements' bytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "../CPU/IndexMath.h"
#include "KernelSupport.cuh"

#include <cmath>

namespace memopt::rt {
using namespace detail;
using cuda::launchBlocks;
using cuda::checkLaunch;
using cuda::IndexMap;
using cuda::kLaunchThreads;

namespace {

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The shapes and window of a 2-D pooling, passed to kernels by value.
struct Window {
  int64_t planes, inH, inW, outH, outW;
  int64_t kernel[2], strides[2], dilations[2], pads[4];

  /// The flat index in its plane of the maximum of window (oh, ow), or -1
  /// when the window covers no input position (the CPU's rules: first
  /// maximum in row-major order, a NaN wins).
  __device__ int64_t argmax(cuda::Load plane, int64_t oh, int64_t ow) const {
    int64_t h0 = oh * strides[0] - pads[0];
    int64_t w0 = ow * strides[1] - pads[1];
    int64_t h1 = min(h0 + (kernel[0] - 1) * dilations[0] + 1, inH);
    int64_t w1 = min(w0 + (kernel[1] - 1) * dilations[1] + 1, inW);
    while (h0 < 0)
      h0 += dilations[0];
    while (w0 < 0)
      w0 += dilations[1];
    int64_t best = -1;
    float bestValue = -INFINITY;
    for (int64_t h = h0; h < h1; h += dilations[0])
      for (int64_t x = w0; x < w1; x += dilations[1]) {
        int64_t index = h * inW + x;
        float v = plane[index];
        if (best < 0 || v > bestValue || isnan(v)) {
          best = index;
          bestValue = v;
        }
      }
    return best;
  }

  /// The clipped extent of average window (oh, ow) and its divisor.
  __device__ void average(int64_t oh, int64_t ow, bool countIncludePad,
                          int64_t &h0, int64_t &h1, int64_t &w0, int64_t &w1,
                          double &divisor) const {
    h0 = oh * strides[0] - pads[0];
    w0 = ow * strides[1] - pads[1];
    h1 = min(h0 + kernel[0], inH + pads[2]);
    w1 = min(w0 + kernel[1], inW + pads[3]);
    int64_t padded = (h1 - h0) * (w1 - w0);
    h0 = max(h0, int64_t(0));
    w0 = max(w0, int64_t(0));
    h1 = min(h1, inH);
    w1 = min(w1, inW);
    divisor = static_cast<double>(countIncludePad ? padded
                                                  : (h1 - h0) * (w1 - w0));
  }

  /// The output rows (or columns, axis 1) whose window may cover input
  /// position `i`: [first, last], clamped to the output.
  __device__ void candidates(int axis, int64_t i, int64_t &first,
                             int64_t &last) const {
    int64_t out = axis == 0 ? outH : outW;
    int64_t reach = (kernel[axis] - 1) * dilations[axis];
    int64_t lo = i + pads[axis] - reach;
    first = lo <= 0 ? 0 : (lo + strides[axis] - 1) / strides[axis];
    last = min((i + pads[axis]) / strides[axis], out - 1);
  }
};

/// The CUDA pooling kernels are 2-D: 1-D and 3-D poolings are refused.
Window makeWindow(const char *op, const Dims &input, const Dims &output,
                  const Dims &size, const Dims &strides, const Dims &pads,
                  const Dims &dilations, bool ceilMode) {
  require(input.size == 4, op,
          "the CUDA runtime pools 2-D (4-D) tensors only; run 1-D and 3-D "
          "poolings with --target=cpu");
  Dims expected =
      poolShape(op, input, size, strides, pads, dilations, ceilMode);
  requireShape(op, "output", output, expected);
  return {input[0] * input[1],
          input[2],
          input[3],
          expected[2],
          expected[3],
          {size[0], size[1]},
          {strides[0], strides[1]},
          {dilations[0], dilations[1]},
          {pads[0], pads[1], pads[2], pads[3]}};
}

__global__ void maxPoolKernel(cuda::Load in, cuda::Store out, Window w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outH * w.outW) {
    int64_t p = i / (w.outH * w.outW), o = i % (w.outH * w.outW);
    cuda::Load plane = in + p * w.inH * w.inW;
    int64_t best = w.argmax(plane, o / w.outW, o % w.outW);
    out.set(i, best < 0 ? -INFINITY : plane[best]);
  }
}

__global__ void maxPoolGradKernel(cuda::Load dy, cuda::Load in,
                                  cuda::Store dx, Window w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inH * w.inW) {
    int64_t p = i / (w.inH * w.inW), index = i % (w.inH * w.inW);
    int64_t h = index / w.inW, x = index % w.inW;
    cuda::Load plane = in + p * w.inH * w.inW;
    cuda::Load grad = dy + p * w.outH * w.outW;
    int64_t oh0, oh1, ow0, ow1;
    w.candidates(0, h, oh0, oh1);
    w.candidates(1, x, ow0, ow1);
    float sum = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow)
        if (w.argmax(plane, oh, ow) == index)
          sum += grad[oh * w.outW + ow];
    dx.set(i, sum);
  }
}

__global__ void avgPoolKernel(cuda::Load in, cuda::Store out, Window w,
                              bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outH * w.outW) {
    int64_t p = i / (w.outH * w.outW), o = i % (w.outH * w.outW);
    cuda::Load plane = in + p * w.inH * w.inW;
    int64_t h0, h1, w0, w1;
    double divisor;
    w.average(o / w.outW, o % w.outW, countIncludePad, h0, h1, w0, w1,
              divisor);
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t x = w0; x < w1; ++x)
        sum += plane[h * w.inW + x];
    out.set(i, static_cast<float>(sum / divisor));
  }
}

__global__ void avgPoolGradKernel(cuda::Load dy, cuda::Store dx, Window w,
                                  bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inH * w.inW) {
    int64_t p = i / (w.inH * w.inW), index = i % (w.inH * w.inW);
    int64_t h = index / w.inW, x = index % w.inW;
    cuda::Load grad = dy + p * w.outH * w.outW;
    int64_t oh0, oh1, ow0, ow1;
    w.candidates(0, h, oh0, oh1);
    w.candidates(1, x, ow0, ow1);
    float sum = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        int64_t h0, h1, w0, w1;
        double divisor;
        w.average(oh, ow, countIncludePad, h0, h1, w0, w1, divisor);
        if (h0 <= h && h < h1 && w0 <= x && x < w1)
          sum += static_cast<float>(grad[oh * w.outW + ow] / divisor);
      }
    dx.set(i, sum);
  }
}

__global__ void planeMeanKernel(cuda::Load in, cuda::Store out, int64_t size) {
  cuda::Load plane = in + blockIdx.x * size;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < size; i += kLaunchThreads)
    sum += plane[i];
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    out.set(blockIdx.x, static_cast<float>(sum / static_cast<double>(size)));
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

/// One axis of a resize: extents, scale and modes, by value.
struct ResizeAxis {
  int64_t in, out;
  double scale;
  ResizeMode mode;
  CoordinateMode coordinateMode;
  NearestMode nearestMode;

  /// The input positions output position `x` reads and their weights.
  __device__ detail::ResizeTaps taps(int64_t x) const {
    return detail::resizeTaps(x, scale, in, out, mode, coordinateMode,
                              nearestMode);
  }

  /// The weight with which output position `x` reads input position `i`
  /// (a sum when both taps are `i`; 0 when it does not read it).
  __device__ float weightOf(int64_t x, int64_t i) const {
    detail::ResizeTaps t = taps(x);
    if (mode == ResizeMode::Nearest)
      return t.index[0] == i ? 1.0f : 0.0f;
    return (t.index[0] == i ? t.weight[0] : 0.0f) +
           (t.index[1] == i ? t.weight[1] : 0.0f);
  }

  /// Output positions that may read input position `i`: the map is
  /// monotone with slope at most `reach`, so a window around i * out / in
  /// holds all of them; weightOf decides exactly.
  __device__ void candidates(int64_t i, int64_t &first, int64_t &last) const {
    double ratio = fmax(scale, static_cast<double>(out) / in);
    int64_t reach = static_cast<int64_t>(ceil(ratio)) + 2;
    int64_t centre = static_cast<int64_t>(floor(i * ratio));
    first = max(centre - 2 * reach, int64_t(0));
    last = min(centre + 2 * reach, out - 1);
  }
};

struct ResizeGeometry {
  int64_t planes;
  ResizeAxis h, w;
};

ResizeGeometry checkResize(const char *op, const Dims &input,
                           const Dims &output, ResizeMode mode,
                           CoordinateMode coordinateMode,
                           NearestMode nearestMode, const Scales &scales) {
  require(input.size == 4, op,
          "the CUDA runtime resizes 2-D (4-D) tensors only; run 1-D and 3-D "
          "resizes with --target=cpu");
  checkResizeShapes(op, input, output, scales);
  return {input[0] * input[1],
          {input[2], output[2], scales[0], mode, coordinateMode, nearestMode},
          {input[3], output[3], scales[1], mode, coordinateMode, nearestMode}};
}

__global__ void resizeKernel(cuda::Load in, cuda::Store out,
                             ResizeGeometry g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.h.out * g.w.out) {
    int64_t p = i / (g.h.out * g.w.out), o = i % (g.h.out * g.w.out);
    cuda::Load plane = in + p * g.h.in * g.w.in;
    detail::ResizeTaps th = g.h.taps(o / g.w.out);
    detail::ResizeTaps tw = g.w.taps(o % g.w.out);
    cuda::Load row0 = plane + th.index[0] * g.w.in;
    cuda::Load row1 = plane + th.index[1] * g.w.in;
    if (g.h.mode == ResizeMode::Nearest) {
      out.set(i, row0[tw.index[0]]);
      continue;
    }
    float top = tw.weight[0] * row0[tw.index[0]] +
                tw.weight[1] * row0[tw.index[1]];
    float bottom = tw.weight[0] * row1[tw.index[0]] +
                   tw.weight[1] * row1[tw.index[1]];
    out.set(i, th.weight[0] * top + th.weight[1] * bottom);
  }
}

__global__ void resizeGradKernel(cuda::Load dy, cuda::Store dx,
                                 ResizeGeometry g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.h.in * g.w.in) {
    int64_t p = i / (g.h.in * g.w.in), index = i % (g.h.in * g.w.in);
    int64_t h = index / g.w.in, x = index % g.w.in;
    cuda::Load grad = dy + p * g.h.out * g.w.out;
    int64_t oh0, oh1, ow0, ow1;
    g.h.candidates(h, oh0, oh1);
    g.w.candidates(x, ow0, ow1);
    float sum = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh) {
      float wh = g.h.weightOf(oh, h);
      if (wh == 0)
        continue;
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        float ww = g.w.weightOf(ow, x);
        if (ww != 0)
          sum += wh * ww * grad[oh * g.w.out + ow];
      }
    }
    dx.set(i, sum);
  }
}

//===----------------------------------------------------------------------===//
// Data movement and reductions
//===----------------------------------------------------------------------===//

/// out[i] = in[base + offset of i under `map`'s operand 0].
__global__ void gatherKernel(cuda::Load in, cuda::Store out, IndexMap map,
                             int64_t base, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t a, b;
    map.offsets(i, a, b);
    out.set(i, in[base + a]);
  }
}

/// out[base + offset of i] = in[i]: the inverse of gatherKernel, for
/// offsets that are distinct.
__global__ void scatterKernel(cuda::Load in, cuda::Store out, IndexMap map,
                              int64_t base, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t a, b;
    map.offsets(i, a, b);
    out.set(base + a, in[i]);
  }
}

void gather(const char *op, ConstTensor input, Tensor output,
            const Dims &strides, int64_t base) {
  int64_t n = output.numel();
  gatherKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output),
      IndexMap(output.shape, strides), base, n);
  checkLaunch(op);
}

struct PadGeometry {
  int rank;
  int64_t in[kMaxRank], out[kMaxRank], before[kMaxRank], stride[kMaxRank];
  PadMode mode;
  float fill;
};

__global__ void padKernel(cuda::Load in, cuda::Store out, PadGeometry g,
                          int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t rest = i, offset = 0;
    bool inside = true;
    for (int a = g.rank - 1; a >= 0; --a) {
      int64_t c = rest % g.out[a];
      rest /= g.out[a];
      int64_t s = padSource(c - g.before[a], g.in[a], g.mode);
      inside = inside && s >= 0;
      offset += s * g.stride[a];
    }
    out.set(i, inside ? in[offset] : g.fill);
  }
}

/// One block per output element: the sum (or mean) over the reduced axes.
__global__ void reduceKernel(cuda::Load in, cuda::Store out, IndexMap kept,
                             IndexMap reduced, int64_t count, bool mean) {
  int64_t base, unused;
  kept.offsets(blockIdx.x, base, unused);
  double sum = 0;
  for (int64_t r = threadIdx.x; r < count; r += kLaunchThreads) {
    int64_t offset;
    reduced.offsets(r, offset, unused);
    sum += in[base + offset];
  }
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    out.set(blockIdx.x, static_cast<float>(
                            mean ? sum / static_cast<double>(count) : sum));
}

void reduce(const char *op, ConstTensor input, Tensor output, const Dims &axes,
            bool keepdims, bool mean) {
  ReduceAxes split = reduceAxes(op, input.shape, output.shape, axes, keepdims);
  int64_t outputs = split.keptShape.product();
  require(outputs <= INT32_MAX, op, "too many output elements");
  reduceKernel<<<static_cast<unsigned>(std::max<int64_t>(outputs, 1)),
                 kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output),
      IndexMap(split.keptShape, split.keptStrides),
      IndexMap(split.reducedShape, split.reducedStrides),
      split.reducedShape.product(), mean);
  checkLaunch(op);
}

void zero(const char *op, Tensor tensor) {
  MEMOPT_CUDA_CHECK(op, cudaMemsetAsync(tensor.data, 0, tensor.bytes(),
                                        cuda::stream()));
}

} // namespace

void maxPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, const Dims &dilations, bool ceilMode) {
  Window w = makeWindow("max_pool", input.shape, output.shape, kernel,
                        strides, pads, dilations, ceilMode);
  maxPoolKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("max_pool", input), cuda::store("max_pool", output), w);
  checkLaunch("max_pool");
}

void maxPoolBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, const Dims &kernel, const Dims &strides, const Dims &pads,
                       const Dims &dilations, bool ceilMode) {
  const char *op = "max_pool_backward";
  Window w = makeWindow(op, input.shape, gradOutput.shape, kernel, strides,
                        pads, dilations, ceilMode);
  requireShape(op, "grad_input", gradInput.shape, input.shape);
  maxPoolGradKernel<<<launchBlocks(gradInput.numel()), kLaunchThreads, 0,
                      cuda::stream()>>>(cuda::load(op, gradOutput),
                                        cuda::load(op, input),
                                        cuda::store(op, gradInput), w);
  checkLaunch(op);
}

void avgPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, bool ceilMode, bool countIncludePad) {
  Window w = makeWindow("avg_pool", input.shape, output.shape, kernel,
                        strides, pads, Dims{1, 1}, ceilMode);
  avgPoolKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("avg_pool", input), cuda::store("avg_pool", output), w,
      countIncludePad);
  checkLaunch("avg_pool");
}

void avgPoolBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &kernel,
                       const Dims &strides, const Dims &pads, bool ceilMode,
                       bool countIncludePad) {
  const char *op = "avg_pool_backward";
  Window w = makeWindow(op, gradInput.shape, gradOutput.shape, kernel, strides,
                        pads, Dims{1, 1}, ceilMode);
  avgPoolGradKernel<<<launchBlocks(gradInput.numel()), kLaunchThreads, 0,
                      cuda::stream()>>>(cuda::load(op, gradOutput),
                                        cuda::store(op, gradInput), w,
                                        countIncludePad);
  checkLaunch(op);
}

void globalAvgPool(ConstTensor input, Tensor output) {
  const char *op = "global_avg_pool";
  requireShape(op, "output", output.shape, globalPoolShape(op, input.shape));
  int64_t planes = input.dim(0) * input.dim(1);
  require(planes >= 1 && planes <= INT32_MAX, op, "bad number of planes");
  planeMeanKernel<<<static_cast<unsigned>(planes), kLaunchThreads, 0,
                    cuda::stream()>>>(cuda::load(op, input),
                                      cuda::store(op, output),
                                      input.numel() / planes);
  checkLaunch(op);
}

void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            const Scales &scales) {
  ResizeGeometry g = checkResize("resize", input.shape, output.shape, mode,
                                 coordinateMode, nearestMode, scales);
  resizeKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("resize", input), cuda::store("resize", output), g);
  checkLaunch("resize");
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    const Scales &scales) {
  const char *op = "resize_backward";
  ResizeGeometry g = checkResize(op, gradInput.shape, gradOutput.shape, mode,
                                 coordinateMode, nearestMode, scales);
  resizeGradKernel<<<launchBlocks(gradInput.numel()), kLaunchThreads, 0,
                     cuda::stream()>>>(cuda::load(op, gradOutput),
                                       cuda::store(op, gradInput), g);
  checkLaunch(op);
}

void concat(const ConstTensor *inputs, int count, Tensor output,
            int64_t axis) {
  const char *op = "concat";
  const Dims &out = output.shape;
  int64_t outer, inner;
  concatLayout(op, inputs, count, out, axis, outer, inner);
  // Operand k fills a `block`-wide column of every one of the `outer` rows.
  const size_t element = elementBytes(output.type);
  for (int k = 0; k < count; ++k)
    require(inputs[k].type == output.type, op,
            "operands and output must share one element type");
  size_t row = static_cast<size_t>(out[axis] * inner) * element;
  size_t column = 0;
  for (int k = 0; k < count; ++k) {
    size_t block = static_cast<size_t>(inputs[k].dim(axis) * inner) * element;
    MEMOPT_CUDA_CHECK(op, cudaMemcpy2DAsync(
                              reinterpret_cast<char *>(output.data) + column,
                              row, inputs[k].data, block, block,
                              static_cast<size_t>(outer),
                              cudaMemcpyDeviceToDevice, cuda::stream()));
    column += block;
  }
}

void slice(ConstTensor input, Tensor output, const Dims &starts,
           const Dims &ends, const Dims &steps) {
  const char *op = "slice";
  requireShape(op, "output", output.shape,
               sliceShape(op, input.shape, starts, ends, steps));
  Dims strides;
  int64_t base = sliceStrides(input.shape, starts, steps, strides);
  gather(op, input, output, strides, base);
}

void sliceBackward(ConstTensor gradOutput, Tensor gradInput,
                   const Dims &starts, const Dims &ends, const Dims &steps) {
  const char *op = "slice_backward";
  requireShape(op, "grad_output", gradOutput.shape,
               sliceShape(op, gradInput.shape, starts, ends, steps));
  zero(op, gradInput);
  Dims strides;
  int64_t base = sliceStrides(gradInput.shape, starts, steps, strides);
  int64_t n = gradOutput.numel();
  scatterKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, gradOutput), cuda::store(op, gradInput),
      IndexMap(gradOutput.shape, strides),
      base, n);
  checkLaunch(op);
}

void pad(ConstTensor input, Tensor output, const Dims &pads, PadMode mode,
         double value) {
  const char *op = "pad";
  const Dims &in = input.shape;
  Dims expected = padShape(op, in, pads, mode);
  requireShape(op, "output", output.shape, expected);
  PadGeometry g{in.size, {}, {}, {}, {}, mode, static_cast<float>(value)};
  Dims strides = contiguousStrides(in);
  for (int i = 0; i < in.size; ++i) {
    g.in[i] = in[i];
    g.out[i] = expected[i];
    g.before[i] = pads[i];
    g.stride[i] = strides[i];
  }
  int64_t n = output.numel();
  padKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output), g, n);
  checkLaunch(op);
}

void constant(const float *values, Tensor output) {
  // Pageable host memory: the copy is staged, and `values` is static.
  MEMOPT_CUDA_CHECK("constant",
                    cudaMemcpyAsync(output.data, values, output.bytes(),
                                    cudaMemcpyHostToDevice, cuda::stream()));
}

void reshape(ConstTensor input, Tensor output) {
  require(input.numel() == output.numel(), "reshape", "element counts differ");
  require(input.type == output.type, "reshape",
          "input and output must share one element type");
  if (output.data != input.data)
    MEMOPT_CUDA_CHECK("reshape",
                      cudaMemcpyAsync(output.data, input.data, output.bytes(),
                                      cudaMemcpyDeviceToDevice,
                                      cuda::stream()));
}

void transpose(ConstTensor input, Tensor output, const Dims &perm) {
  const char *op = "transpose";
  Dims strides;
  requireShape(op, "output", output.shape,
               transposeShape(op, input.shape, perm, strides));
  gather(op, input, output, strides, 0);
}

void broadcast(ConstTensor input, Tensor output) {
  gather("broadcast", input, output,
         broadcastStrides("broadcast", input.shape, output.shape), 0);
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
