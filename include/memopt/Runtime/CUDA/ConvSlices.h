//===- ConvSlices.h - Splitting a convolution to fit its workspace -*- C++ -*-===//
//
// The plan reserves a fixed workspace per convolution (ConvWorkspace.h)
// without knowing what cuDNN's algorithms need on the GPU that trains. When
// no deterministic algorithm fits it, the CUDA runtime runs the convolution
// in slices instead of allocating more: a slice of the batch (every
// direction: samples are independent, and the filter gradient sums the
// slices' contributions), and for the filter gradient, once a single sample
// does not fit, also a slice of the output channels (rows of dW).
//
// planConvSlices chooses the slice sizes from a predicate that says whether
// a convolution of `batch` samples and `channels` output channels has a
// deterministic algorithm within the workspace. It tries the whole
// convolution first, then halves (rounding up, so the slices stay even and
// a batch of N tries at most log2 N + 1 sizes), and takes the largest
// size for which both the full slices and the smaller last one fit. The
// caller caches the predicate's answers per shape. The choice
// depends only on the predicate, i.e. on the GPU, the cuDNN version and the
// shapes, so runs stay reproducible.
//
// Header-only and free of CUDA, so unit tests check it without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_CONVSLICES_H
#define MEMOPT_RUNTIME_CUDA_CONVSLICES_H

#include <cstdint>
#include <optional>

namespace memopt::rt::cuda {

/// How many samples and output channels one cuDNN call covers.
struct ConvSlices {
  int64_t batch = 0;
  int64_t channels = 0;
  bool operator==(const ConvSlices &other) const {
    return batch == other.batch && channels == other.channels;
  }
};

/// The slices of a convolution of `batch` samples and `channels` output
/// channels; `fits(n, k)` says whether a call over n samples and k output
/// channels fits the workspace. Channels are split only if
/// `splitChannels` (the filter gradient of an ungrouped convolution) and
/// a single sample of all channels does not fit. None if not even one
/// sample of one channel (of all channels without `splitChannels`) fits.
template <typename Fits>
std::optional<ConvSlices> planConvSlices(int64_t batch, int64_t channels,
                                         bool splitChannels, Fits fits) {
  // Slicing `total` by `size` leaves full slices and a last, smaller one.
  auto fitsSlices = [&](int64_t n, int64_t k) {
    int64_t lastN = batch % n, lastK = channels % k;
    return fits(n, k) && (lastN == 0 || fits(lastN, k)) &&
           (lastK == 0 || fits(n, lastK)) &&
           (lastN == 0 || lastK == 0 || fits(lastN, lastK));
  };
  if (batch < 1 || channels < 1)
    return fits(batch, channels) ? std::optional(ConvSlices{batch, channels})
                                 : std::nullopt;
  auto half = [](int64_t size) { return (size + 1) / 2; };
  for (int64_t n = batch;; n = half(n)) {
    if (fitsSlices(n, channels))
      return ConvSlices{n, channels};
    if (n == 1)
      break;
  }
  if (!splitChannels)
    return std::nullopt;
  for (int64_t k = channels; k > 1;) {
    k = half(k);
    if (fitsSlices(1, k))
      return ConvSlices{1, k};
  }
  return std::nullopt;
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_CONVSLICES_H
