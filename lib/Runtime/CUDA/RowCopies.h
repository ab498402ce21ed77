//===- RowCopies.h - Copies of row ranges of NCHW planes --------*- C++ -*-===//
//
// A convolution cut into bands of rows (memopt/Runtime/CUDA/ConvBands.h)
// stages the input rows a band reads, padding rows as zeros, in its
// workspace, and copies the rows of the data gradient it completes out of
// it. Both are 2-D copies over the N x C planes of a tensor (one pitched
// cudaMemcpy2DAsync, or cudaMemset2DAsync for zeros), queued on the
// runtime's stream. Private to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_ROWCOPIES_H
#define MEMOPT_LIB_RUNTIME_CUDA_ROWCOPIES_H

#include "memopt/Runtime/CUDA/ConvBands.h"

#include <cstddef>
#include <cstdint>

namespace memopt::rt::cuda {

/// `count` planes of `height` x `width` elements of `elementBytes`, one
/// after the other, whose row 0 is row `firstRow` of the tensor's height
/// (0 for a tensor, the first row a band reads for a staged band).
struct Planes {
  void *data;
  int64_t count;
  int64_t height;
  int64_t firstRow;
  int64_t width;
  size_t elementBytes;
};

/// Copies rows `rows` (tensor coordinates, held by both) of every plane of
/// `from` into `to` (same plane count and width).
void copyRows(const char *op, const Planes &from, const Planes &to,
              RowRange rows);

/// Sets rows `rows` (tensor coordinates, held by `to`) of every plane of
/// `to` to zero; nothing for no rows.
void zeroRows(const char *op, const Planes &to, RowRange rows);

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_ROWCOPIES_H
