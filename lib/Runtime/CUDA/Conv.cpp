//===- Conv.cpp - Convolutions through cuDNN ------------------------------===//
//
// tg.conv2d, its data and filter gradients, tg.conv_transpose2d and its
// filter gradient. A transposed convolution is the data gradient of the
// convolution with the same weight (C x O/groups x kH x kW read as a
// filter of C outputs), and its filter gradient is that convolution's
// filter gradient with input and output swapped, so three cuDNN calls
// cover the five kernels.
//
// Algorithms: on the first call with a configuration, cuDNN's heuristics
// (cudnnGet*Algorithm_v7) rank the algorithms; the first one that is
// deterministic and needs no more than the workspace the plan reserved
// (ConvWorkspace.h) is cached with the descriptors. When none fits, the
// convolution runs in slices of the batch (and, for the filter gradient,
// of the output channels) chosen by planConvSlices (ConvSlices.h), never
// in more memory than planned. The choices depend only on the GPU, the
// cuDNN version and the shapes, so runs are reproducible.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvSlices.h"
#include "memopt/Runtime/CUDA/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <string>

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
    return "conv2d";
  case ConvKind::BackwardData:
    return "conv2d_backward_data";
  case ConvKind::BackwardFilter:
    return "conv2d_backward_filter";
  case ConvKind::TransposedForward:
    return "conv_transpose2d";
  case ConvKind::TransposedBackwardFilter:
    return "conv_transpose2d_backward_filter";
  }
  return "conv";
}

/// The cuDNN convolution a kernel runs: `x` is its input, `w` the filter,
/// `y` its output (for a transposed kernel: the transposed op's output,
/// the weight, the transposed op's input).
struct ConvConfig {
  ConvKind kind;
  Dims x, w, y;
  Hw strides, dilations;
  Pads pads;
  int64_t groups;
  /// The channel count of y's memory: y[1], or more when y is a slice of
  /// the output channels of a larger tensor.
  int64_t yChannels;

  using Key = std::array<int64_t, 24>;
  Key key() const {
    Key k{};
    size_t n = 0;
    k[n++] = static_cast<int64_t>(kind);
    k[n++] = groups;
    k[n++] = yChannels;
    for (const Dims *d : {&x, &w, &y})
      for (int i = 0; i < 4; ++i)
        k[n++] = (*d)[i];
    for (const Hw *pair : {&strides, &dilations})
      for (int64_t v : *pair)
        k[n++] = v;
    for (int64_t v : pads)
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
};

/// How a configuration runs: its planned workspace, the slices that fit
/// and their calls, indexed by [last batch slice][last channel slice] (the
/// last slices may be smaller).
struct ConvPlan {
  size_t workspaceLimit = 0;
  cuda::ConvSlices slices;
  const ConvCall *calls[2][2] = {};
};

cudnnTensorDescriptor_t tensorDescriptor(const char *op, const Dims &d) {
  cudnnTensorDescriptor_t desc = nullptr;
  MEMOPT_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&desc));
  MEMOPT_CUDNN_CHECK(op, cudnnSetTensor4dDescriptor(
                             desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                             static_cast<int>(d[0]), static_cast<int>(d[1]),
                             static_cast<int>(d[2]), static_cast<int>(d[3])));
  return desc;
}

/// An NCHW tensor `d` whose memory has `channels` >= d[1] channels (a
/// slice of the channels of a larger tensor).
cudnnTensorDescriptor_t stridedTensorDescriptor(const char *op, const Dims &d,
                                                int64_t channels) {
  cudnnTensorDescriptor_t desc = nullptr;
  MEMOPT_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&desc));
  int64_t plane = d[2] * d[3];
  MEMOPT_CUDNN_CHECK(
      op, cudnnSetTensor4dDescriptorEx(
              desc, CUDNN_DATA_FLOAT, static_cast<int>(d[0]),
              static_cast<int>(d[1]), static_cast<int>(d[2]),
              static_cast<int>(d[3]), static_cast<int>(channels * plane),
              static_cast<int>(plane), static_cast<int>(d[3]), 1));
  return desc;
}

