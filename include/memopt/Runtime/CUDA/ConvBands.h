//===- ConvBands.h - Row bands of a convolution -----------------*- C++ -*-===//
//
// cuDNN's workspace needs grow with the height of the images: at 2048x2048
// the filter gradient of one sample and one output channel of a ResNet-34
// U-Net decoder convolution still wanted more than the planned workspace
// (ConvWorkspace.h). The CUDA runtime then also cuts the convolution into
// bands of rows, each a cuDNN call on a smaller image, so that some
// deterministic algorithm fits for any height (ConvSlices.h chooses the
// band height). This header is the geometry of those bands, along the
// height of the forward convolution (`in` input rows, `out` output rows):
//
// - forward and filter gradient: a band is a range of output rows (of y,
//   of dy); it reads the input rows `inputsOf(band)`, its halo included,
//   which start above row 0 or end past the last row where the convolution
//   pads. The forward writes its band of y; the filter gradient adds the
//   band's contribution to dW.
// - data gradient: a band is a range of input rows (of dx), written by one
//   call and by no other. Every output row that reads one of them,
//   `outputsReading(band)`, contributes; the call computes the gradient of
//   the rows those outputs read, `inputsOf(outputsReading(band))`, of which
//   only the band's rows are complete and kept.
//
// Each call runs with no padding along the height: the rows it reads are
// given to it (rows inside the tensor directly, padding rows as zeros in a
// staged copy), since cuDNN pads both sides equally and a band at the top
// needs padding above it but none below.
//
// For 1-D and 3-D convolutions the "rows" are the steps of the first
// spatial axis (ConvGeometry.h): the length of a signal, the slabs of depth
// of a volume; the geometry is the same.
//
// Header-only and free of CUDA, so unit tests check it without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_CONVBANDS_H
#define MEMOPT_RUNTIME_CUDA_CONVBANDS_H

#include <algorithm>
#include <cstdint>

namespace memopt::rt::cuda {

/// Rows [begin, end) along a tensor's height. `begin` may be negative and
/// `end` past the height: the padding rows a convolution reads.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end > begin ? end - begin : 0; }
  bool empty() const { return end <= begin; }
  /// Whether every row lies in [0, height).
  bool inside(int64_t height) const { return begin >= 0 && end <= height; }
  /// The rows in both (empty if none; then begin == end).
  RowRange intersect(RowRange other) const {
    int64_t b = std::max(begin, other.begin), e = std::min(end, other.end);
    return {b, std::max(b, e)};
  }
  bool operator==(const RowRange &other) const {
    return begin == other.begin && end == other.end;
  }
};

/// Band `index` when `total` rows are cut into bands of `rows` (the last
/// one shorter when `rows` does not divide `total`).
inline RowRange bandAt(int64_t total, int64_t rows, int64_t index) {
  return {index * rows, std::min(total, (index + 1) * rows)};
}

/// How many bands of `rows` cover `total` rows.
inline int64_t bandCount(int64_t total, int64_t rows) {
  return (total + rows - 1) / rows;
}

/// The height of a forward convolution: `in` input rows, `out` output rows,
/// a kernel of `kernel` rows dilated by `dilation`, `stride`, and `pad`
/// rows of zeros above and below (cuDNN's symmetric padding).
struct ConvRows {
  int64_t in = 0;
  int64_t out = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad = 0;
  int64_t dilation = 1;

  /// The rows one output row's kernel spans.
  int64_t span() const { return (kernel - 1) * dilation + 1; }

  /// The input rows that output rows `outputs` read: output row o reads
  /// [o * stride - pad, o * stride - pad + span). Empty for no outputs.
  RowRange inputsOf(RowRange outputs) const {
    int64_t begin = outputs.begin * stride - pad;
    if (outputs.empty())
      return {begin, begin};
    return {begin, (outputs.end - 1) * stride - pad + span()};
  }

  /// The output rows whose span meets input rows `inputs` (within
  /// [0, out); empty if none, e.g. rows a strided 1x1 kernel skips). With
  /// dilation a span also covers rows its taps skip: the extra outputs add
  /// nothing to `inputs`' gradient, and none that does is missing.
  RowRange outputsReading(RowRange inputs) const {
    // o's span [o * stride - pad, o * stride - pad + span) meets
    // [inputs.begin, inputs.end) iff
    // inputs.begin - span + 1 <= o * stride - pad <= inputs.end - 1.
    int64_t first =
        std::max<int64_t>(0, ceilDiv(inputs.begin + pad - span() + 1, stride));
    int64_t last = std::min(out - 1, floorDiv(inputs.end - 1 + pad, stride));
    if (inputs.empty() || last < first)
      return {first, first};
    return {first, last + 1};
  }

private:
  static int64_t floorDiv(int64_t a, int64_t b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
  }
  static int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }
};

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_CONVBANDS_H
