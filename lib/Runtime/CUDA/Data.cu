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
// Pooling and resize take 1 to 3 spatial axes (rank 3 to 5) and compute
// every one as a 3-D one over (depth, height, width), the axes a 1-D or
// 2-D one lacks as unit leading axes, as the CPU kernels do. Pad, slice,
// transpose, broadcast and the reductions take any rank up to kMaxRank.
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

/// The shapes and window of a pooling, passed to kernels by value. Every
/// pooling is a 3-D one (depth, height, width): 1-D and 2-D ones have unit
/// leading axes (one-position windows, no pads), as on the CPU
/// (lib/Runtime/CPU/Pooling.cpp).
struct Window {
  int64_t planes;
  int64_t in[3], out[3], kernel[3], strides[3], dilations[3], padBegin[3],
      padEnd[3];

  __host__ __device__ int64_t inVolume() const { return in[0] * in[1] * in[2]; }
  __host__ __device__ int64_t outVolume() const {
    return out[0] * out[1] * out[2];
  }

  /// The first input position along `axis` of max window `o` inside the
  /// input, and the end of its taps.
  __device__ void taps(int axis, int64_t o, int64_t &first,
                       int64_t &end) const {
    first = o * strides[axis] - padBegin[axis];
    end = min(first + (kernel[axis] - 1) * dilations[axis] + 1, in[axis]);
    while (first < 0)
      first += dilations[axis];
  }

  /// The flat index in its volume of the maximum of window (od, oh, ow),
  /// or -1 when the window covers no input position (the CPU's rules:
  /// first maximum in row-major (d, h, w) order, a NaN wins).
  __device__ int64_t argmax(cuda::Load volume, int64_t od, int64_t oh,
                            int64_t ow) const {
    int64_t d0, d1, h0, h1, w0, w1;
    taps(0, od, d0, d1);
    taps(1, oh, h0, h1);
    taps(2, ow, w0, w1);
    int64_t best = -1;
    float bestValue = -INFINITY;
    for (int64_t d = d0; d < d1; d += dilations[0])
      for (int64_t h = h0; h < h1; h += dilations[1])
        for (int64_t x = w0; x < w1; x += dilations[2]) {
          int64_t index = (d * in[1] + h) * in[2] + x;
          float v = volume[index];
          if (best < 0 || v > bestValue || isnan(v)) {
            best = index;
            bestValue = v;
          }
        }
    return best;
  }

  /// The clipped extent [first[a], end[a]) of average window `o` along
  /// each axis and its divisor.
  __device__ void average(const int64_t o[3], bool countIncludePad,
                          int64_t first[3], int64_t end[3],
                          double &divisor) const {
    int64_t padded = 1, covered = 1;
    for (int a = 0; a < 3; ++a) {
      first[a] = o[a] * strides[a] - padBegin[a];
      end[a] = min(first[a] + kernel[a], in[a] + padEnd[a]);
      padded *= end[a] - first[a];
      first[a] = max(first[a], int64_t(0));
      end[a] = min(end[a], in[a]);
      covered *= end[a] - first[a];
    }
    divisor = static_cast<double>(countIncludePad ? padded : covered);
  }

  /// The output positions along `axis` whose window may cover input
  /// position `i`: [first, last], clamped to the output.
  __device__ void candidates(int axis, int64_t i, int64_t &first,
                             int64_t &last) const {
    int64_t reach = (kernel[axis] - 1) * dilations[axis];
    int64_t lo = i + padBegin[axis] - reach;
    first = lo <= 0 ? 0 : (lo + strides[axis] - 1) / strides[axis];
    last = min((i + padBegin[axis]) / strides[axis], out[axis] - 1);
  }

  /// The coordinates (d, h, w) of flat position `index` in a volume of
  /// `extent`.
  __device__ static void coordinates(int64_t index, const int64_t extent[3],
                                     int64_t c[3]) {
    c[2] = index % extent[2];
    c[1] = index / extent[2] % extent[1];
    c[0] = index / (extent[2] * extent[1]);
  }
};

/// The window of a pooling of `input` (N x C x 1 to 3 spatial axes) into
/// `output`; poolShape checks the rank and the attributes. Average pooling
/// has no dilations (null: 1 along every axis of `size`).
Window makeWindow(const char *op, const Dims &input, const Dims &output,
                  const Dims &size, const Dims &strides, const Dims &pads,
                  const Dims *dilationsOrNull, bool ceilMode) {
  Dims dilations = dilationsOrNull ? *dilationsOrNull : size;
  for (int i = 0; !dilationsOrNull && i < dilations.size; ++i)
    dilations[i] = 1;
  Dims expected =
      poolShape(op, input, size, strides, pads, dilations, ceilMode);
  requireShape(op, "output", output, expected);
  int axes = input.size - 2, lead = 3 - axes;
  Window w{input[0] * input[1], {}, {}, {}, {}, {}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    bool present = a >= lead;
    int i = a - lead;
    w.in[a] = present ? input[2 + i] : 1;
    w.out[a] = present ? expected[2 + i] : 1;
    w.kernel[a] = present ? size[i] : 1;
    w.strides[a] = present ? strides[i] : 1;
    w.dilations[a] = present ? dilations[i] : 1;
    w.padBegin[a] = present ? pads[i] : 0;
    w.padEnd[a] = present ? pads[axes + i] : 0;
  }
  return w;
}

