//===- Common.h - Helpers shared by the runtime's kernels -------*- C++ -*-===//
//
// Argument checks that abort with the kernel's name, the shape rules of
// the pooling, resize, slice and reduction kernels, the strided index walk
// that the broadcasting, transposing and reducing kernels share, the
// parallel loop and the fixed-order sums that keep multi-threaded kernels
// deterministic. Private to the runtime libraries: the CPU kernels and the
// host side of the CUDA kernels (lib/Runtime/CUDA) both use the checks and
// shape rules, so that both backends treat their arguments the same way.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_COMMON_H
#define MEMOPT_LIB_RUNTIME_CPU_COMMON_H

#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace memopt::rt::detail {

/// Which low-precision convolutions the process has run (Conv.cpp):
/// "onednn-native" (oneDNN's bf16 primitives, f32 accumulation),
/// "convert-compute-convert" (f32 copies in the workspace: f16, or bf16
/// on a CPU without AVX-512), both joined by "+", or null when none ran.
const char *lowPrecisionConvolutions();

/// Whether an update skipped a non-finite gradient since the last call
/// (Optimizer.cpp); clears the flag.
bool takeSkippedUpdate();

/// Prints "memopt runtime: <kernel>: <message>" to stderr and aborts.
[[noreturn]] void fatal(const char *kernel, const std::string &message);

/// Aborts through `fatal` unless `condition` holds.
inline void require(bool condition, const char *kernel, const char *message) {
  if (!condition)
    fatal(kernel, message);
}

/// "2x3x4", for messages.
std::string shapeString(const Dims &shape);

/// Aborts unless `tensor` has `expected` as its shape.
void requireShape(const char *kernel, const char *name, const Dims &actual,
                  const Dims &expected);

/// Aborts unless `tensor` has rank `rank`.
void requireRank(const char *kernel, const char *name, const Dims &shape,
                 int rank);

/// The strides, in elements, with which `operand` (a row-major tensor of
/// shape `operand`) is read at the indices of a tensor of shape `target`
/// under NumPy broadcasting: 0 along the broadcast axes. Aborts unless
/// `operand` broadcasts to `target`.
Dims broadcastStrides(const char *kernel, const Dims &operand,
                      const Dims &target);

/// The output shape of a 2-D pooling of `input` (N x C x H x W), after
/// checking the window attributes.
Dims poolShape(const char *kernel, const Dims &input, const Dims &size,
               const Dims &strides, const Dims &pads, const Dims &dilations,
               bool ceilMode);

/// Aborts unless `shape` is N x C x 1 to 3 spatial axes (rank 3 to 5): the
/// ranks of the window ops.
void requireSpatialRank(const char *kernel, const Dims &shape);

/// The output shape of tg.global_avg_pool of `input` (N x C x 1 to 3
/// spatial axes): N x C x 1 ... x 1.
Dims globalPoolShape(const char *kernel, const Dims &input);

/// Checks that `output` is `input` (N x C x 1 to 3 spatial axes) resized
/// by `scales`.
void checkResizeShapes(const char *kernel, const Dims &input,
                       const Dims &output, const Scales &scales);

/// The shape of a strided slice of `input`, after checking the attributes.
Dims sliceShape(const char *kernel, const Dims &input, const Dims &starts,
                const Dims &ends, const Dims &steps);
/// The input strides (in `strides`) and first offset (returned) with which
/// a slice reads its input.
int64_t sliceStrides(const Dims &input, const Dims &starts, const Dims &steps,
                     Dims &strides);

/// A reduction split into the kept axes (one output element per index)
/// and the reduced ones, with the input strides of each.
struct ReduceAxes {
  Dims keptShape, keptStrides, reducedShape, reducedStrides;
};
/// Checks `axes` (sorted, distinct; empty means all) and that `output` is
/// the reduced shape of `input`.
ReduceAxes reduceAxes(const char *kernel, const Dims &input,
                      const Dims &output, const Dims &axes, bool keepdims);

/// Checks the `count` operands of a concat along `axis` against `output`;
/// `outer` and `inner` are the products of the output's dimensions before
/// and after the axis.
void concatLayout(const char *kernel, const ConstTensor *inputs, int count,
                  const Dims &output, int64_t axis, int64_t &outer,
                  int64_t &inner);

/// The shape of `input` padded by `pads` (begins, then ends) in `mode`,
/// after checking them.
Dims padShape(const char *kernel, const Dims &input, const Dims &pads,
              PadMode mode);

/// The outer x axis x inner view of a gather of `input` along `axis` by
/// `count` indices into `output` (or of its gradient, with the roles of the
/// shapes kept): the products of input's dimensions before and after the
/// axis, and the axis's extent.
struct GatherLayout {
  int64_t outer, extent, inner;
};
/// Checks `axis`, every index and that `output` is `input` with the axis
/// replaced by an index shape of `count` elements.
GatherLayout gatherLayout(const char *kernel, const Dims &input,
                          const Dims &output, int64_t axis,
                          const int64_t *indices, int64_t count);
/// The inverse of gather's indices, for its gradient: the k with
/// indices[k] = j are positions[offsets[j]] .. positions[offsets[j + 1] - 1],
/// ascending. `offsets` has extent + 1 values and `positions` count.
void invertGatherIndices(const int64_t *indices, int64_t count, int64_t extent,
                         int64_t *offsets, int64_t *positions);

/// The shape of `input` transposed by `perm`, after checking it; `strides`
/// gets the input stride read along each output axis.
Dims transposeShape(const char *kernel, const Dims &input, const Dims &perm,
                    Dims &strides);

