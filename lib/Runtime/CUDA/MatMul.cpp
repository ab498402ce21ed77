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

#include <algorithm>

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
  require(l.size >= 2 && r.size >= 2, op, "operands must have rank >= 2");
  const int64_t m = l[l.size - 2], k = l[l.size - 1], n = r[r.size - 1];
  require(r[r.size - 2] == k, op, "inner dimensions differ");
  require(o.size == std::max(l.size, r.size) && o[o.size - 2] == m &&
              o[o.size - 1] == n,
          op, "output shape does not match the operands");
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
  requireRank(op, "a", a.shape, 2);
  requireRank(op, "b", b.shape, 2);
  const int64_t m = transA ? a.dim(1) : a.dim(0);
  const int64_t k = transA ? a.dim(0) : a.dim(1);
  const int64_t n = transB ? b.dim(0) : b.dim(1);
  require((transB ? b.dim(1) : b.dim(0)) == k, op, "inner dimensions differ");
  requireShape(op, "output", output.shape, Dims{m, n});
  // C, broadcast to m x n, is the initial output that cuBLAS scales by beta.
  bool addC = c.present() && beta != 0;
  if (addC)
    broadcast(c, output);
  rowMajorGemm(op, transA, transB, m, n, k, static_cast<float>(alpha), a.data,
               b.data, addC ? static_cast<float>(beta) : 0.0f, output.data);
}

} // namespace memopt::rt
