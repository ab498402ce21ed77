//===- Conv.cpp - Convolutions through cuDNN ------------------------------===//
//
// tg.conv, its data and filter gradients, tg.conv_transpose and its
// filter gradient. A transposed convolution is the data gradient of the
// convolution with the same weight (C x O/groups x kernel read as a
// filter of C outputs), and its filter gradient is that convolution's
// filter gradient with input and output swapped, so three cuDNN calls
// cover the five kernels.
//
// Ranks: 1-D, 2-D and 3-D convolutions (N x C x 1 to 3 spatial axes), on
// cuDNN's N-d descriptors; a 1-D convolution runs as a 2-D one with a
// trailing unit axis (ConvGeometry.h). Bands cut the first spatial axis:
// rows of an image, slabs of depth of a volume, the length of a 1-D
// signal; "row" below means one step along it.
//
// Algorithms: on the first call with a configuration, cuDNN's heuristics
// (cudnnGet*Algorithm_v7) rank the algorithms; the first one that is
// deterministic and needs no more than the workspace the plan reserved
// (its size comes with the workspace: arenaWorkspace in StepSupport.h; the
// full one of ConvWorkspace.h, or the lean one where tg-remat chose it) is
// cached with the descriptors. When none fits, the
// convolution runs in slices of the batch, then in bands of rows, and (for
// the filter gradient) in slices of the output channels, chosen by
// planConvSlices (ConvSlices.h), never in more memory than planned. A band
// (ConvBands.h) is a cuDNN call without height padding on the rows it
// reads: rows of x in place, or (at the top and bottom, where the
// convolution pads) a copy with zero rows at the start of the workspace;
// the data gradient computes a band's halo in the workspace too and keeps
// the band's rows. The choices depend only on the GPU, the cuDNN version
// and the shapes, and every call runs in a fixed order, so runs are
// reproducible.
//
//
// Mixed precision: a convolution's tensors share one element type (f32,
// or bf16 / f16 under tg-amp); cuDNN runs it on that type with float
// accumulation (the convolution descriptor's compute type is always
// CUDNN_DATA_FLOAT), with tensor-op math for bf16 / f16, which is
// deterministic for the deterministic algorithms chosen above. The
// planned workspace and a band's staged rows are sized in the same element
// type (ConvWorkspace.h), as the compiler sized the workspace.
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvBands.h"
#include "memopt/Runtime/CUDA/ConvGeometry.h"
#include "memopt/Runtime/CUDA/ConvSlices.h"
#include "memopt/Runtime/CUDA/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/StepSupport.h"

#include "../CPU/Common.h"
#include "Context.h"
#include "RowCopies.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memopt::rt {
using namespace detail;

namespace {

enum class ConvKind : int64_t {
  Forward,
  BackwardData,
  BackwardFilter,
  TransposedForward,
  TransposedBackwardFilter
};

const char *kernelName(ConvKind kind) {
  switch (kind) {
  case ConvKind::Forward:
    return "conv";
  case ConvKind::BackwardData:
    return "conv_backward_data";
  case ConvKind::BackwardFilter:
    return "conv_backward_filter";
  case ConvKind::TransposedForward:
    return "conv_transpose";
  case ConvKind::TransposedBackwardFilter:
    return "conv_transpose_backward_filter";
  }
  return "conv";
}

/// The cuDNN convolution a kernel runs: `x` is its input, `w` the filter,
/// `y` its output (for a transposed kernel: the transposed op's output,
/// the weight, the transposed op's input).
struct ConvConfig {
  ConvKind kind;
  /// The element type of x, w and y.
  ElementType type;
  /// The spatial axes cuDNN sees (2 or 3; ConvGeometry.h) and the shapes
  /// of rank 2 + axes.
  int axes;
  Dims x, w, y;
  /// One per spatial axis; cuDNN pads both ends of an axis equally.
  cuda::AxisValues strides, dilations, pads;
  int64_t groups;
  /// The channel count of y's memory: y[1], or more when y is a slice of
  /// the output channels of a larger tensor.
  int64_t yChannels;
  /// The rows (first spatial axis: rows of an image, slabs of a volume)
  /// of x's and y's memory: x[2] and y[2], or more when the call covers a
  /// band of the rows of a larger tensor.
  int64_t xRows, yRows;
  /// The bytes at the start of the workspace that hold a band's staged
  /// rows (before cuDNN's workspace); 0 without.
  int64_t scratchBytes;