/// The M, K and N of a matmul (batched, broadcasting) or a gemm, after
/// checking the shapes.
void matmulSizes(const char *kernel, const Dims &lhs, const Dims &rhs,
                 const Dims &output, int64_t &m, int64_t &k, int64_t &n);
void gemmSizes(const char *kernel, const Dims &a, const Dims &b,
               const Dims &output, bool transA, bool transB, int64_t &m,
               int64_t &k, int64_t &n);

/// The checks of tg.cast (Kernels.h) on both backends: one shape, and no
/// aliasing unless the types agree.
void checkCast(const ConstTensor &input, const Tensor &output);

/// The checks of tg.prelu (`gradOutput` absent) and tg.prelu_backward on
/// both backends: shapes, and one element type for every tensor (f32, or
/// bf16 / f16 under mixed precision, which casts the slope with the
/// input). Returns the strides with which the slope broadcasts to the
/// input.
Dims checkPRelu(const char *kernel, const ConstTensor &gradOutput,
                const ConstTensor &input, const ConstTensor &slope,
                const Tensor &output);

/// Aborts unless every per-channel tensor of a normalization (scale, bias,
/// statistics and their gradients) in `channels` is f32, whatever the
/// activations' type.
void requireF32Channels(const char *kernel,
                        std::initializer_list<ElementType> channels);

/// Checks the operands of an SGD / Adam update (Kernels.h).
void checkSgdUpdate(const ConstTensor &param, const ConstTensor &grad,
                    const ConstTensor &momentumBuffer, int64_t step,
                    const Tensor &newParam, const Tensor &newMomentumBuffer,
                    double lr, double momentum, double dampening,
                    double weightDecay, bool nesterov);
void checkAdamUpdate(const ConstTensor &param, const ConstTensor &grad,
                     const ConstTensor &expAvg, const ConstTensor &expAvgSq,
                     int64_t step, const Tensor &newParam,
                     const Tensor &newExpAvg, const Tensor &newExpAvgSq,
                     double lr, double beta1, double beta2, double eps,
                     double weightDecay);

/// Walks the row-major indices of `shape` and keeps, for up to three
/// operands, the element offset under per-axis `strides`. Usage:
///   for (StridedWalk w(shape, sa, sb); !w.done(); w.next()) use(w.offset(0));
class StridedWalk {
public:
  StridedWalk(const Dims &shape, const Dims &stridesA,
              const Dims &stridesB = Dims(), const Dims &stridesC = Dims());
  bool done() const { return remaining == 0; }
  int64_t offset(int operand) const { return offsets[operand]; }
  /// The flat row-major index of the current position.
  int64_t index() const { return position; }
  void next();

private:
  static constexpr int kOperands = 3;
  Dims shape, strides[kOperands], counter;
  int64_t offsets[kOperands] = {0, 0, 0};
  int64_t position = 0;
  int64_t remaining;
};

/// Loops with less work than this (in elements touched) run on the calling
/// thread: below it, waking the OpenMP team costs more than it saves.
constexpr int64_t kMinParallelWork = int64_t(1) << 15;

/// Calls `body(begin, end)` on disjoint ranges that cover [0, count), in
/// parallel on the OpenMP threads (OMP_NUM_THREADS, shared with oneDNN) when
/// `work` reaches kMinParallelWork. Items are split statically into one
/// contiguous range per thread: `body` must give the same results for any
/// split, i.e. the items must be independent (no reduction across items).
template <typename Body>
void parallelFor(int64_t count, int64_t work, Body body) {
#ifdef _OPENMP
  if (work >= kMinParallelWork && count > 1 && omp_get_max_threads() > 1) {
#pragma omp parallel
    {
      int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      int64_t begin = count * t / threads, end = count * (t + 1) / threads;
      if (begin < end)
        body(begin, end);
    }
    return;
  }
#endif
  body(int64_t(0), count);
}

/// Calls `f(i)` for every i in [0, count), where element i costs about one
/// element touched; parallel as parallelFor.
template <typename F> void parallelForEach(int64_t count, F f) {
  parallelFor(count, count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      f(i);
  });
}

/// `Count` sums in double of values given in order, each accumulated in
/// kLanes interleaved partial sums (value i goes to lane i mod kLanes) that
/// `total` adds pairwise. The order is fixed by the count of values alone,
/// independent of threads and instruction set, and the compiler vectorizes
/// `add`. Several sums share one pass over the data.
template <int Count> class LaneSums {
public:
  static constexpr int kLanes = 8;
  using Terms = std::array<double, Count>;

  /// Adds term(0), ..., term(n - 1), each giving one value per sum.
  template <typename Term> void add(int64_t n, Term term) {
    int64_t i = 0;
    // Continue at the lane where the previous call stopped.
    for (; i < n && next != 0; ++i, next = (next + 1) % kLanes)
      addAt(next, term(i));
    for (; i + kLanes <= n; i += kLanes)
      for (int j = 0; j < kLanes; ++j)
        addAt(j, term(i + j));
    for (; i < n; ++i, next = (next + 1) % kLanes)
      addAt(next, term(i));
  }

  double total(int sum = 0) const {
    double t[kLanes];
    for (int j = 0; j < kLanes; ++j)
      t[j] = lanes[sum][j];
    for (int width = kLanes / 2; width > 0; width /= 2)
      for (int j = 0; j < width; ++j)
        t[j] += t[j + width];
    return t[0];
  }

private:
  void addAt(int lane, const Terms &terms) {
    for (int k = 0; k < Count; ++k)
      lanes[k][lane] += terms[k];
  }

  double lanes[Count][kLanes] = {};
  int next = 0;
};

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_COMMON_H
