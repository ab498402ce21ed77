//===- Context.cpp - Stream, library handles and checked calls ------------===//

#include "Context.h"

#include "../CPU/Common.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace memopt::rt::cuda {

void checkCuda(cudaError_t error, const char *op, const char *call) {
  if (error != cudaSuccess)
    detail::fatal(op, std::string(call) + " failed: " +
                          cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ")");
}

void checkCudnn(cudnnStatus_t status, const char *op, const char *call) {
  if (status != CUDNN_STATUS_SUCCESS)
    detail::fatal(op, std::string(call) + " failed: " +
                          cudnnGetErrorString(status));
}

void checkCublas(cublasStatus_t status, const char *op, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    detail::fatal(op, std::string(call) + " failed: " +
                          cublasGetStatusName(status) + " (" +
                          cublasGetStatusString(status) + ")");
}

cudaStream_t stream() {
  static cudaStream_t instance = [] {
    cudaStream_t s = nullptr;
    MEMOPT_CUDA_CHECK("cuda setup",
                      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return instance;
}

unsigned launchBlocks(int64_t n) {
  int64_t blocks = (n + kLaunchThreads - 1) / kLaunchThreads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, int64_t(1) << 16));
}

void checkLaunch(const char *op) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    detail::fatal(op, std::string("kernel launch failed: ") +
                          cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ")");
}

cudnnHandle_t cudnn() {
  static cudnnHandle_t instance = [] {
    cudnnHandle_t h = nullptr;
    MEMOPT_CUDNN_CHECK("cudnn setup", cudnnCreate(&h));
    MEMOPT_CUDNN_CHECK("cudnn setup", cudnnSetStream(h, stream()));
    return h;
  }();
  return instance;
}

cublasHandle_t cublas() {
  static cublasHandle_t instance = [] {
    cublasHandle_t h = nullptr;
    MEMOPT_CUBLAS_CHECK("cublas setup", cublasCreate(&h));
    MEMOPT_CUBLAS_CHECK("cublas setup", cublasSetStream(h, stream()));
    // Pedantic math rules out TF32 and reduced-precision reductions.
    MEMOPT_CUBLAS_CHECK(
        "cublas setup",
        cublasSetMathMode(h, allowTf32() ? CUBLAS_TF32_TENSOR_OP_MATH
                                         : CUBLAS_PEDANTIC_MATH));
    return h;
  }();
  return instance;
}

bool allowTf32() {
  static const bool allowed = [] {
    const char *value = std::getenv("MEMOPT_ALLOW_TF32");
    return value && std::strcmp(value, "1") == 0;
  }();
  return allowed;
}

} // namespace memopt::rt::cuda