/// Records in `call` the first entry of `results` (ranked by cuDNN) that
/// ran, is deterministic and fits in `limit` bytes, as `exactBytes(algo)`
/// (cuDNN's workspace query for that algorithm) confirms.
template <typename Perf, typename ExactBytes>
void pickAlgorithm(ConvCall &call, const Perf *results, int count,
                   size_t limit, ExactBytes exactBytes) {
  for (int i = 0; i < count; ++i) {
    if (results[i].status != CUDNN_STATUS_SUCCESS ||
        results[i].determinism != CUDNN_DETERMINISTIC)
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
  plan.x = tensorDescriptor(op, c.x);
  plan.y = c.yChannels == c.y[1]
               ? tensorDescriptor(op, c.y)
               : stridedTensorDescriptor(op, c.y, c.yChannels);
  MEMOPT_CUDNN_CHECK(op, cudnnCreateFilterDescriptor(&plan.w));
  MEMOPT_CUDNN_CHECK(op, cudnnSetFilter4dDescriptor(
                             plan.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                             static_cast<int>(c.w[0]), static_cast<int>(c.w[1]),
                             static_cast<int>(c.w[2]), static_cast<int>(c.w[3])));
  MEMOPT_CUDNN_CHECK(op, cudnnCreateConvolutionDescriptor(&plan.conv));
  MEMOPT_CUDNN_CHECK(
      op, cudnnSetConvolution2dDescriptor(
              plan.conv, static_cast<int>(c.pads[0]),
              static_cast<int>(c.pads[1]), static_cast<int>(c.strides[0]),
              static_cast<int>(c.strides[1]), static_cast<int>(c.dilations[0]),
              static_cast<int>(c.dilations[1]), CUDNN_CROSS_CORRELATION,
              CUDNN_DATA_FLOAT));
  MEMOPT_CUDNN_CHECK(op, cudnnSetConvolutionGroupCount(
                             plan.conv, static_cast<int>(c.groups)));
  // FMA math keeps float convolutions in full precision (no TF32).
  MEMOPT_CUDNN_CHECK(op, cudnnSetConvolutionMathType(
                             plan.conv, cuda::allowTf32()
                                            ? CUDNN_DEFAULT_MATH
                                            : CUDNN_FMA_MATH));
  // The forward convolution of these descriptors must produce y.
  int n, ch, h, w;
  MEMOPT_CUDNN_CHECK(op, cudnnGetConvolution2dForwardOutputDim(
                             plan.conv, plan.x, plan.w, &n, &ch, &h, &w));
  require(Dims{n, ch, h, w} == c.y, op,
          "shapes disagree with strides, pads and dilations");

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
          MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionForwardWorkspaceSize(
                                     handle, plan.x, plan.w, plan.conv,
                                     plan.y, algo, &bytes));
          return bytes;
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
          MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionBackwardDataWorkspaceSize(
                                     handle, plan.w, plan.y, plan.conv,
                                     plan.x, algo, &bytes));
          return bytes;
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
          MEMOPT_CUDNN_CHECK(
              op, cudnnGetConvolutionBackwardFilterWorkspaceSize(
                      handle, plan.x, plan.y, plan.conv, plan.w, algo,
                      &bytes));
          return bytes;
        });
    break;
  }
  }
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

/// The calls and plans made so far, for the whole process (entries are
/// never erased, so references stay valid).
struct ConvCache {
  std::mutex mutex;
  std::map<ConvConfig::Key, ConvCall> calls;
  std::map<ConvConfig::Key, ConvPlan> plans;

  const ConvCall &call(const ConvConfig &c, size_t limit) {
    auto key = c.key();
    auto it = calls.find(key);
    if (it == calls.end())
      it = calls.emplace(key, makeCall(c, limit)).first;
    return it->second;
  }