  using Key = std::array<int64_t, 8 + 3 * (2 + cuda::kMaxConvAxes) +
                                      3 * cuda::kMaxConvAxes>;
  Key key() const {
    Key k{};
    size_t n = 0;
    k[n++] = static_cast<int64_t>(kind);
    k[n++] = static_cast<int64_t>(type);
    k[n++] = axes;
    k[n++] = groups;
    k[n++] = yChannels;
    k[n++] = xRows;
    k[n++] = yRows;
    k[n++] = scratchBytes;
    for (const Dims *d : {&x, &w, &y})
      for (int i = 0; i < 2 + cuda::kMaxConvAxes; ++i)
        k[n++] = i < d->size ? (*d)[i] : 0;
    for (const cuda::AxisValues *values : {&strides, &dilations, &pads})
      for (int64_t v : *values)
        k[n++] = v;
    return k;
  }

  /// What a cuDNN call computes: the forward convolution, its data
  /// gradient or its filter gradient.
  enum class Direction { Forward, Data, Filter };
  Direction direction() const {
    switch (kind) {
    case ConvKind::Forward:
      return Direction::Forward;
    case ConvKind::BackwardData:
    case ConvKind::TransposedForward:
      return Direction::Data;
    case ConvKind::BackwardFilter:
    case ConvKind::TransposedBackwardFilter:
      return Direction::Filter;
    }
    return Direction::Forward;
  }
};

/// Descriptors and the chosen algorithm of one cuDNN call: the whole
/// convolution or one slice of it.
struct ConvCall {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  /// The algorithm, or -1 if no deterministic one fits the workspace.
  int algorithm = -1;
  /// The least workspace a deterministic algorithm needs (SIZE_MAX: none
  /// is deterministic); for the error message when nothing fits.
  size_t smallestBytes = SIZE_MAX;
  /// Whether cuDNN offered any algorithm for these descriptors (none: the
  /// configuration, e.g. bf16 tensors on a GPU without bf16, is not
  /// supported at all).
  bool anySupported = false;
  /// Where cuDNN's workspace starts: after a band's staged rows.
  size_t scratchBytes = 0;
};

/// One band of rows of a convolution and the calls that run it, indexed by
/// [last batch slice][last channel slice] (the last slices may be smaller;
/// null: the band's data gradient is zero, no output reads its rows). An
/// unbanded convolution is one band of all rows.
struct ConvBand {
  /// The rows it covers: of y (forward, filter gradient) or of dx (data
  /// gradient).
  cuda::RowRange rows;
  /// The rows of y / dy its calls cover, and the rows of x / dx they read
  /// or compute (ConvRows::inputsOf(outputs)).
  cuda::RowRange outputs, inputs;
  /// Whether its calls find x's rows, or put dx's, in the workspace.
  bool staged = false;
  const ConvCall *calls[2][2] = {};
};

/// How a configuration runs: its planned workspace, the slices that fit
/// and its bands.
struct ConvPlan {
  size_t workspaceLimit = 0;
  cuda::ConvSlices slices;
  bool banded = false;
  std::vector<ConvBand> bands;
};

cudnnDataType_t cudnnType(const char *op, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return CUDNN_DATA_FLOAT;
  case ElementType::BF16:
    return CUDNN_DATA_BFLOAT16;
  case ElementType::F16:
    return CUDNN_DATA_HALF;
  case ElementType::I64:
    break;
  }
  fatal(op, "takes float tensors (f32, bf16 or f16), not i64");
}

/// `values` as the ints cuDNN's N-d descriptors take.
std::array<int, kMaxRank> toInts(const char *op, const Dims &values) {
  std::array<int, kMaxRank> ints{};
  for (int i = 0; i < values.size; ++i) {
    require(values[i] <= INT32_MAX, op,
            "a dimension exceeds cuDNN's 32-bit descriptors; use a smaller "
            "batch or tile the input");
    ints[i] = static_cast<int>(values[i]);
  }
  return ints;
}

/// An N x C x spatial tensor `d` whose memory has `channels` >= d[1]
/// channels and `rows` >= d[2] rows (a slice of the channels, a band of the
/// rows of a larger tensor; ConvGeometry.h).
cudnnTensorDescriptor_t tensorDescriptor(const char *op, const Dims &d,
                                         int64_t channels, int64_t rows,
                                         ElementType type) {
  cudnnTensorDescriptor_t desc = nullptr;
  MEMOPT_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&desc));
  std::array<int, kMaxRank> dims = toInts(op, d);
  std::array<int, kMaxRank> strides =
      toInts(op, cuda::stridesOf(d, channels, rows));
  MEMOPT_CUDNN_CHECK(op, cudnnSetTensorNdDescriptor(desc, cudnnType(op, type),
                                                    d.size, dims.data(),
                                                    strides.data()));
  return desc;
}

