//===- CudaConvSlicesTest.cpp - Slicing convolutions to fit a workspace ---===//
//
// The CUDA runtime splits a convolution whose cuDNN algorithms need more
// than the planned workspace; planConvSlices chooses the slices from a
// "fits" predicate, so these tests model cuDNN's needs and need no GPU.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvSlices.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

using namespace memopt::rt::cuda;

namespace {

/// A workspace need proportional to the slice, as cuDNN's GEMM algorithms
/// have: `perSample` per sample of all `channels` channels.
struct LinearNeed {
  int64_t channels, perSample, limit;
  std::set<std::pair<int64_t, int64_t>> asked;
  bool operator()(int64_t n, int64_t k) {
    asked.insert({n, k});
    return n * perSample * k / channels <= limit;
  }
};

} // namespace

TEST(CudaConvSlicesTest, AFittingConvolutionRunsWhole) {
  LinearNeed need{64, 10, 40, {}};
  EXPECT_EQ(planConvSlices(4, 64, true, std::ref(need)),
            (ConvSlices{4, 64}));
  EXPECT_EQ(need.asked.size(), 1u);
}

TEST(CudaConvSlicesTest, TheBatchIsHalvedUntilItFits) {
  // ResNet-34 U-Net at batch 4: the filter gradient needed 67.5 MB of a
  // 50.3 MB workspace; two samples at a time fit.
  LinearNeed need{64, 67551248 / 4, 50331648, {}};
  EXPECT_EQ(planConvSlices(4, 64, true, std::ref(need)),
            (ConvSlices{2, 64}));
  // Halving rounds up, and the smaller last slice must fit too.
  LinearNeed odd{8, 10, 40, {}};
  EXPECT_EQ(planConvSlices(7, 8, false, std::ref(odd)), (ConvSlices{4, 8}));
  EXPECT_TRUE(odd.asked.count({3, 8}));
}

TEST(CudaConvSlicesTest, ChannelsAreSplitOnlyBelowOneSample) {
  // One sample needs 4x the workspace: with channel splitting, a quarter
  // of the output channels per call.
  LinearNeed need{64, 40, 10, {}};
  EXPECT_EQ(planConvSlices(4, 64, true, std::ref(need)), (ConvSlices{1, 16}));
  // Without it (forward, data gradient, grouped filter gradient) nothing
  // fits.
  LinearNeed noSplit{64, 40, 10, {}};
  EXPECT_EQ(planConvSlices(4, 64, false, std::ref(noSplit)), std::nullopt);
  // Odd channel counts leave a smaller last slice, which is checked.
  LinearNeed odd{3, 30, 10, {}};
  EXPECT_EQ(planConvSlices(1, 3, true, std::ref(odd)), (ConvSlices{1, 1}));
  EXPECT_FALSE(odd.asked.count({1, 0}));
}

TEST(CudaConvSlicesTest, NothingFitsWhenOneSampleOfOneChannelDoesNot) {
  auto never = [](int64_t, int64_t) { return false; };
  EXPECT_EQ(planConvSlices(8, 32, true, never), std::nullopt);
  EXPECT_EQ(planConvSlices(1, 1, true, never), std::nullopt);
}

TEST(CudaConvSlicesTest, ALastSliceThatDoesNotFitShrinksTheSlices) {
  // cuDNN's needs need not be monotone in the slice size: here a slice of
  // 3 samples (the last of 7 by 4) has no fitting algorithm, so the
  // runtime takes slices of 2 (the last one 1).
  auto fits = [](int64_t n, int64_t) { return n != 3 && n <= 4; };
  EXPECT_EQ(planConvSlices(7, 16, true, fits), (ConvSlices{2, 16}));
}
