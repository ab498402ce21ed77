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
// 2-D one lacks as unit leading axes, as the CPU kernels do (pooling:
// include/memopt/Runtime/CUDA/PoolWindow.h, resize: ResizeGrid.h; both
// unit-tested on the host).
// Pad, slice, gather, transpose, broadcast and the reductions take any
// rank up to kMaxRank. Gather's indices are host arrays of the generated
// file; each is copied to the device once, with its inverse
// (deviceIndices).
//
// Every kernel here reads and writes the tensors' own element type (f32,
// or bf16 / f16 under mixed precision) through Load / Store, computing in
// f32; the copies (concat, reshape, constant) move the elements' bytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/PoolWindow.h"
#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "../CPU/IndexMath.h"
#include "KernelSupport.cuh"
#include "ResizeGrid.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

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

/// The window of a pooling of `input` (N x C x 1 to 3 spatial axes) into
/// `output` (PoolWindow.h); poolShape checks the rank and the attributes.
/// Average pooling has no dilations (null: 1 along every axis of `size`).
cuda::PoolWindow makeWindow(const char *op, const Dims &input,
                            const Dims &output, const Dims &size,
                            const Dims &strides, const Dims &pads,
                            const Dims *dilationsOrNull, bool ceilMode) {
  Dims dilations = dilationsOrNull ? *dilationsOrNull : size;
  for (int i = 0; !dilationsOrNull && i < dilations.size; ++i)
    dilations[i] = 1;
  Dims expected =
      poolShape(op, input, size, strides, pads, dilations, ceilMode);
  requireShape(op, "output", output, expected);
  return cuda::poolWindow(input, expected, size, strides, pads, dilations);
}

__global__ void maxPoolKernel(cuda::Load in, cuda::Store out,
                              cuda::PoolWindow w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outVolume()) {
    int64_t p = i / w.outVolume();
    out.set(i, w.maxAt(in + p * w.inVolume(), i % w.outVolume()));
  }
}

__global__ void maxPoolGradKernel(cuda::Load dy, cuda::Load in, cuda::Store dx,
                                  cuda::PoolWindow w) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inVolume()) {
    int64_t p = i / w.inVolume();
    dx.set(i, w.maxGradAt(in + p * w.inVolume(), dy + p * w.outVolume(),
                          i % w.inVolume()));
  }
}

__global__ void avgPoolKernel(cuda::Load in, cuda::Store out,
                              cuda::PoolWindow w, bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.outVolume()) {
    int64_t p = i / w.outVolume();
    out.set(i, w.averageAt(in + p * w.inVolume(), i % w.outVolume(),
                           countIncludePad));
  }
}

