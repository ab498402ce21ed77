//===- MatMul.cpp - Batched matrix product and gemm through cuBLAS --------===//
//
// cuBLAS is column-major; a row-major C = A B is the column-major
// C^T = B^T A^T, so every call swaps the operands instead of transposing.
// Broadcast batch axes of tg.matmul are walked on the host, one cuBLAS call
// per output matrix (U-Nets have no matrix products on the hot path; a
// classifier head at most). The math mode is pedantic unless TF32 is
// allowed (Context.cpp).
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "../CPU/Common.h"
#include "Context.h"

namespace memopt::rt {
using namespace detail;

namespace {

/// Row-major out (m x n) = alpha * op(a) (m x k) * op(b) (k x n) + beta * out.
void rowMajorGemm(const char *op, bool transA, bool transB, int64_t m,
                  int64_t n, int64_t k, float alpha, const float *a,
                  const float *b, float beta, float *out) {
  require(m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX, op,
          "matrix dimensions exceed cuBLAS's int range");
  MEMOPT_CUBLAS_CHECK(
      op, cublasSgemm(cuda::cublas(), transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                      transA ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                      static_cast<int>(m), static_cast<int>(k), &alpha, b,
                      static_cast<int>(transB ? k : n), a,
                      static_cast<int>(transA ? m : k), &beta, out,
                      static_cast<int>(n)));
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
  for (StridedWalk w(batch, ls, rs); !w.done(); w.next())
    rowMajorGemm(op, false, false, m, n, k, 1.0f,
                 lhs.data + w.offset(0) * m * k, rhs.data + w.offset(1) * k * n,
                 0.0f, output.data + w.index() * m * n);
}

void gemm(ConstTensor a, ConstTensor b, ConstTensor c, Tensor output,
          double alpha, double beta, bool transA, bool transB) {
  const char *op = "gemm";
  int64_t m, k, n;
  gemmSizes(op, a.shape, b.shape, output.shape, transA, transB, m, k, n);
  // C, broadcast to m x n, is the initial output that cuBLAS scales by beta.
  bool addC = c.present() && beta != 0;
  if (addC)
    broadcast(c, output);
  rowMajorGemm(op, transA, transB, m, n, k, static_cast<float>(alpha), a.data,
               b.data, addC ? static_cast<float>(beta) : 0.0f, output.data);
}

} // namespace memopt::rt