  ConvPlan makePlan(const ConvConfig &c) {
    const char *op = kernelName(c.kind);
    for (const Dims *d : {&c.x, &c.w, &c.y})
      requireRank(op, "tensor", *d, 4);
    require(c.pads[0] == c.pads[2] && c.pads[1] == c.pads[3], op,
            "cuDNN needs symmetric padding (top = bottom, left = right)");
    ConvPlan plan;
    plan.workspaceLimit = cuda::convWorkspaceBytes(c.x, c.w, c.y);
    // Output channels are independent rows of the filter gradient; in the
    // other directions (and across groups) they are not separable this way.
    bool splitChannels =
        c.direction() == ConvConfig::Direction::Filter && c.groups == 1;
    auto fits = [&](int64_t batch, int64_t channels) {
      return call(sliceOf(c, batch, channels), plan.workspaceLimit)
                 .algorithm >= 0;
    };
    std::optional<cuda::ConvSlices> slices =
        cuda::planConvSlices(c.x[0], c.y[1], splitChannels, fits);
    if (!slices) {
      const ConvCall &least =
          call(sliceOf(c, 1, splitChannels ? 1 : c.y[1]), plan.workspaceLimit);
      fatal(op,
            "no deterministic cuDNN algorithm fits the planned workspace of " +
                std::to_string(plan.workspaceLimit) + " bytes, even for " +
                (splitChannels ? "one sample and one output channel"
                               : "one sample") +
                (least.smallestBytes == SIZE_MAX
                     ? std::string(" (none is deterministic)")
                     : " (the smallest needs " +
                           std::to_string(least.smallestBytes) + ")"));
    }
    plan.slices = *slices;
    int64_t lastBatch = (c.x[0] - 1) % slices->batch + 1;
    int64_t lastChannels = (c.y[1] - 1) % slices->channels + 1;
    for (int lastN : {0, 1})
      for (int lastK : {0, 1})
        plan.calls[lastN][lastK] = &call(
            sliceOf(c, lastN ? lastBatch : slices->batch,
                    lastK ? lastChannels : slices->channels),
            plan.workspaceLimit);
    return plan;
  }

  const ConvPlan &plan(const ConvConfig &c) {
    auto key = c.key();
    auto it = plans.find(key);
    if (it == plans.end())
      it = plans.emplace(key, makePlan(c)).first;
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
void run(const ConvConfig &config, const float *x, const float *w,
         const float *dy, float *out, void *workspace) {
  const char *op = kernelName(config.kind);
  ConvCache &cache = convCache();
  const ConvPlan &plan = [&]() -> const ConvPlan & {
    std::lock_guard<std::mutex> lock(cache.mutex);
    return cache.plan(config);
  }();
  require(workspace || plan.workspaceLimit == 0, op,
          "the plan gave no workspace");
  const float one = 1.0f, zero = 0.0f;
  cudnnHandle_t handle = cuda::cudnn();
  // Element offsets of sample n0, output channel k0 and filter row k0.
  const int64_t xSample = config.x[1] * config.x[2] * config.x[3];
  const int64_t ySample = config.y[1] * config.y[2] * config.y[3];
  const int64_t yChannel = config.y[2] * config.y[3];
  const int64_t wRow = config.w[1] * config.w[2] * config.w[3];
  const int64_t batch = config.x[0], channels = config.y[1];
  for (int64_t n0 = 0; n0 < batch; n0 += plan.slices.batch) {
    int64_t n = std::min(plan.slices.batch, batch - n0);
    for (int64_t k0 = 0; k0 < channels; k0 += plan.slices.channels) {
      int64_t k = std::min(plan.slices.channels, channels - k0);
      const ConvCall &call =
          *plan.calls[n0 + n == batch][k0 + k == channels];
      auto algo = call.algorithm;
      switch (config.direction()) {
      case ConvConfig::Direction::Forward:
        MEMOPT_CUDNN_CHECK(
            op, cudnnConvolutionForward(
                    handle, &one, call.x, x + n0 * xSample, call.w, w,
                    call.conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                    workspace, plan.workspaceLimit, &zero, call.y,
                    out + n0 * ySample));
        break;
      case ConvConfig::Direction::Data:
        MEMOPT_CUDNN_CHECK(
            op, cudnnConvolutionBackwardData(
                    handle, &one, call.w, w, call.y, dy + n0 * ySample,
                    call.conv,
                    static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                    workspace, plan.workspaceLimit, &zero, call.x,
                    out + n0 * xSample));
        break;
      case ConvConfig::Direction::Filter:
        // Later batch slices add their contribution to the first's (beta
        // 1), in a fixed order, so the sum is reproducible.
        MEMOPT_CUDNN_CHECK(
            op, cudnnConvolutionBackwardFilter(
                    handle, &one, call.x, x + n0 * xSample, call.y,
                    dy + n0 * ySample + k0 * yChannel, call.conv,
                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                    workspace, plan.workspaceLimit, n0 == 0 ? &zero : &one,
                    call.w, out + k0 * wRow));
        break;
      }
    }
  }
}

/// output += bias, broadcast over N, H and W.
void addBias(const char *op, ConstTensor bias, Tensor output) {
  requireShape(op, "bias", bias.shape, Dims{output.dim(1)});
  cudnnTensorDescriptor_t biasDesc =
      tensorDescriptor(op, Dims{1, output.dim(1), 1, 1});
  cudnnTensorDescriptor_t outDesc = tensorDescriptor(op, output.shape);
  const float one = 1.0f;
  MEMOPT_CUDNN_CHECK(op, cudnnAddTensor(cuda::cudnn(), &one, biasDesc,
                                        bias.data, &one, outDesc,
                                        output.data));
  MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(biasDesc));
  MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(outDesc));
}