/// Records in `call` the first entry of `results` (ranked by cuDNN) that
/// ran, is deterministic and fits in `limit` bytes, as `exactBytes(algo)`
/// (cuDNN's workspace query for that algorithm) confirms.
template <typename Perf, typename ExactBytes>
void pickAlgorithm(ConvCall &call, const Perf *results, int count,
                   size_t limit, ExactBytes exactBytes) {
  for (int i = 0; i < count; ++i) {
    if (results[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    call.anySupported = true;
    if (results[i].determinism != CUDNN_DETERMINISTIC)
      continue;
    size_t bytes = std::max(results[i].memory, exactBytes(results[i].algo));
    if (bytes <= limit) {
      call.algorithm = static_cast<int>(results[i].algo);
      return;
    }
    call.smallestBytes = std::min(call.smallestBytes, bytes);
  }
}

ConvCall makeCall(const ConvConfig &c, size_t limit) {
  const char *op = kernelName(c.kind);
  ConvCall plan;
  plan.x = tensorDescriptor(op, c.x, c.x[1], c.xRows, c.type);
  plan.y = tensorDescriptor(op, c.y, c.yChannels, c.yRows, c.type);
  MEMOPT_CUDNN_CHECK(op, cudnnCreateFilterDescriptor(&plan.w));
  std::array<int, kMaxRank> filter = toInts(op, c.w);
  MEMOPT_CUDNN_CHECK(op, cudnnSetFilterNdDescriptor(
                             plan.w, cudnnType(op, c.type), CUDNN_TENSOR_NCHW,
                             c.w.size, filter.data()));
  MEMOPT_CUDNN_CHECK(op, cudnnCreateConvolutionDescriptor(&plan.conv));
  auto axisInts = [&](const cuda::AxisValues &values) {
    return toInts(op, Dims(values.data(), c.axes));
  };
  std::array<int, kMaxRank> pads = axisInts(c.pads),
                            strides = axisInts(c.strides),
                            dilations = axisInts(c.dilations);
  MEMOPT_CUDNN_CHECK(op, cudnnSetConvolutionNdDescriptor(
                             plan.conv, c.axes, pads.data(), strides.data(),
                             dilations.data(), CUDNN_CROSS_CORRELATION,
                             // Float accumulation for every storage type.
                             CUDNN_DATA_FLOAT));
  MEMOPT_CUDNN_CHECK(op, cudnnSetConvolutionGroupCount(
                             plan.conv, static_cast<int>(c.groups)));
  // FMA math keeps float convolutions in full precision (no TF32); bf16 /
  // f16 tensors use the tensor cores, which take them as they are.
  MEMOPT_CUDNN_CHECK(op, cudnnSetConvolutionMathType(
                             plan.conv, c.type != ElementType::F32
                                            ? CUDNN_TENSOR_OP_MATH
                                        : cuda::allowTf32()
                                            ? CUDNN_DEFAULT_MATH
                                            : CUDNN_FMA_MATH));
  // The forward convolution of these descriptors must produce y.
  std::array<int, kMaxRank> produced{};
  MEMOPT_CUDNN_CHECK(
      op, cudnnGetConvolutionNdForwardOutputDim(plan.conv, plan.x, plan.w,
                                                c.y.size, produced.data()));
  require(produced == toInts(op, c.y), op,
          "shapes disagree with strides, pads and dilations");

  // A band's staged rows come first; cuDNN gets the rest.
  size_t scratch = static_cast<size_t>(c.scratchBytes);
  plan.scratchBytes = scratch;
  if (scratch > limit) {
    plan.smallestBytes = scratch; // at least
    return plan;
  }
  limit -= scratch;
  cudnnHandle_t handle = cuda::cudnn();
  switch (c.direction()) {
  case ConvConfig::Direction::Forward: {
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionForwardAlgorithm_v7(
                               handle, plan.x, plan.w, plan.conv, plan.y,
                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count,
                               results));
    pickAlgorithm(
        plan, results, count, limit,
        [&](cudnnConvolutionFwdAlgo_t algo) {
          size_t bytes = 0;
          cudnnStatus_t status = cudnnGetConvolutionForwardWorkspaceSize(
              handle, plan.x, plan.w, plan.conv, plan.y, algo, &bytes);
          // An algorithm that cannot take these (strided) descriptors
          // fits nothing.
          return status == CUDNN_STATUS_SUCCESS ? bytes : SIZE_MAX;
        });
    break;
  }
  case ConvConfig::Direction::Data: {
    cudnnConvolutionBwdDataAlgoPerf_t
        results[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int count = 0;
    MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionBackwardDataAlgorithm_v7(
                               handle, plan.w, plan.y, plan.conv, plan.x,
                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count,
                               results));
    pickAlgorithm(
        plan, results, count, limit,
        [&](cudnnConvolutionBwdDataAlgo_t algo) {
          size_t bytes = 0;
          cudnnStatus_t status = cudnnGetConvolutionBackwardDataWorkspaceSize(
              handle, plan.w, plan.y, plan.conv, plan.x, algo, &bytes);
          // An algorithm that cannot take these (strided) descriptors
          // fits nothing.
          return status == CUDNN_STATUS_SUCCESS ? bytes : SIZE_MAX;
        });
    break;
  }
  case ConvConfig::Direction::Filter: {
    cudnnConvolutionBwdFilterAlgoPerf_t
        results[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int count = 0;
    MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                               handle, plan.x, plan.y, plan.conv, plan.w,
                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count,
                               results));
    pickAlgorithm(
        plan, results, count, limit,
        [&](cudnnConvolutionBwdFilterAlgo_t algo) {
          size_t bytes = 0;
          cudnnStatus_t status = cudnnGetConvolutionBackwardFilterWorkspaceSize(
              handle, plan.x, plan.y, plan.conv, plan.w, algo, &bytes);
          // An algorithm that cannot take these (strided) descriptors
          // fits nothing.
          return status == CUDNN_STATUS_SUCCESS ? bytes : SIZE_MAX;
        });
    break;
  }
  }
  if (plan.algorithm < 0 && plan.smallestBytes != SIZE_MAX)
    plan.smallestBytes += scratch;
  return plan;
}