__global__ void maxPoolKernel(cuda::Load in, cuda::Store out, Window w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outVolume()) {
    int64_t p = i / w.outVolume(), o[3];
    Window::coordinates(i % w.outVolume(), w.out, o);
    cuda::Load volume = in + p * w.inVolume();
    int64_t best = w.argmax(volume, o[0], o[1], o[2]);
    out.set(i, best < 0 ? -INFINITY : volume[best]);
  }
}

__global__ void maxPoolGradKernel(cuda::Load dy, cuda::Load in,
                                  cuda::Store dx, Window w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inVolume()) {
    int64_t p = i / w.inVolume(), index = i % w.inVolume(), c[3];
    Window::coordinates(index, w.in, c);
    cuda::Load volume = in + p * w.inVolume();
    cuda::Load grad = dy + p * w.outVolume();
    int64_t first[3], last[3];
    for (int a = 0; a < 3; ++a)
      w.candidates(a, c[a], first[a], last[a]);
    float sum = 0;
    for (int64_t od = first[0]; od <= last[0]; ++od)
      for (int64_t oh = first[1]; oh <= last[1]; ++oh)
        for (int64_t ow = first[2]; ow <= last[2]; ++ow)
          if (w.argmax(volume, od, oh, ow) == index)
            sum += grad[(od * w.out[1] + oh) * w.out[2] + ow];
    dx.set(i, sum);
  }
}

__global__ void avgPoolKernel(cuda::Load in, cuda::Store out, Window w,
                              bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outVolume()) {
    int64_t p = i / w.outVolume(), o[3];
    Window::coordinates(i % w.outVolume(), w.out, o);
    cuda::Load volume = in + p * w.inVolume();
    int64_t first[3], end[3];
    double divisor;
    w.average(o, countIncludePad, first, end, divisor);
    double sum = 0;
    for (int64_t d = first[0]; d < end[0]; ++d)
      for (int64_t h = first[1]; h < end[1]; ++h)
        for (int64_t x = first[2]; x < end[2]; ++x)
          sum += volume[(d * w.in[1] + h) * w.in[2] + x];
    out.set(i, static_cast<float>(sum / divisor));
  }
}

