//===- LowPrecisionBatchNorm.h - Batch norm on bf16 / f16 -------*- C++ -*-===//
//
// The kernels behind batchNorm, batchNormInference and batchNormBackward
// (Kernels.h) when the activations are bf16 or f16 (LowPrecisionBatchNorm.cu
// says why they are not cuDNN's). BatchNorm.cpp checks the operands and
// dispatches; private to the CUDA runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_LOWPRECISIONBATCHNORM_H
#define MEMOPT_LIB_RUNTIME_CUDA_LOWPRECISIONBATCHNORM_H

#include "memopt/Runtime/Tensor.h"

namespace memopt::rt::cuda {

void lowPrecisionBatchNorm(ConstTensor input, ConstTensor scale,
                           ConstTensor bias, ConstTensor runningMean,
                           ConstTensor runningVar, Tensor output,
                           Tensor newRunningMean, Tensor newRunningVar,
                           Tensor savedMean, Tensor savedInvStd,
                           double epsilon, double momentum);
void lowPrecisionBatchNormInference(ConstTensor input, ConstTensor scale,
                                    ConstTensor bias, ConstTensor mean,
                                    ConstTensor var, Tensor output,
                                    double epsilon);
void lowPrecisionBatchNormBackward(ConstTensor gradOutput, ConstTensor input,
                                   ConstTensor scale, ConstTensor savedMean,
                                   ConstTensor savedInvStd, Tensor gradInput,
                                   Tensor gradScale, Tensor gradBias);

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_LOWPRECISIONBATCHNORM_H
