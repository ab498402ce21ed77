//===- MatMul.cpp - Batched matrix product and gemm ------------------------===//
//
// Plain loops with double accumulation: the U-Nets memopt targets hardly use
// matrix products (a classifier head at most), so simplicity and exactness
// win over speed here.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"

#include <algorithm>

namespace memopt::rt {
using namespace detail;

namespace {

/// A matrix inside a buffer: element (i, j) is at data[i * row + j * col].
struct Matrix {
  const float *data;
  int64_t row, col;
  double at(int64_t i, int64_t j) const { return data[i * row + j * col]; }
};

/// The double-precision dot product of row i of `a` and column j of `b`.
double dot(const Matrix &a, const Matrix &b, int64_t i, int64_t j,
           int64_t k) {
  double sum = 0;
  for (int64_t p = 0; p < k; ++p)
    sum += a.at(i, p) * b.at(p, j);
  return sum;
}

} // namespace

void matmul(ConstTensor lhs, ConstTensor rhs, Tensor output) {
  const char *kernel = "matmul";
  const Dims &l = lhs.shape, &r = rhs.shape, &o = output.shape;
  require(l.size >= 2 && r.size >= 2, kernel, "operands must have rank >= 2");
  const int64_t m = l[l.size - 2], k = l[l.size - 1], n = r[r.size - 1];
  require(r[r.size - 2] == k, kernel, "inner dimensions differ");
  require(o.size == std::max(l.size, r.size) && o[o.size - 2] == m &&
              o[o.size - 1] == n,
          kernel, "output shape does not match the operands");
  // Batch axes broadcast; walk them with per-operand matrix strides.
  Dims batch(o.values, o.size - 2);
  Dims lBatch(l.values, l.size - 2), rBatch(r.values, r.size - 2);
  Dims ls = broadcastStrides(kernel, lBatch, batch);
  Dims rs = broadcastStrides(kernel, rBatch, batch);
  for (int i = 0; i < batch.size; ++i) {
    ls[i] *= m * k;
    rs[i] *= k * n;
  }
  for (StridedWalk w(batch, ls, rs); !w.done(); w.next()) {
    Matrix a{lhs.data + w.offset(0), k, 1};
    Matrix b{rhs.data + w.offset(1), n, 1};
    float *c = output.data + w.index() * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] = static_cast<float>(dot(a, b, i, j, k));
  }
}

void gemm(ConstTensor a, ConstTensor b, ConstTensor c, Tensor output,
          double alpha, double beta, bool transA, bool transB) {
  const char *kernel = "gemm";
  requireRank(kernel, "a", a.shape, 2);
  requireRank(kernel, "b", b.shape, 2);
  const int64_t m = transA ? a.dim(1) : a.dim(0);
  const int64_t k = transA ? a.dim(0) : a.dim(1);
  const int64_t n = transB ? b.dim(0) : b.dim(1);
  require((transB ? b.dim(1) : b.dim(0)) == k, kernel,
          "inner dimensions differ");
  requireShape(kernel, "output", output.shape, Dims{m, n});
  Matrix am = transA ? Matrix{a.data, 1, m} : Matrix{a.data, k, 1};
  Matrix bm = transB ? Matrix{b.data, 1, k} : Matrix{b.data, n, 1};
  Dims cs;
  if (c.present())
    cs = broadcastStrides(kernel, c.shape, Dims{m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double v = alpha * dot(am, bm, i, j, k);
      if (c.present())
        v += beta * c.data[i * cs[0] + j * cs[1]];
      output.data[i * n + j] = static_cast<float>(v);
    }
}

} // namespace memopt::rt