/// `c` restricted to `batch` samples and, for the filter gradient,
/// `channels` output channels (rows of the filter, channels of y).
ConvConfig sliceOf(const ConvConfig &c, int64_t batch, int64_t channels) {
  ConvConfig slice = c;
  slice.x[0] = batch;
  slice.y[0] = batch;
  slice.y[1] = channels;
  slice.w[0] = channels;
  return slice;
}

/// The first spatial axis of `c`'s forward convolution (the height of an
/// image, the depth of a volume): the axis bands cut.
cuda::ConvRows heightOf(const ConvConfig &c) {
  return {c.x[2], c.y[2], c.w[2], c.strides[0], c.pads[0], c.dilations[0]};
}

/// The rows `c` is cut into bands of: the output's for the forward and the
/// filter gradient (each band reads its halo of x), the input's for the
/// data gradient (each band of dx is written by one call).
int64_t bandedRows(const ConvConfig &c) {
  return c.direction() == ConvConfig::Direction::Data ? c.x[2] : c.y[2];
}

/// Band `rows` of `c`, without its calls. Forward and filter gradient: it
/// reads x's rows in place when they lie inside x, else a staged copy with
/// the padding rows as zeros. Data gradient: it computes the gradient of
/// every row its outputs read in the workspace, and keeps its own rows.
ConvBand bandOf(const ConvConfig &c, cuda::RowRange rows) {
  cuda::ConvRows height = heightOf(c);
  ConvBand band;
  band.rows = rows;
  if (c.direction() == ConvConfig::Direction::Data) {
    band.outputs = height.outputsReading(rows);
    band.staged = true;
  } else {
    band.outputs = rows;
  }
  band.inputs = height.inputsOf(band.outputs);
  band.staged = band.staged || !band.inputs.inside(c.x[2]);
  return band;
}

/// `slice` (of the whole convolution, sliceOf) restricted to `band`: no
/// height padding, x the rows the band reads (in x's memory, or staged
/// densely in the workspace), y its rows of y's memory.
ConvConfig bandConfig(const ConvConfig &slice, const ConvBand &band) {
  ConvConfig c = slice;
  c.x[2] = band.inputs.size();
  c.y[2] = band.outputs.size();
  c.pads[0] = 0;
  c.xRows = band.staged ? c.x[2] : slice.xRows;
  // cuDNN's workspace after the staged rows, 256-byte aligned.
  constexpr int64_t kAlign = 256;
  c.scratchBytes =
      band.staged
          ? (c.x.product() * static_cast<int64_t>(elementBytes(c.type)) +
             kAlign - 1) /
                kAlign * kAlign
          : 0;
  return c;
}

/// The calls and plans made so far, for the whole process (entries are
/// never erased, so references stay valid).
struct ConvCache {
  std::mutex mutex;
  // By workspace too: a slice or band of two convolutions can have the
  // same shapes but not the same planned workspace.
  std::map<std::pair<ConvConfig::Key, size_t>, ConvCall> calls;
  // By workspace too: tg-remat may give one convolution its lean
  // workspace and another of the same shapes its full one.
  std::map<std::pair<ConvConfig::Key, size_t>, ConvPlan> plans;

