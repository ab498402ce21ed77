//===- MatMul.cpp - Batched matrix product and gemm through cuBLAS --------===//
//
// cuBLAS is column-major; a row-major C = A B is the column-major
// C^T = B^T A^T, so every call swaps the operands instead of transposing.
// Broadcast batch axes of tg.matmul are walked on the host, one cuBLAS call
// per output matrix (U-Nets have no matrix products on the hot path; a
// classifier head at most). The math mode is pedantic unless TF32 is
// allowed (Context.cpp).
//
// Mixed precision: bf16 / f16 operands and results (tg-amp runs matmul and
// gemm low) go through cublasGemmEx with CUDA_R_16BF / CUDA_R_16F and
// CUBLAS_COMPUTE_32F: float accumulation, float alpha and beta, the
// result rounded once to its type. cuBLAS gives the same bits run to run
// on one GPU for a given configuration (one stream, no split-K atomics
// with its default workspace), as for float.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"

namespace memopt::rt {
using namespace detail;

namespace {

cudaDataType_t cublasType(const char *op, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return CUDA_R_32F;
  case ElementType::BF16:
    return CUDA_R_16BF;
  case ElementType::F16:
    return CUDA_R_16F;
  case ElementType::I64:
    break;
  }
  fatal(op, "takes float tensors (f32, bf16 or f16), not i64");
}

/// Row-major out (m x n) = alpha * op(a) (m x k) * op(b) (k x n) + beta * out,
/// all three of element type `type`; `a`, `b`, `out` are the matrices'
/// first elements.
void rowMajorGemm(const char *op, ElementType type, bool transA, bool transB,
                  int64_t m, int64_t n, int64_t k, float alpha, const void *a,
                  const void *b, float beta, void *out) {
  require(m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX, op,
          "matrix dimensions exceed cuBLAS's int range");
  cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldA = static_cast<int>(transA ? m : k);
  int ldB = static_cast<int>(transB ? k : n);
  if (type == ElementType::F32) {
    MEMOPT_CUBLAS_CHECK(
        op, cublasSgemm(cuda::cublas(), opB, opA, static_cast<int>(n),
                        static_cast<int>(m), static_cast<int>(k), &alpha,
                        static_cast<const float *>(b), ldB,
                        static_cast<const float *>(a), ldA, &beta,
                        static_cast<float *>(out), static_cast<int>(n)));
    return;
  }
  cudaDataType_t t = cublasType(op, type);
  MEMOPT_CUBLAS_CHECK(
      op, cublasGemmEx(cuda::cublas(), opB, opA, static_cast<int>(n),
                       static_cast<int>(m), static_cast<int>(k), &alpha, b, t,
                       ldB, a, t, ldA, &beta, out, t, static_cast<int>(n),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// Aborts unless the operands and the result share one element type.
void requireOneType(const char *op, ConstTensor a, ConstTensor b,
                    ConstTensor out) {
  require(a.type == b.type && b.type == out.type, op,
          "the operands and the result must share one element type (f32, "
          "bf16 or f16)");
}

} // namespace

void matmul(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  const char *op = "matmul";
  const Dims &l = lhs.shape, &r = rhs.shape, &o = output.shape;
  int64_t m, k, n;
  matmulSizes(op, l, r, o, m, k, n);
  Dims batch(o.values, o.size - 2);
  Dims ls = broadcastStrides(op, Dims(l.values, l.size - 2), batch);
  Dims rs = broadcastStrides(op, Dims(r.values, r.size - 2), batch);
  requireOneType(op, lhs, rhs, output);
  const int64_t bytes = static_cast<int64_t>(elementBytes(output.type));
  auto at = [&](const void *base, int64_t elements) {
    return static_cast<const char *>(base) + elements * bytes;
  };
  for (StridedWalk w(batch, ls, rs); !w.done(); w.next())
    rowMajorGemm(op, output.type, false, false, m, n, k, 1.0f,
                 at(lhs.data, w.offset(0) * m * k),
                 at(rhs.data, w.offset(1) * k * n), 0.0f,
                 static_cast<char *>(static_cast<void *>(output.data)) +
                     w.index() * m * n * bytes);
}

void gemm(ConstTensor a, ConstTensor b, ConstTensor c, Tensor output,
          double alpha, double beta, bool transA, bool transB) {
  const char *op = "gemm";
  int64_t m, k, n;
  gemmSizes(op, a.shape, b.shape, output.shape, transA, transB, m, k, n);
  requireOneType(op, a, b, output);
  // C, broadcast to m x n, is the initial output that cuBLAS scales by beta.
  bool addC = c.present() && beta != 0;
  if (addC)
    broadcast(c, output);
  rowMajorGemm(op, output.type, transA, transB, m, n, k,
               static_cast<float>(alpha), a.data, b.data,
               addC ? static_cast<float>(beta) : 0.0f, output.data);
}

} // namespace memopt::rt