__global__ void avgPoolGradKernel(cuda::Load dy, cuda::Store dx,
                                  cuda::PoolWindow w, bool countIncludePad) {
  MEMOPT_GRID_LOOP(i, w.planes * w.inVolume()) {
    int64_t p = i / w.inVolume();
    dx.set(i, w.averageGradAt(dy + p * w.outVolume(), i % w.inVolume(),
                              countIncludePad));
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

/// The grid of a resize (ResizeGrid.h); checkResizeShapes checks the rank
/// (N x C x 1 to 3 spatial axes) and the scales.
cuda::ResizeGrid checkResize(const char *op, const Dims &input,
                             const Dims &output, ResizeMode mode,
                             CoordinateMode coordinateMode,
                             NearestMode nearestMode, const Scales &scales) {
  checkResizeShapes(op, input, output, scales);
  return cuda::resizeGrid(input, output, mode, coordinateMode, nearestMode,
                          scales);
}

__global__ void resizeKernel(cuda::Load in, cuda::Store out,
                             cuda::ResizeGrid g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.outVolume()) {
    int64_t p = i / g.outVolume();
    out.set(i, g.valueAt(in + p * g.inVolume(), i % g.outVolume()));
  }
}

__global__ void resizeGradKernel(cuda::Load dy, cuda::Store dx,
                                 cuda::ResizeGrid g) {
  MEMOPT_GRID_LOOP(i, g.planes * g.inVolume()) {
    int64_t p = i / g.inVolume();
    dx.set(i, g.gradAt(dy + p * g.outVolume(), i % g.inVolume()));
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

/// The gradient of a pad, gathered: one thread per input element sums the
/// padded positions that copied it (padGradient, shared with the CPU).
__global__ void padBackwardKernel(cuda::Load dy, cuda::Store dx, Dims in,
                                  Dims pads, Dims outStrides, PadMode mode,
                                  int64_t n) {
  MEMOPT_GRID_LOOP(i, n) {
    int64_t coords[kMaxRank];
    int64_t rest = i;
    for (int a = in.size - 1; a >= 0; --a) {
      coords[a] = rest % in.values[a];
      rest /= in.values[a];
    }
    // Dims' accessors are host code: read its arrays directly.
    dx.set(i, padGradient(dy, in.size, coords, in.values, pads.values,
                          outStrides.values, mode));
  }
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

__global__ void gatherKernel(cuda::Load in, cuda::Store out,
                             const int64_t *indices, GatherLayout l,
                             int64_t count, int64_t n) {
  MEMOPT_GRID_LOOP(e, n) {
    int64_t i = e % l.inner, k = e / l.inner % count,
            o = e / (l.inner * count);
    out.set(e, in[(o * l.extent + indices[k]) * l.inner + i]);
  }
}

/// The gradient of a gather, gathered: one thread per input element sums
/// the index positions that read it (gatherGradient, shared with the CPU).
__global__ void gatherBackwardKernel(cuda::Load dy, cuda::Store dx,
                                     const int64_t *offsets,
                                     const int64_t *positions, GatherLayout l,
                                     int64_t count, int64_t n) {
  MEMOPT_GRID_LOOP(e, n) {
    int64_t i = e % l.inner, j = e / l.inner % l.extent,
            o = e / (l.inner * l.extent);
    dx.set(e, gatherGradient(dy, offsets, positions, o, j, i, count, l.inner));
  }
}

/// A gather's indices on the device, with their inverse for the gradient
/// (invertGatherIndices): `indices` (count values), `offsets` (extent + 1)
/// and `positions` (count), in one allocation.
struct DeviceIndices {
  const int64_t *indices, *offsets, *positions;
};

/// The device copy of a host index array of the generated file. Each array
/// is uploaded (and inverted) at its first call and kept for the process:
/// 8 bytes per index, twice, and 8 per position of the axis, outside the
/// memory plan. The host contents are compared at every call, so an array
/// whose contents change (a test's buffer) is uploaded again.
DeviceIndices deviceIndices(const char *op, const int64_t *indices,
                            int64_t count, int64_t extent) {
  struct Entry {
    std::vector<int64_t> host; // indices, offsets, positions
    int64_t *device = nullptr;
  };
  static std::mutex mutex;
  static std::map<std::pair<const int64_t *, int64_t>, Entry> cache;
  std::lock_guard<std::mutex> lock(mutex);
  Entry &entry = cache[{indices, extent}];
  const size_t total = 2 * count + extent + 1;
  if (entry.host.size() != total ||
      !std::equal(indices, indices + count, entry.host.begin())) {
    if (entry.device)
      MEMOPT_CUDA_CHECK(op, cudaFree(entry.device));
    entry.host.assign(total, 0);
    std::copy(indices, indices + count, entry.host.begin());
    invertGatherIndices(indices, count, extent, entry.host.data() + count,
                        entry.host.data() + count + extent + 1);
    MEMOPT_CUDA_CHECK(op, cudaMalloc(&entry.device, total * sizeof(int64_t)));
    // The entry's host copy outlives the asynchronous copy.
    MEMOPT_CUDA_CHECK(op, cudaMemcpyAsync(entry.device, entry.host.data(),
                                          total * sizeof(int64_t),
                                          cudaMemcpyHostToDevice,
                                          cuda::stream()));
  }
  return {entry.device, entry.device + count,
          entry.device + count + extent + 1};
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
  cuda::PoolWindow w = makeWindow("max_pool", input.shape, output.shape, kernel,
                                  strides, pads, &dilations, ceilMode);
  maxPoolKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("max_pool", input), cuda::store("max_pool", output), w);
  checkLaunch("max_pool");
}

void maxPoolBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, const Dims &kernel, const Dims &strides, const Dims &pads,
                       const Dims &dilations, bool ceilMode) {
  const char *op = "max_pool_backward";
  cuda::PoolWindow w = makeWindow(op, input.shape, gradOutput.shape, kernel,
                                  strides, pads, &dilations, ceilMode);
  requireShape(op, "grad_input", gradInput.shape, input.shape);
  maxPoolGradKernel<<<launchBlocks(gradInput.numel()), kLaunchThreads, 0,
                      cuda::stream()>>>(cuda::load(op, gradOutput),
                                        cuda::load(op, input),
                                        cuda::store(op, gradInput), w);
  checkLaunch(op);
}

void avgPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, bool ceilMode, bool countIncludePad) {
  cuda::PoolWindow w = makeWindow("avg_pool", input.shape, output.shape, kernel,
                                  strides, pads, nullptr, ceilMode);
  avgPoolKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("avg_pool", input), cuda::store("avg_pool", output), w,
      countIncludePad);
  checkLaunch("avg_pool");
}

void avgPoolBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &kernel,
                       const Dims &strides, const Dims &pads, bool ceilMode,
                       bool countIncludePad) {
  const char *op = "avg_pool_backward";
  cuda::PoolWindow w = makeWindow(op, gradInput.shape, gradOutput.shape, kernel,
                                  strides, pads, nullptr, ceilMode);
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
  cuda::ResizeGrid g = checkResize("resize", input.shape, output.shape, mode,
                                   coordinateMode, nearestMode, scales);
  resizeKernel<<<launchBlocks(output.numel()), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load("resize", input), cuda::store("resize", output), g);
  checkLaunch("resize");
}

void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    const Scales &scales) {
  const char *op = "resize_backward";
  cuda::ResizeGrid g = checkResize(op, gradInput.shape, gradOutput.shape, mode,
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

void padBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &pads,
                 PadMode mode) {
  const char *op = "pad_backward";
  Dims outShape = padShape(op, gradInput.shape, pads, mode);
  requireShape(op, "grad_output", gradOutput.shape, outShape);
  int64_t n = gradInput.numel();
  if (n == 0)
    return;
  padBackwardKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, gradOutput), cuda::store(op, gradInput), gradInput.shape,
      pads, contiguousStrides(outShape), mode, n);
  checkLaunch(op);
}

void gather(ConstTensor input, Tensor output, int64_t axis,
            const int64_t *indices, int64_t count) {
  const char *op = "gather";
  GatherLayout l =
      gatherLayout(op, input.shape, output.shape, axis, indices, count);
  int64_t n = output.numel();
  if (n == 0)
    return;
  DeviceIndices device = deviceIndices(op, indices, count, l.extent);
  gatherKernel<<<launchBlocks(n), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::load(op, input), cuda::store(op, output), device.indices, l, count,
      n);
  checkLaunch(op);
}

void gatherBackward(ConstTensor gradOutput, Tensor gradInput, int64_t axis,
                    const int64_t *indices, int64_t count) {
  const char *op = "gather_backward";
  GatherLayout l = gatherLayout(op, gradInput.shape, gradOutput.shape, axis,
                                indices, count);
  int64_t n = gradInput.numel();
  if (n == 0)
    return;
  DeviceIndices device = deviceIndices(op, indices, count, l.extent);
  gatherBackwardKernel<<<launchBlocks(n), kLaunchThreads, 0,
                         cuda::stream()>>>(
      cuda::load(op, gradOutput), cuda::store(op, gradInput), device.offsets,
      device.positions, l, count, n);
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