  const ConvCall &call(const ConvConfig &c, size_t limit) {
    auto key = std::make_pair(c.key(), limit);
    auto it = calls.find(key);
    if (it == calls.end())
      it = calls.emplace(key, makeCall(c, limit)).first;
    return it->second;
  }

  ConvPlan makePlan(const ConvConfig &c, size_t limit) {
    const char *op = kernelName(c.kind);
    ConvPlan plan;
    plan.workspaceLimit = limit;
    // Output channels are independent rows of the filter gradient; in the
    // other directions (and across groups) they are not separable this way.
    bool splitChannels =
        c.direction() == ConvConfig::Direction::Filter && c.groups == 1;
    int64_t rows = bandedRows(c);
    // The call of one band of a slice (none: a data-gradient band that no
    // output reads); bands of all rows are the slice itself.
    auto bandCall = [&](const ConvConfig &slice, int64_t bandRows,
                        const ConvBand &band) -> const ConvCall * {
      if (bandRows == rows)
        return &call(slice, plan.workspaceLimit);
      if (band.outputs.empty())
        return nullptr;
      return &call(bandConfig(slice, band), plan.workspaceLimit);
    };
    auto fits = [&](int64_t batch, int64_t bandRows, int64_t channels) {
      ConvConfig slice = sliceOf(c, batch, channels);
      for (int64_t i = 0, e = cuda::bandCount(rows, bandRows); i < e; ++i) {
        const ConvCall *each = bandCall(
            slice, bandRows, bandOf(c, cuda::bandAt(rows, bandRows, i)));
        if (each && each->algorithm < 0)
          return false;
      }
      return true;
    };
    std::optional<cuda::ConvSlices> slices =
        cuda::planConvSlices(c.x[0], rows, c.y[1], splitChannels, fits);
    if (!slices) {
      // The smallest call: one sample, one row (the top band, which pads
      // where the convolution does), one output channel.
      ConvConfig least = sliceOf(c, 1, splitChannels ? 1 : c.y[1]);
      const ConvCall *leastCall =
          bandCall(least, 1, bandOf(c, cuda::bandAt(rows, 1, 0)));
      if (leastCall && !leastCall->anySupported && c.type != ElementType::F32)
        fatal(op, std::string("cuDNN has no algorithm for this convolution "
                              "on ") +
                      (c.type == ElementType::BF16 ? "bf16" : "f16") +
                      " tensors on this GPU (bf16 needs compute capability "
                      "8.0 or later): recompile with another --amp");
      fatal(op,
            "no deterministic cuDNN algorithm fits the planned workspace of " +
                std::to_string(plan.workspaceLimit) + " bytes, even for " +
                (splitChannels ? "one row (one step of the first spatial "
                                 "axis) of one sample and one output channel"
                               : "one row (one step of the first spatial "
                                 "axis) of one sample") +
                (!leastCall || leastCall->smallestBytes == SIZE_MAX
                     ? std::string(" (none is deterministic)")
                     : " (the smallest needs " +
                           std::to_string(leastCall->smallestBytes) + ")"));
    }
    plan.slices = *slices;
    plan.banded = slices->rows < rows;
    int64_t lastBatch = (c.x[0] - 1) % slices->batch + 1;
    int64_t lastChannels = (c.y[1] - 1) % slices->channels + 1;
    for (int64_t i = 0, e = cuda::bandCount(rows, slices->rows); i < e; ++i) {
      ConvBand band = bandOf(c, cuda::bandAt(rows, slices->rows, i));
      if (!plan.banded) {
        // The whole height, as cuDNN pads it.
        band.outputs = {0, c.y[2]};
        band.inputs = {0, c.x[2]};
        band.staged = false;
      }
      for (int lastN : {0, 1})
        for (int lastK : {0, 1})
          band.calls[lastN][lastK] =
              bandCall(sliceOf(c, lastN ? lastBatch : slices->batch,
                               lastK ? lastChannels : slices->channels),
                       slices->rows, band);
      plan.bands.push_back(band);
    }
    return plan;
  }

  const ConvPlan &plan(const ConvConfig &c, size_t limit) {
    auto key = std::make_pair(c.key(), limit);
    auto it = plans.find(key);
    if (it == plans.end())
      it = plans.emplace(key, makePlan(c, limit)).first;
    return it->second;
  }
};

ConvCache &convCache() {
  static ConvCache cache;
  return cache;
}

