//===- KernelSupport.cuh - Shared pieces of the CUDA kernels ----*- CUDA -*-===//
//
// Grid-stride loops over int64 indices (launched as Launch.h says), the
// strided index arithmetic of broadcasting, slicing and transposing
// kernels, and a deterministic block reduction: each thread sums a fixed subset in double
// and the block combines the partial sums in a fixed tree, so a reduction
// gives the same bits on every run (no floating-point atomics anywhere).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_KERNELSUPPORT_CUH
#define MEMOPT_LIB_RUNTIME_CUDA_KERNELSUPPORT_CUH

#include "memopt/Runtime/Tensor.h"

#include "Context.h"

namespace memopt::rt::cuda {

#define MEMOPT_GRID_LOOP(i, n)                                                 \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/// A row-major index space and, for up to two operands, the element stride
/// of each axis (0 along broadcast axes): what the CPU's StridedWalk walks,
/// passed to a kernel by value.
struct IndexMap {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[2][kMaxRank] = {};

  IndexMap(const Dims &shape, const Dims &a, const Dims &b = Dims()) {
    rank = shape.size;
    for (int i = 0; i < rank; ++i) {
      this->shape[i] = shape[i];
      stride[0][i] = a[i];
      stride[1][i] = i < b.size ? b[i] : 0;
    }
  }

  /// The offsets of operand 0 and 1 at row-major `index`.
  __device__ void offsets(int64_t index, int64_t &a, int64_t &b) const {
    a = b = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t c = index % shape[i];
      index /= shape[i];
      a += c * stride[0][i];
      b += c * stride[1][i];
    }
  }
};

/// The sum of `value` over the block (blockDim.x == kLaunchThreads), valid
/// in thread 0. Every thread of the block must call it.
__device__ inline double blockSum(double value) {
  __shared__ double partial[kLaunchThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int width = kLaunchThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width)
      partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  double sum = partial[0];
  __syncthreads(); // `partial` may be reused by the next call
  return sum;
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_KERNELSUPPORT_CUH