__global__ void avgPoolGradKernel(cuda::Load dy, cuda::Store dx, Window w,
                                  bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inVolume()) {
    int64_t p = i / w.inVolume(), c[3];
    Window::coordinates(i % w.inVolume(), w.in, c);
    cuda::Load grad = dy + p * w.outVolume();
    int64_t from[3], to[3];
    for (int a = 0; a < 3; ++a)
      w.candidates(a, c[a], from[a], to[a]);
    float sum = 0;
    int64_t o[3];
    for (o[0] = from[0]; o[0] <= to[0]; ++o[0])
      for (o[1] = from[1]; o[1] <= to[1]; ++o[1])
        for (o[2] = from[2]; o[2] <= to[2]; ++o[2]) {
          int64_t first[3], end[3];
          double divisor;
          w.average(o, countIncludePad, first, end, divisor);
          bool covers = true;
          for (int a = 0; a < 3; ++a)
            covers = covers && first[a] <= c[a] && c[a] < end[a];
          if (covers)
            sum += static_cast<float>(
                grad[(o[0] * w.out[1] + o[1]) * w.out[2] + o[2]] / divisor);
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

/// One axis of a resize: extents, scale and modes, by value. An axis the
/// resize lacks (the leading ones of a 1-D or 2-D resize) is absent: one
/// position, read with weight 1.
struct ResizeAxis {
  bool present;
  int64_t in, out;
  double scale;
  ResizeMode mode;
  CoordinateMode coordinateMode;
  NearestMode nearestMode;

  /// The input positions output position `x` reads and their weights.
  __device__ detail::ResizeTaps taps(int64_t x) const {
    if (!present)
      return {{0, 0}, {1.0f, 0.0f}};
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

/// A resize over (depth, height, width), as on the CPU
/// (lib/Runtime/CPU/Resize.cpp): `axes` of them present, the last ones.
struct ResizeGeometry {
  int axes;
  int64_t planes;
  ResizeAxis d, h, w;

  __device__ int64_t inVolume() const { return d.in * h.in * w.in; }
  __device__ int64_t outVolume() const { return d.out * h.out * w.out; }
};

/// checkResizeShapes checks the rank (N x C x 1 to 3 spatial axes) and
/// the scales.
ResizeGeometry checkResize(const char *op, const Dims &input,
                           const Dims &output, ResizeMode mode,
                           CoordinateMode coordinateMode,
                           NearestMode nearestMode, const Scales &scales) {
  checkResizeShapes(op, input, output, scales);
  int axes = input.size - 2, lead = 3 - axes;
  auto axis = [&](int a) -> ResizeAxis {
    if (a < lead)
      return {false, 1, 1, 1.0, mode, coordinateMode, nearestMode};
    int i = a - lead;
    return {true, input[2 + i],   output[2 + i], scales[i],
            mode, coordinateMode, nearestMode};
  };
  return {axes, input[0] * input[1], axis(0), axis(1), axis(2)};
}

__global__ void resizeKernel(cuda::Load in, cuda::Store out,
                             ResizeGeometry g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.outVolume()) {
    int64_t p = i / g.outVolume(), o = i % g.outVolume();
    cuda::Load volume = in + p * g.inVolume();
    detail::ResizeTaps td = g.d.taps(o / (g.h.out * g.w.out));
    detail::ResizeTaps th = g.h.taps(o / g.w.out % g.h.out);
    detail::ResizeTaps tw = g.w.taps(o % g.w.out);
    auto row = [&](int a, int b) {
      return volume + (td.index[a] * g.h.in + th.index[b]) * g.w.in;
    };
    if (g.w.mode == ResizeMode::Nearest) {
      out.set(i, row(0, 0)[tw.index[0]]);
      continue;
    }
    // Linear along each axis, innermost first (the CPU's order).
    auto line = [&](cuda::Load r) {
      return tw.weight[0] * r[tw.index[0]] + tw.weight[1] * r[tw.index[1]];
    };
    auto slice = [&](int a) {
      if (g.axes == 1)
        return line(row(a, 0));
      return th.weight[0] * line(row(a, 0)) + th.weight[1] * line(row(a, 1));
    };
    out.set(i, g.axes < 3 ? slice(0)
                          : td.weight[0] * slice(0) + td.weight[1] * slice(1));
  }
}

__global__ void resizeGradKernel(cuda::Load dy, cuda::Store dx,
                                 ResizeGeometry g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.inVolume()) {
    int64_t p = i / g.inVolume(), index = i % g.inVolume();
    int64_t x = index % g.w.in, h = index / g.w.in % g.h.in,
            d = index / (g.w.in * g.h.in);
    cuda::Load grad = dy + p * g.outVolume();
    int64_t od0, od1, oh0, oh1, ow0, ow1;
    g.d.candidates(d, od0, od1);
    g.h.candidates(h, oh0, oh1);
    g.w.candidates(x, ow0, ow1);
    float sum = 0;
    for (int64_t od = od0; od <= od1; ++od) {
      float wd = g.d.weightOf(od, d);
      if (wd == 0)
        continue;
      for (int64_t oh = oh0; oh <= oh1; ++oh) {
        float wh = g.h.weightOf(oh, h);
        if (wh == 0)
          continue;
        for (int64_t ow = ow0; ow <= ow1; ++ow) {
          float ww = g.w.weightOf(ow, x);
          if (ww != 0)
            sum += wd * wh * ww * grad[(od * g.h.out + oh) * g.w.out + ow];
        }
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
  Window w = makeWindow("max_pool", input.shape, output.shape, kernel, strides,
                        pads, &dilations, ceilMode);
  maxPoolKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("max_pool", input), cuda::store("max_pool", output), w);
  checkLaunch("max_pool");
}

void maxPoolBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, const Dims &kernel, const Dims &strides, const Dims &pads,
                       const Dims &dilations, bool ceilMode) {
  const char *op = "max_pool_backward";
  Window w = makeWindow(op, input.shape, gradOutput.shape, kernel, strides,
                        pads, &dilations, ceilMode);
  requireShape(op, "grad_input", gradInput.shape, input.shape);
  maxPoolGradKernel<<<launchBlocks(gradInput.numel()), kLaunchThreads, 0,
                      cuda::stream()>>>(cuda::load(op, gradOutput),
                                        cuda::load(op, input),
                                        cuda::store(op, gradInput), w);
  checkLaunch(op);
}

void avgPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, bool ceilMode, bool countIncludePad) {
  Window w = makeWindow("avg_pool", input.shape, output.shape, kernel, strides,
                        pads, nullptr, ceilMode);
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
                        pads, nullptr, ceilMode);
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
