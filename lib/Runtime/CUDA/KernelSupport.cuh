//===- KernelSupport.cuh - Shared pieces of the CUDA kernels ----*- CUDA -*-===//
//
// Grid-stride loops over int64 indices (launched as Launch.h says), the
// strided index arithmetic of broadcasting, slicing and transposing
// kernels, and a deterministic block reduction: each thread sums a fixed subset in double
// and the block combines the partial sums in a fixed tree, so a reduction
// gives the same bits on every run (no floating-point atomics anywhere).
//
// Element types: under mixed precision (tg-amp) a tensor holds f32, bf16
// or f16. Kernels read operands through `Load` and write results through
// `Store`, which convert each element to and from float (exact widening;
// narrowing rounds to nearest even, as the CPU backend and tg.cast do), so
// every kernel body computes in f32 whatever the storage type. The type is
// a kernel argument: one branch per element, the same for every thread,
// which costs nothing beside the memory traffic of these kernels.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_KERNELSUPPORT_CUH
#define MEMOPT_LIB_RUNTIME_CUDA_KERNELSUPPORT_CUH

#include "memopt/Runtime/Tensor.h"

#include "../CPU/Common.h"
#include "Context.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace memopt::rt::cuda {

/// The bytes of one f32, bf16 or f16 element (elementBytes() is host-only).
__host__ __device__ inline int64_t floatBytes(ElementType type) {
  return type == ElementType::F32 ? 4 : 2;
}

/// Device elements of an f32, bf16 or f16 tensor, read as float.
struct Load {
  const void *data;
  ElementType type;

  __device__ float operator[](int64_t i) const {
    switch (type) {
    case ElementType::BF16:
      return __bfloat162float(static_cast<const __nv_bfloat16 *>(data)[i]);
    case ElementType::F16:
      return __half2float(static_cast<const __half *>(data)[i]);
    default:
      return static_cast<const float *>(data)[i];
    }
  }
  /// The elements from `offset` on.
  __host__ __device__ Load operator+(int64_t offset) const {
    return {static_cast<const char *>(data) + offset * floatBytes(type),
            type};
  }
};

/// Device elements of an f32, bf16 or f16 tensor, written from float
/// (rounded to nearest even when narrowing).
struct Store {
  void *data;
  ElementType type;

  __device__ void set(int64_t i, float v) const {
    switch (type) {
    case ElementType::BF16:
      static_cast<__nv_bfloat16 *>(data)[i] = __float2bfloat16_rn(v);
      break;
    case ElementType::F16:
      static_cast<__half *>(data)[i] = __float2half_rn(v);
      break;
    default:
      static_cast<float *>(data)[i] = v;
    }
  }
  __host__ __device__ Store operator+(int64_t offset) const {
    return {static_cast<char *>(data) + offset * floatBytes(type), type};
  }
};

/// The elements of `t` (f32, bf16 or f16; aborts naming `op` for i64).
inline Load load(const char *op, ConstTensor t) {
  detail::require(t.type != ElementType::I64, op,
                  "takes float tensors (f32, bf16 or f16), not i64");
  return {t.data, t.type};
}
inline Store store(const char *op, Tensor t) {
  detail::require(t.type != ElementType::I64, op,
                  "takes float tensors (f32, bf16 or f16), not i64");
  return {t.data, t.type};
}

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
