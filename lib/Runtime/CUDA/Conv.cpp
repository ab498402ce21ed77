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
// (ConvWorkspace.h) is cached with the descriptors. The choice depends only
// on the GPU, the cuDNN version and the shapes, so runs are reproducible.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
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

  using Key = std::array<int64_t, 23>;
  Key key() const {
    Key k{};
    size_t n = 0;
    k[n++] = static_cast<int64_t>(kind);
    k[n++] = groups;
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

/// Descriptors and the chosen algorithm of one configuration.
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algorithm = 0;
  size_t workspaceLimit = 0;
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

/// The first entry of `results` (ranked by cuDNN) that ran, is deterministic
/// and fits in `limit` bytes, as `exactBytes(algo)` (cuDNN's workspace
/// query for that algorithm) confirms.
template <typename Perf, typename ExactBytes>
int pickAlgorithm(const char *op, const Perf *results, int count,
                  size_t limit, ExactBytes exactBytes) {
  size_t smallest = SIZE_MAX;
  for (int i = 0; i < count; ++i) {
    if (results[i].status != CUDNN_STATUS_SUCCESS ||
        results[i].determinism != CUDNN_DETERMINISTIC)
      continue;
    size_t bytes = std::max(results[i].memory, exactBytes(results[i].algo));
    if (bytes <= limit)
      return static_cast<int>(results[i].algo);
    smallest = std::min(smallest, bytes);
  }
  fatal(op, "no deterministic cuDNN algorithm fits the planned workspace of " +
                std::to_string(limit) + " bytes" +
                (smallest == SIZE_MAX
                     ? std::string(" (none is deterministic)")
                     : " (the smallest needs " + std::to_string(smallest) +
                           ")"));
}

ConvPlan makePlan(const ConvConfig &c) {
  const char *op = kernelName(c.kind);
  for (const Dims *d : {&c.x, &c.w, &c.y})
    requireRank(op, "tensor", *d, 4);
  require(c.pads[0] == c.pads[2] && c.pads[1] == c.pads[3], op,
          "cuDNN needs symmetric padding (top = bottom, left = right)");
  ConvPlan plan;
  plan.x = tensorDescriptor(op, c.x);
  plan.y = tensorDescriptor(op, c.y);
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

  plan.workspaceLimit = cuda::convWorkspaceBytes(c.x, c.w, c.y);
  cudnnHandle_t handle = cuda::cudnn();
  switch (c.direction()) {
  case ConvConfig::Direction::Forward: {
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    MEMOPT_CUDNN_CHECK(op, cudnnGetConvolutionForwardAlgorithm_v7(
                               handle, plan.x, plan.w, plan.conv, plan.y,
                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count,
                               results));
    plan.algorithm = pickAlgorithm(
        op, results, count, plan.workspaceLimit,
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
    plan.algorithm = pickAlgorithm(
        op, results, count, plan.workspaceLimit,
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
    plan.algorithm = pickAlgorithm(
        op, results, count, plan.workspaceLimit,
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

const ConvPlan &planFor(const ConvConfig &config) {
  static std::mutex mutex;
  static std::map<ConvConfig::Key, ConvPlan> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = config.key();
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, makePlan(config)).first;
  return it->second;
}

/// Runs the convolution of `config`: `in` is read, `out` written. Forward:
/// in = x, out = y. Data: in = dy, out = dx. Filter: in = dy, out = dw,
/// with `x` the forward input.
void run(const ConvConfig &config, const float *x, const float *w,
         const float *dy, float *out, void *workspace) {
  const char *op = kernelName(config.kind);
  const ConvPlan &plan = planFor(config);
  require(workspace || plan.workspaceLimit == 0, op,
          "the plan gave no workspace");
  const float one = 1.0f, zero = 0.0f;
  cudnnHandle_t handle = cuda::cudnn();
  switch (config.direction()) {
  case ConvConfig::Direction::Forward:
    MEMOPT_CUDNN_CHECK(
        op, cudnnConvolutionForward(
                handle, &one, plan.x, x, plan.w, w, plan.conv,
                static_cast<cudnnConvolutionFwdAlgo_t>(plan.algorithm),
                workspace, plan.workspaceLimit, &zero, plan.y, out));
    break;
  case ConvConfig::Direction::Data:
    MEMOPT_CUDNN_CHECK(
        op, cudnnConvolutionBackwardData(
                handle, &one, plan.w, w, plan.y, dy, plan.conv,
                static_cast<cudnnConvolutionBwdDataAlgo_t>(plan.algorithm),
                workspace, plan.workspaceLimit, &zero, plan.x, out));
    break;
  case ConvConfig::Direction::Filter:
    MEMOPT_CUDNN_CHECK(
        op, cudnnConvolutionBackwardFilter(
                handle, &one, plan.x, x, plan.y, dy, plan.conv,
                static_cast<cudnnConvolutionBwdFilterAlgo_t>(plan.algorithm),
                workspace, plan.workspaceLimit, &zero, plan.w, out));
    break;
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
  return {kind, x, w, y, strides, dilations, pads, groups};
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