/// Runs the convolution of `config`: `in` is read, `out` written. Forward:
/// in = x, out = y. Data: in = dy, out = dx. Filter: in = dy, out = dw,
/// with `x` the forward input.
void run(const ConvConfig &config, const void *xData, const void *w,
         const void *dyData, void *outData, void *workspace) {
  const char *op = kernelName(config.kind);
  ConvCache &cache = convCache();
  // The workspace the plan gave this call (full or lean), or, for a
  // caller that did not say (tests), the full one.
  size_t limit = std::exchange(plannedWorkspaceBytes(), SIZE_MAX);
  if (limit == SIZE_MAX)
    limit = cuda::convWorkspaceBytes(config.x, config.w, config.y,
                                     elementBytes(config.type));
  const ConvPlan &plan = [&]() -> const ConvPlan & {
    std::lock_guard<std::mutex> lock(cache.mutex);
    return cache.plan(config, limit);
  }();
  require(workspace || plan.workspaceLimit == 0, op,
          "the plan gave no workspace");
  if (config.type != ElementType::F32)
    cuda::noteLowPrecisionConvolution();
  // The tensors as bytes (2 per bf16 / f16 element, 4 per f32): the
  // element offsets below are scaled by `bytes`.
  const size_t bytes = elementBytes(config.type);
  auto byteData = [&](const void *p) {
    return static_cast<char *>(const_cast<void *>(p));
  };
  struct Elements {
    char *base;
    size_t bytes;
    char *operator+(int64_t offset) const {
      return base + offset * static_cast<int64_t>(bytes);
    }
    explicit operator bool() const { return base != nullptr; }
  };
  const Elements x{byteData(xData), bytes}, dy{byteData(dyData), bytes},
      out{byteData(outData), bytes};
  // Scaling factors are float for float, half and bf16 data.
  const float one = 1.0f, zero = 0.0f;
  cudnnHandle_t handle = cuda::cudnn();
  // Element offsets of sample n0, output channel k0, filter row k0 and
  // output row r0.
  // A row is one step along the first spatial axis: a row of an image,
  // a slab of a volume (ConvGeometry.h).
  const int64_t xRow = cuda::rowElements(config.x);
  const int64_t yRow = cuda::rowElements(config.y);
  const int64_t xSample = config.x[1] * config.x[2] * xRow;
  const int64_t ySample = config.y[1] * config.y[2] * yRow;
  const int64_t yChannel = config.y[2] * yRow;
  const int64_t wRow = config.w.product() / config.w[0];
  const int64_t batch = config.x[0], channels = config.y[1];
  // The planes (samples x channels) of x or dx from sample n0 on, and a
  // band's rows of them staged in the workspace.
  auto xPlanes = [&](const Elements &data, int64_t n0, int64_t n) {
    return cuda::Planes{
        data + n0 * xSample, n * config.x[1], config.x[2], 0, xRow, bytes};
  };
  auto staged = [&](const ConvBand &band, int64_t n) {
    return cuda::Planes{
        workspace, n * config.x[1], band.inputs.size(), band.inputs.begin, xRow,
        bytes};
  };
  for (int64_t n0 = 0; n0 < batch; n0 += plan.slices.batch) {
    int64_t n = std::min(plan.slices.batch, batch - n0);
    for (size_t b = 0; b < plan.bands.size(); ++b) {
      const ConvBand &band = plan.bands[b];
      // Forward and filter gradient: the rows of x the band reads, in
      // place or staged with zero padding rows (before any call of the
      // band: its channel slices share them).
      const char *xBand = x ? x + n0 * xSample : nullptr;
      if (x && band.staged) {
        cuda::Planes from = xPlanes(x, n0, n), to = staged(band, n);
        cuda::RowRange inside = band.inputs.intersect({0, config.x[2]});
        cuda::copyRows(op, from, to, inside);
        cuda::zeroRows(op, to, {band.inputs.begin, inside.begin});
        cuda::zeroRows(op, to, {inside.end, band.inputs.end});
        xBand = static_cast<const char *>(workspace);
      } else if (x && plan.banded) {
        xBand += band.inputs.begin * xRow * static_cast<int64_t>(bytes);
      }
      for (int64_t k0 = 0; k0 < channels; k0 += plan.slices.channels) {
        int64_t k = std::min(plan.slices.channels, channels - k0);
        const ConvCall *call = band.calls[n0 + n == batch][k0 + k == channels];
        if (!call) {
          // A data-gradient band whose rows no output reads.
          cuda::zeroRows(op, xPlanes(out, n0, n), band.rows);
          continue;
        }
        auto algo = call->algorithm;
        void *cudnnWorkspace =
            static_cast<char *>(workspace) + call->scratchBytes;
        size_t cudnnBytes = plan.workspaceLimit - call->scratchBytes;
        const char *dyBand =
            dy ? dy + (n0 * ySample + band.outputs.begin * yRow) : nullptr;
        switch (config.direction()) {
        case ConvConfig::Direction::Forward:
          MEMOPT_CUDNN_CHECK(
              op, cudnnConvolutionForward(
                      handle, &one, call->x, xBand, call->w, w, call->conv,
                      static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                      cudnnWorkspace, cudnnBytes, &zero, call->y,
                      out + (n0 * ySample + band.outputs.begin * yRow)));
          break;
        case ConvConfig::Direction::Data: {
          // A band computes its halo too, in the workspace, and keeps its
          // own rows (those no output reads are zero).
          char *dx = band.staged ? static_cast<char *>(workspace)
                                 : out + n0 * xSample;
          MEMOPT_CUDNN_CHECK(
              op, cudnnConvolutionBackwardData(
                      handle, &one, call->w, w, call->y, dyBand, call->conv,
                      static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                      cudnnWorkspace, cudnnBytes, &zero, call->x, dx));
          if (band.staged) {
            cuda::Planes to = xPlanes(out, n0, n);
            cuda::RowRange kept = band.rows.intersect(band.inputs);
            cuda::copyRows(op, staged(band, n), to, kept);
            cuda::zeroRows(op, to, {band.rows.begin, kept.begin});
            cuda::zeroRows(op, to, {kept.end, band.rows.end});
          }
          break;
        }
        case ConvConfig::Direction::Filter:
          // Later batch slices and bands add their contribution to the
          // first's (beta 1), in a fixed order, so the sum is reproducible.
          MEMOPT_CUDNN_CHECK(
              op,
              cudnnConvolutionBackwardFilter(
                  handle, &one, call->x, xBand, call->y,
                  dyBand + k0 * yChannel * static_cast<int64_t>(bytes),
                  call->conv,
                  static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                  cudnnWorkspace, cudnnBytes, n0 == 0 && b == 0 ? &zero : &one,
                  call->w, out + k0 * wRow));
          break;
        }
      }
    }
  }
}

