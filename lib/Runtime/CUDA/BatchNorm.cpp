//===- BatchNorm.cpp - Batch normalization through cuDNN ------------------===//
//
// cuDNN's spatial batch normalization matches tg.batch_norm: the running
// variance is updated with the unbiased batch variance, `momentum` is
// cuDNN's exponential average factor, and the saved statistics are the
// batch mean and 1 / sqrt(var + eps). cuDNN updates the running statistics
// in place, so they are first copied to the result buffers when those are
// distinct. Inputs of rank 2 or 3 (and above 4) are viewed as N x C x S x 1.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"

namespace memopt::rt {
using namespace detail;

namespace {

/// The x and per-channel descriptors of one call, destroyed at scope exit.
class Descriptors {
public:
  Descriptors(const char *op, const Dims &input) : op(op) {
    require(input.size >= 2, op, "'input' must have rank >= 2 (N x C x ...)");
    int64_t inner = 1;
    for (int i = 2; i < input.size; ++i)
      inner *= input[i];
    channels = input[1];
    MEMOPT_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&x));
    MEMOPT_CUDNN_CHECK(op, cudnnSetTensor4dDescriptor(
                               x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                               static_cast<int>(input[0]),
                               static_cast<int>(channels),
                               static_cast<int>(inner), 1));
    MEMOPT_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&perChannel));
    MEMOPT_CUDNN_CHECK(op, cudnnDeriveBNTensorDescriptor(
                               perChannel, x, CUDNN_BATCHNORM_SPATIAL));
  }
  ~Descriptors() {
    MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(x));
    MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(perChannel));
  }
  void requireChannels(const char *name, const Dims &shape) const {
    requireShape(op, name, shape, Dims{channels});
  }

  const char *op;
  int64_t channels = 0;
  cudnnTensorDescriptor_t x = nullptr, perChannel = nullptr;
};

void requireEpsilon(const char *op, double epsilon) {
  require(epsilon >= CUDNN_BN_MIN_EPSILON, op,
          "epsilon is below cuDNN's minimum CUDNN_BN_MIN_EPSILON (1e-5)");
}

void copyIfDistinct(const char *op, Tensor to, ConstTensor from) {
  if (to.data != from.data)
    MEMOPT_CUDA_CHECK(op, cudaMemcpyAsync(to.data, from.data, to.bytes(),
                                          cudaMemcpyDeviceToDevice,
                                          cuda::stream()));
}

} // namespace

void batchNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
               ConstTensor runningMean, ConstTensor runningVar, Tensor output,
               Tensor newRunningMean, Tensor newRunningVar, Tensor savedMean,
               Tensor savedInvStd, double epsilon, double momentum) {
  const char *op = "batch_norm";
  Descriptors d(op, input.shape);
  requireShape(op, "output", output.shape, input.shape);
  for (auto [name, shape] :
       {std::pair{"scale", scale.shape}, {"bias", bias.shape},
        {"running_mean", runningMean.shape}, {"running_var", runningVar.shape},
        {"new_running_mean", newRunningMean.shape},
        {"new_running_var", newRunningVar.shape},
        {"saved_mean", savedMean.shape}, {"saved_inv_std", savedInvStd.shape}})
    d.requireChannels(name, shape);
  require(input.numel() > input.dim(1), op,
          "one value per channel: the unbiased variance is undefined");
  requireEpsilon(op, epsilon);
  copyIfDistinct(op, newRunningMean, runningMean);
  copyIfDistinct(op, newRunningVar, runningVar);
  const float one = 1.0f, zero = 0.0f;
  MEMOPT_CUDNN_CHECK(
      op, cudnnBatchNormalizationForwardTraining(
              cuda::cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x,
              input.data, d.x, output.data, d.perChannel, scale.data,
              bias.data, momentum, newRunningMean.data, newRunningVar.data,
              epsilon, savedMean.data, savedInvStd.data));
}

void batchNormInference(ConstTensor input, ConstTensor scale, ConstTensor bias,
                        ConstTensor mean, ConstTensor var, Tensor output,
                        double epsilon) {
  const char *op = "batch_norm_inference";
  Descriptors d(op, input.shape);
  requireShape(op, "output", output.shape, input.shape);
  for (auto [name, shape] :
       {std::pair{"scale", scale.shape}, {"bias", bias.shape},
        {"mean", mean.shape}, {"var", var.shape}})
    d.requireChannels(name, shape);
  requireEpsilon(op, epsilon);
  const float one = 1.0f, zero = 0.0f;
  MEMOPT_CUDNN_CHECK(
      op, cudnnBatchNormalizationForwardInference(
              cuda::cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x,
              input.data, d.x, output.data, d.perChannel, scale.data,
              bias.data, mean.data, var.data, epsilon));
}

void batchNormBackward(ConstTensor gradOutput, ConstTensor input,
                       ConstTensor scale, ConstTensor savedMean,
                       ConstTensor savedInvStd, Tensor gradInput,
                       Tensor gradScale, Tensor gradBias) {
  const char *op = "batch_norm_backward";
  Descriptors d(op, input.shape);
  requireShape(op, "grad_output", gradOutput.shape, input.shape);
  requireShape(op, "grad_input", gradInput.shape, input.shape);
  for (auto [name, shape] :
       {std::pair{"scale", scale.shape}, {"saved_mean", savedMean.shape},
        {"saved_inv_std", savedInvStd.shape}, {"grad_scale", gradScale.shape},
        {"grad_bias", gradBias.shape}})
    d.requireChannels(name, shape);
  const float one = 1.0f, zero = 0.0f;
  // With the saved statistics given, cuDNN does not read epsilon.
  MEMOPT_CUDNN_CHECK(
      op, cudnnBatchNormalizationBackward(
              cuda::cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
              d.x, input.data, d.x, gradOutput.data, d.x, gradInput.data,
              d.perChannel, scale.data, gradScale.data, gradBias.data,
              CUDNN_BN_MIN_EPSILON, savedMean.data, savedInvStd.data));
}

} // namespace memopt::rt
