//===- RowCopies.cpp - Copies of row ranges of NCHW planes ----------------===//
//
// A plane's rows are contiguous, so a range of rows of every plane is a
// 2-D copy: one row of the copy per plane, the planes' sizes as pitches.
//
//===----------------------------------------------------------------------===//

#include "RowCopies.h"

#include "Context.h"

namespace memopt::rt::cuda {

namespace {

/// Where row `row` (tensor coordinates) of plane 0 of `planes` starts.
char *rowAt(const Planes &planes, int64_t row) {
  return static_cast<char *>(planes.data) +
         (row - planes.firstRow) * planes.width *
             static_cast<int64_t>(planes.elementBytes);
}

size_t pitchOf(const Planes &planes) {
  return static_cast<size_t>(planes.height * planes.width) *
         planes.elementBytes;
}

} // namespace

void copyRows(const char *op, const Planes &from, const Planes &to,
              RowRange rows) {
  if (rows.empty() || to.count == 0)
    return;
  MEMOPT_CUDA_CHECK(
      op, cudaMemcpy2DAsync(rowAt(to, rows.begin), pitchOf(to),
                            rowAt(from, rows.begin), pitchOf(from),
                            static_cast<size_t>(rows.size() * to.width) *
                                to.elementBytes,
                            static_cast<size_t>(to.count),
                            cudaMemcpyDeviceToDevice, stream()));
}

void zeroRows(const char *op, const Planes &to, RowRange rows) {
  if (rows.empty() || to.count == 0)
    return;
  MEMOPT_CUDA_CHECK(
      op, cudaMemset2DAsync(rowAt(to, rows.begin), pitchOf(to), 0,
                            static_cast<size_t>(rows.size() * to.width) *
                                to.elementBytes,
                            static_cast<size_t>(to.count), stream()));
}

} // namespace memopt::rt::cuda