/// output += bias, broadcast over N and the spatial axes (of any rank).
void addBias(const char *op, ConstTensor bias, Tensor output) {
  const int64_t channels = output.dim(1);
  requireShape(op, "bias", bias.shape, Dims{channels});
  if (output.type != ElementType::F32) {
    // bf16 / f16 (mixed precision): the runtime's broadcasting add, which
    // rounds the float sum once, as cudnnAddTensor does for float (whose
    // bf16 support cuDNN does not document). The bias as 1 x C x 1 ... x 1
    // of the output's rank.
    Dims perChannelShape = output.shape;
    for (int i = 0; i < perChannelShape.size; ++i)
      perChannelShape[i] = i == 1 ? channels : 1;
    add(output, ConstTensor(bias.data, perChannelShape, bias.type), output);
    return;
  }
  // cudnnAddTensor on the output viewed as N x C x (spatial elements) x 1.
  Dims outView{output.dim(0), channels,
               output.numel() / (output.dim(0) * channels), 1};
  Dims biasView{1, channels, 1, 1};
  cudnnTensorDescriptor_t biasDesc =
      tensorDescriptor(op, biasView, channels, 1, bias.type);
  cudnnTensorDescriptor_t outDesc =
      tensorDescriptor(op, outView, channels, outView[2], output.type);
  const float one = 1.0f;
  MEMOPT_CUDNN_CHECK(op, cudnnAddTensor(cuda::cudnn(), &one, biasDesc,
                                        bias.data, &one, outDesc,
                                        output.data));
  MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(biasDesc));
  MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(outDesc));
}

/// The configuration of a convolution kernel whose three tensors are
/// `x`, `w`, `y` (as ConvConfig names them): they must share one element
/// type, the one cuDNN runs on, and one rank (3 to 5), with symmetric
/// pads (the compiler refuses the rest first, CudaWorkspace.cpp). A 1-D
/// convolution runs as a 2-D one with a trailing unit axis
/// (ConvGeometry.h).
ConvConfig forwardConfig(ConvKind kind, const ConstTensor &x,
                         const ConstTensor &w, const ConstTensor &y,
                         const Dims &strides, const Dims &pads,
                         const Dims &dilations, int64_t groups) {
  const char *kernel = kernelName(kind);
  require(x.type == w.type && w.type == y.type, kernel,
          "the input, weight and output must share one element type "
          "(f32, bf16 or f16)");
  require(w.rank() == x.rank() && y.rank() == x.rank(), kernel,
          "the input, weight and output must share one rank");
  if (const char *why =
          cuda::convUnsupported(x.rank(), strides, pads, dilations))
    fatal(kernel, why);
  cuda::ConvGeometry g =
      cuda::convGeometry(x.shape, w.shape, y.shape, strides, pads, dilations);
  return {kind,        x.type, g.axes, g.x,    g.w,    g.y,    g.strides,
          g.dilations, g.pads, groups, g.y[1], g.x[2], g.y[2], 0};
}

