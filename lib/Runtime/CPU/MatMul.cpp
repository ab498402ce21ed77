//===- MatMul.cpp - Batched matrix product and gemm
//------------------------===//
//
// Plain loops with double accumulation: the U-Nets memopt targets hardly use
// matrix products (a classifier head at most), so simplicity and exactness
// win over speed here.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "LowPrecision.h"

#include <algorithm>

namespace memopt::rt {
using namespace detail;

namespace {

/// A matrix inside a buffer: element (i, j) is at data[i * row + j * col],
/// stored as T (float, BF16, F16) and read as double.
template <typename T> struct Matrix {
  const T *data;
  int64_t row, col;
  double at(int64_t i, int64_t j) const { return data[i * row + j * col]; }
};

/// The double-precision dot product of row i of `a` and column j of `b`.
template <typename T>
double dot(const Matrix<T> &a, const Matrix<T> &b, int64_t i, int64_t j,
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
  int64_t m, k, n;
  matmulSizes(kernel, l, r, o, m, k, n);
  // Batch axes broadcast; walk them with per-operand matrix strides.
  Dims batch(o.values, o.size - 2);
  Dims lBatch(l.values, l.size - 2), rBatch(r.values, r.size - 2);
  Dims ls = broadcastStrides(kernel, lBatch, batch);
  Dims rs = broadcastStrides(kernel, rBatch, batch);
  for (int i = 0; i < batch.size; ++i) {
    ls[i] *= m * k;
    rs[i] *= k * n;
  }
  requireType(kernel, "rhs", rhs.type, lhs.type);
  requireType(kernel, "output", output.type, lhs.type);
  dispatchFloatType(kernel, lhs.type, [&](auto tag) {
    using T = decltype(tag);
    for (StridedWalk w(batch, ls, rs); !w.done(); w.next()) {
      Matrix<T> a{lhs.elements<T>() + w.offset(0), k, 1};
      Matrix<T> b{rhs.elements<T>() + w.offset(1), n, 1};
      T *c = output.elements<T>() + w.index() * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[i * n + j] = static_cast<float>(dot(a, b, i, j, k));
    }
  });
}

void gemm(ConstTensor a, ConstTensor b, ConstTensor c, Tensor output,
          double alpha, double beta, bool transA, bool transB) {
  const char *kernel = "gemm";
  int64_t m, k, n;
  gemmSizes(kernel, a.shape, b.shape, output.shape, transA, transB, m, k, n);
  requireType(kernel, "b", b.type, a.type);
  requireType(kernel, "output", output.type, a.type);
  if (c.present())
    requireType(kernel, "c", c.type, a.type);
  Dims cs;
  if (c.present())
    cs = broadcastStrides(kernel, c.shape, Dims{m, n});
  dispatchFloatType(kernel, a.type, [&](auto tag) {
    using T = decltype(tag);
    const T *aData = a.elements<T>(), *bData = b.elements<T>();
    const T *cData = c.elements<T>();
    T *out = output.elements<T>();
    Matrix<T> am = transA ? Matrix<T>{aData, 1, m} : Matrix<T>{aData, k, 1};
    Matrix<T> bm = transB ? Matrix<T>{bData, 1, k} : Matrix<T>{bData, n, 1};
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double v = alpha * dot(am, bm, i, j, k);
        if (c.present())
          v += beta * double(cData[i * cs[0] + j * cs[1]]);
        out[i * n + j] = static_cast<float>(v);
      }
  });
}

} // namespace memopt::rt