ConvConfig forwardConfig(ConvKind kind, const Dims &x, const Dims &w,
                         const Dims &y, Hw strides, Pads pads, Hw dilations,
                         int64_t groups) {
  return {kind, x, w, y, strides, dilations, pads, groups, y[1]};
}

} // namespace

size_t conv2dWorkspaceBytes(const Dims &input, const Dims &weight, bool,
                            const Dims &output, Hw, Pads, Hw, int64_t) {
  return cuda::convWorkspaceBytes(input, weight, output);
}

void conv2d(ConstTensor input, ConstTensor weight, ConstTensor bias,
            Tensor output, Hw strides, Pads pads, Hw dilations, int64_t groups,
            void *workspace) {
  run(forwardConfig(ConvKind::Forward, input.shape, weight.shape, output.shape,
                    strides, pads, dilations, groups),
      input.data, weight.data, nullptr, output.data, workspace);
  if (bias.present())
    addBias("conv2d", bias, output);
}

size_t conv2dBackwardDataWorkspaceBytes(const Dims &gradOutput,
                                        const Dims &weight,
                                        const Dims &gradInput, Hw, Pads, Hw,
                                        int64_t) {
  return cuda::convWorkspaceBytes(gradInput, weight, gradOutput);
}

void conv2dBackwardData(ConstTensor gradOutput, ConstTensor weight,
                        Tensor gradInput, Hw strides, Pads pads, Hw dilations,
                        int64_t groups, void *workspace) {
  run(forwardConfig(ConvKind::BackwardData, gradInput.shape, weight.shape,
                    gradOutput.shape, strides, pads, dilations, groups),
      nullptr, weight.data, gradOutput.data, gradInput.data, workspace);
}

size_t conv2dBackwardFilterWorkspaceBytes(const Dims &gradOutput,
                                          const Dims &input,
                                          const Dims &gradWeight, Hw, Pads, Hw,
                                          int64_t) {
  return cuda::convWorkspaceBytes(input, gradWeight, gradOutput);
}

void conv2dBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, Hw strides, Pads pads,
                          Hw dilations, int64_t groups, void *workspace) {
  run(forwardConfig(ConvKind::BackwardFilter, input.shape, gradWeight.shape,
                    gradOutput.shape, strides, pads, dilations, groups),
      input.data, nullptr, gradOutput.data, gradWeight.data, workspace);
}

size_t convTranspose2dWorkspaceBytes(const Dims &input, const Dims &weight,
                                     bool, const Dims &output, Hw, Pads, Hw,
                                     Hw, int64_t) {
  return cuda::convWorkspaceBytes(output, weight, input);
}

void convTranspose2d(ConstTensor input, ConstTensor weight, ConstTensor bias,
                     Tensor output, Hw strides, Pads pads, Hw dilations,
                     Hw outputPadding, int64_t groups, void *workspace) {
  // The output padding only enlarges `output`, which the descriptors take
  // from its shape.
  (void)outputPadding;
  run(forwardConfig(ConvKind::TransposedForward, output.shape, weight.shape,
                    input.shape, strides, pads, dilations, groups),
      nullptr, weight.data, input.data, output.data, workspace);
  if (bias.present())
    addBias("conv_transpose2d", bias, output);
}

size_t convTranspose2dBackwardFilterWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight, Hw,
    Pads, Hw, Hw, int64_t) {
  return cuda::convWorkspaceBytes(gradOutput, gradWeight, input);
}

void convTranspose2dBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                   Tensor gradWeight, Hw strides, Pads pads,
                                   Hw dilations, Hw outputPadding,
                                   int64_t groups, void *workspace) {
  (void)outputPadding;
  run(forwardConfig(ConvKind::TransposedBackwardFilter, gradOutput.shape,
                    gradWeight.shape, input.shape, strides, pads, dilations,
                    groups),
      gradOutput.data, nullptr, input.data, gradWeight.data, workspace);
}

} // namespace memopt::rt