std::atomic<bool> lowPrecisionRan{false};

} // namespace

void cuda::noteLowPrecisionConvolution() {
  lowPrecisionRan.store(true, std::memory_order_relaxed);
}

const char *cuda::lowPrecisionConvolutions() {
  return lowPrecisionRan.load(std::memory_order_relaxed) ? "cudnn-native"
                                                         : nullptr;
}

size_t convWorkspaceBytes(const Dims &input, const Dims &weight, bool,
                            const Dims &output, const Dims &, const Dims &, const Dims &, int64_t,
                            ElementType type) {
  return cuda::convWorkspaceBytes(input, weight, output, elementBytes(type));
}

void conv(ConstTensor input, ConstTensor weight, ConstTensor bias,
            Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations, int64_t groups,
            void *workspace) {
  run(forwardConfig(ConvKind::Forward, input, weight, output, strides, pads,
                    dilations, groups),
      input.data, weight.data, nullptr, output.data, workspace);
  if (bias.present())
    addBias("conv", bias, output);
}

size_t convBackwardDataWorkspaceBytes(const Dims &gradOutput,
                                        const Dims &weight,
                                        const Dims &gradInput, const Dims &, const Dims &, const Dims &,
                                        int64_t, ElementType type) {
  return cuda::convWorkspaceBytes(gradInput, weight, gradOutput,
                                  elementBytes(type));
}

void convBackwardData(ConstTensor gradOutput, ConstTensor weight,
                        Tensor gradInput, const Dims &strides, const Dims &pads, const Dims &dilations,
                        int64_t groups, void *workspace) {
  run(forwardConfig(ConvKind::BackwardData, gradInput, weight, gradOutput,
                    strides, pads, dilations, groups),
      nullptr, weight.data, gradOutput.data, gradInput.data, workspace);
}

size_t convBackwardFilterWorkspaceBytes(const Dims &gradOutput,
                                          const Dims &input,
                                          const Dims &gradWeight, const Dims &, const Dims &, const Dims &,
                                          int64_t, ElementType type) {
  return cuda::convWorkspaceBytes(input, gradWeight, gradOutput,
                                  elementBytes(type));
}

void convBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, const Dims &strides, const Dims &pads,
                          const Dims &dilations, int64_t groups, void *workspace) {
  run(forwardConfig(ConvKind::BackwardFilter, input, gradWeight, gradOutput,
                    strides, pads, dilations, groups),
      input.data, nullptr, gradOutput.data, gradWeight.data, workspace);
}

size_t convTransposeWorkspaceBytes(const Dims &input, const Dims &weight,
                                     bool, const Dims &output, const Dims &, const Dims &,
                                     const Dims &, const Dims &, int64_t, ElementType type) {
  return cuda::convWorkspaceBytes(output, weight, input, elementBytes(type));
}

void convTranspose(ConstTensor input, ConstTensor weight, ConstTensor bias,
                     Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations,
                     const Dims &outputPadding, int64_t groups, void *workspace) {
  // The output padding only enlarges `output`, which the descriptors take
  // from its shape.
  (void)outputPadding;
  run(forwardConfig(ConvKind::TransposedForward, output, weight, input,
                    strides, pads, dilations, groups),
      nullptr, weight.data, input.data, output.data, workspace);
  if (bias.present())
    addBias("conv_transpose", bias, output);
}

size_t convTransposeBackwardFilterWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight, const Dims &,
    const Dims &, const Dims &, const Dims &, int64_t, ElementType type) {
  return cuda::convWorkspaceBytes(gradOutput, gradWeight, input,
                                  elementBytes(type));
}

void convTransposeBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                   Tensor gradWeight, const Dims &strides, const Dims &pads,
                                   const Dims &dilations, const Dims &outputPadding,
                                   int64_t groups, void *workspace) {
  (void)outputPadding;
  run(forwardConfig(ConvKind::TransposedBackwardFilter, gradOutput, gradWeight,
                    input, strides, pads, dilations, groups),
      gradOutput.data, nullptr, input.data, gradWeight.data, workspace);
}

} // namespace memopt::rt
