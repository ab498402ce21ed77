//===- Context.h - Stream, library handles and checked calls ----*- C++ -*-===//
//
// What every CUDA kernel of the runtime shares: one stream on which all
// kernels, library calls and copies are queued in order (the step's order
// is the plan's order), the cuDNN and cuBLAS handles bound to it, the math
// mode (TF32 off unless MEMOPT_ALLOW_TF32=1, so that results match the CPU
// backend to 1e-4), and the checks that turn a failed call into a message
// naming the op, the call and the library's error string. Private to the
// runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_CONTEXT_H
#define MEMOPT_LIB_RUNTIME_CUDA_CONTEXT_H

#include "memopt/Runtime/CUDA/Launch.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace memopt::rt::cuda {

void checkCuda(cudaError_t error, const char *op, const char *call);
void checkCudnn(cudnnStatus_t status, const char *op, const char *call);
void checkCublas(cublasStatus_t status, const char *op, const char *call);

/// `call` (an expression returning the library's status), checked; a
/// failure prints "memopt runtime: <op>: <call> failed: <error>" and aborts.
#define MEMOPT_CUDA_CHECK(op, call)                                            \
  ::memopt::rt::cuda::checkCuda((call), (op), #call)
#define MEMOPT_CUDNN_CHECK(op, call)                                           \
  ::memopt::rt::cuda::checkCudnn((call), (op), #call)
#define MEMOPT_CUBLAS_CHECK(op, call)                                          \
  ::memopt::rt::cuda::checkCublas((call), (op), #call)

/// The cuDNN and cuBLAS handles, bound to stream().
cudnnHandle_t cudnn();
cublasHandle_t cublas();

/// Whether TF32 tensor cores may be used for float convolutions and
/// matrix products: only when the environment sets MEMOPT_ALLOW_TF32=1.
bool allowTf32();

/// Whether an update of fp16 loss scaling (`...SkipNonFinite`) skipped a
/// non-finite gradient since the last call; waits for the stream.
bool takeSkippedUpdate();

/// Records that a convolution ran on bf16 / f16 tensors (cuDNN's own
/// kernels in that type); lowPrecisionConvolutions() reports it.
void noteLowPrecisionConvolution();
/// "cudnn-native" once a bf16 / f16 convolution ran, null before.
const char *lowPrecisionConvolutions();

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_CONTEXT_H
