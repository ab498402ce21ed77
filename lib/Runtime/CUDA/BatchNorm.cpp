//===- BatchNorm.cpp - Batch normalization through cuDNN ------------------===//
//
// cuDNN's spatial batch normalization matches tg.batch_norm: the running
// variance is updated with the unbiased batch variance, `momentum` is
// cuDNN's exponential average factor, and the saved statistics are the
// batch mean and 1 / sqrt(var + eps). cuDNN updates the running statistics
// in place, so they are first copied to the result buffers when those are
// distinct. Inputs of rank 2 or 3 (and above 4) are viewed as N x C x S x 1.
//
// Mixed precision: the input, output and their gradients may be bf16 or
// f16 (tg-amp lets batch_norm follow its input); scale, bias, the running
// and the saved statistics and the parameter gradients stay f32. Those
// calls are checked here and run by LowPrecisionBatchNorm.cu.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"
#include "LowPrecisionBatchNorm.h"

#include <string>

namespace memopt::rt {
using namespace detail;

namespace {

/// The x and per-channel descriptors of one call, destroyed at scope exit.
/// For bf16 / f16 activations only the channel count (cuDNN is not called).
class Descriptors {
public:
  Descriptors(const char *op, const Dims &input, ElementType type) : op(op) {
    require(input.size >= 2, op, "'input' must have rank >= 2 (N x C x ...)");
    require(type != ElementType::I64, op,
            "takes float tensors (f32, bf16 or f16), not i64");
    int64_t inner = 1;
    for (int i = 2; i < input.size; ++i)
      inner *= input[i];
    channels = input[1];
    if (type != ElementType::F32)
      return;
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
    if (!x)
      return;
    MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(x));
    MEMOPT_CUDNN_CHECK(op, cudnnDestroyTensorDescriptor(perChannel));
  }
  /// A per-channel operand or result: `channels` f32 values.
  void requireChannels(const char *name, const TensorView<const float> &t) const {
    requireShape(op, name, t.shape, Dims{channels});
    require(t.type == ElementType::F32, op,
            "scale, bias and statistics must be f32 (mixed precision keeps "
            "them in f32)");
  }

  const char *op;
  int64_t channels = 0;
  cudnnTensorDescriptor_t x = nullptr, perChannel = nullptr;
};

void requireEpsilon(const char *op, double epsilon) {
  require(epsilon >= CUDNN_BN_MIN_EPSILON, op,
          "epsilon is below cuDNN's minimum CUDNN_BN_MIN_EPSILON (1e-5)");
}

/// cuDNN reads x, y, dy and dx through one descriptor: one element type.
void requireSameType(const char *op, const char *name, ConstTensor t,
                     ConstTensor input) {
  if (t.type != input.type)
    fatal(op, std::string(name) + " must have the input's element type");
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
  Descriptors d(op, input.shape, input.type);
  requireShape(op, "output", output.shape, input.shape);
  requireSameType(op, "output", output, input);
  for (auto [name, t] :
       {std::pair<const char *, ConstTensor>{"scale", scale},
        {"bias", bias},
        {"running_mean", runningMean},
        {"running_var", runningVar},
        {"new_running_mean", newRunningMean},
        {"new_running_var", newRunningVar},
        {"saved_mean", savedMean},
        {"saved_inv_std", savedInvStd}})
    d.requireChannels(name, t);
  require(input.numel() > input.dim(1), op,
          "one value per channel: the unbiased variance is undefined");
  requireEpsilon(op, epsilon);
  if (input.type != ElementType::F32)
    return cuda::lowPrecisionBatchNorm(input, scale, bias, runningMean,
                                       runningVar, output, newRunningMean,
                                       newRunningVar, savedMean, savedInvStd,
                                       epsilon, momentum);
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
  Descriptors d(op, input.shape, input.type);
  requireShape(op, "output", output.shape, input.shape);
  requireSameType(op, "output", output, input);
  for (auto [name, t] : {std::pair<const char *, ConstTensor>{"scale", scale},
                         {"bias", bias},
                         {"mean", mean},
                         {"var", var}})
    d.requireChannels(name, t);
  requireEpsilon(op, epsilon);
  if (input.type != ElementType::F32)
    return cuda::lowPrecisionBatchNormInference(input, scale, bias, mean, var,
                                                output, epsilon);
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
  Descriptors d(op, input.shape, input.type);
  requireShape(op, "grad_output", gradOutput.shape, input.shape);
  requireShape(op, "grad_input", gradInput.shape, input.shape);
  requireSameType(op, "grad_output", gradOutput, input);
  requireSameType(op, "grad_input", gradInput, input);
  for (auto [name, t] :
       {std::pair<const char *, ConstTensor>{"scale", scale},
        {"saved_mean", savedMean},
        {"saved_inv_std", savedInvStd},
        {"grad_scale", gradScale},
        {"grad_bias", gradBias}})
    d.requireChannels(name, t);
  if (input.type != ElementType::F32)
    return cuda::lowPrecisionBatchNormBackward(gradOutput, input, scale,
                                               savedMean, savedInvStd,
                                               gradInput, gradScale, gradBias);
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
