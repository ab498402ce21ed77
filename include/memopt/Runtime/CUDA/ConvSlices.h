//===- ConvSlices.h - Splitting a convolution to fit its workspace -*- C++ -*-===//
//
// The plan reserves a fixed workspace per convolution (ConvWorkspace.h)
// without knowing what cuDNN's algorithms need on the GPU that trains. When
// no deterministic algorithm fits it, the CUDA runtime runs the convolution
// in slices instead of allocating more: a slice of the batch (every
// direction: samples are independent, and the filter gradient sums the
// slices' contributions); once a single sample does not fit, bands of
// rows (every direction, ConvBands.h); and for the filter gradient, once
// a single row does not fit, also a slice of the output channels (rows of
// dW).
//
// planConvSlices chooses the slice sizes from a predicate that says whether
// a convolution of `batch` samples and `channels` output channels, cut
// into bands of `rows` rows, has a deterministic algorithm within the
// workspace for each of its bands. It tries the whole convolution first,
// then halves (rounding up, so the slices stay even and a batch of N tries
// at most log2 N + 1 sizes): the batch down to one sample, then the band
// height down to one row, then the channels, each time with the largest
// band that fits. It takes the largest size for which both the full slices
// and the smaller last one fit (the predicate checks every band, the last
// shorter one included). The caller caches the predicate's answers per
// shape. The choice depends only on the predicate, i.e. on the GPU, the
// cuDNN version and the shapes, so runs stay reproducible.
//
// Rows come before channels: a band reads its rows of the input once for
// all channels, whereas each channel slice reads the whole input again.
// Rows are the steps of the first spatial axis: slabs of depth for a 3-D
// convolution (ConvGeometry.h).
//
// Header-only and free of CUDA, so unit tests check it without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_CONVSLICES_H
#define MEMOPT_RUNTIME_CUDA_CONVSLICES_H

#include <cstdint>
#include <optional>

namespace memopt::rt::cuda {

/// How many samples and output channels one cuDNN call covers, and the
/// height of the bands of rows it is cut into (ConvBands.h).
struct ConvSlices {
  int64_t batch = 0;
  int64_t rows = 0;
  int64_t channels = 0;
  bool operator==(const ConvSlices &other) const {
    return batch == other.batch && rows == other.rows &&
           channels == other.channels;
  }
};

/// The slices of a convolution of `batch` samples, `rows` rows to band
/// (the output's for the forward and the filter gradient, the input's for
/// the data gradient) and `channels` output channels; `fits(n, r, k)` says
/// whether calls over n samples and k output channels fit the workspace
/// for every band when the rows are cut into bands of r. Channels are split
/// only if `splitChannels` (the filter gradient of an ungrouped
/// convolution) and a band of one row of one sample of all channels does
/// not fit. None if not even one row of one sample of one channel (of all
/// channels without `splitChannels`) fits.
template <typename Fits>
std::optional<ConvSlices> planConvSlices(int64_t batch, int64_t rows,
                                         int64_t channels, bool splitChannels,
                                         Fits fits) {
  // Slicing `total` by `size` leaves full slices and a last, smaller one.
  auto fitsSlices = [&](int64_t n, int64_t r, int64_t k) {
    int64_t lastN = batch % n, lastK = channels % k;
    return fits(n, r, k) && (lastN == 0 || fits(lastN, r, k)) &&
           (lastK == 0 || fits(n, r, lastK)) &&
           (lastN == 0 || lastK == 0 || fits(lastN, r, lastK));
  };
  if (batch < 1 || rows < 1 || channels < 1)
    return fits(batch, rows, channels)
               ? std::optional(ConvSlices{batch, rows, channels})
               : std::nullopt;
  auto half = [](int64_t size) { return (size + 1) / 2; };
  for (int64_t n = batch;; n = half(n)) {
    if (fitsSlices(n, rows, channels))
      return ConvSlices{n, rows, channels};
    if (n == 1)
      break;
  }
  // The largest band of one sample and `k` channels that fits.
  auto bands = [&](int64_t k) -> std::optional<ConvSlices> {
    for (int64_t r = rows; r > 1;) {
      r = half(r);
      if (fitsSlices(1, r, k))
        return ConvSlices{1, r, k};
    }
    return std::nullopt;
  };
  if (std::optional<ConvSlices> banded = bands(channels))
    return banded;
  if (!splitChannels)
    return std::nullopt;
  for (int64_t k = channels; k > 1;) {
    k = half(k);
    if (fitsSlices(1, rows, k))
      return ConvSlices{1, rows, k};
    if (std::optional<ConvSlices> banded = bands(k))
      return banded;
  }
  return std::nullopt;
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_CONVSLICES_H
