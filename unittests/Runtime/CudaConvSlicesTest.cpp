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
#include <tuple>

using namespace memopt::rt::cuda;

namespace {

/// A workspace need proportional to the slice, as cuDNN's GEMM algorithms
/// have: `perSample` per sample of all `channels` channels and `rows` rows
/// (bands of r rows need r / rows of it).
struct LinearNeed {
  int64_t channels, perSample, limit, rows = 64;
  std::set<std::tuple<int64_t, int64_t, int64_t>> asked;
  bool operator()(int64_t n, int64_t r, int64_t k) {
    asked.insert({n, r, k});
    return n * perSample * k / channels * r / rows <= limit;
  }
};

} // namespace

TEST(CudaConvSlicesTest, AFittingConvolutionRunsWhole) {
  LinearNeed need{64, 10, 40};
  EXPECT_EQ(planConvSlices(4, 64, 64, true, std::ref(need)),
            (ConvSlices{4, 64, 64}));
  EXPECT_EQ(need.asked.size(), 1u);
}

TEST(CudaConvSlicesTest, TheBatchIsHalvedUntilItFits) {
  // ResNet-34 U-Net at batch 4: the filter gradient needed 67.5 MB of a
  // 50.3 MB workspace; two samples at a time fit.
  LinearNeed need{64, 67551248 / 4, 50331648};
  EXPECT_EQ(planConvSlices(4, 64, 64, true, std::ref(need)),
            (ConvSlices{2, 64, 64}));
  // Halving rounds up, and the smaller last slice must fit too.
  LinearNeed odd{8, 10, 40};
  EXPECT_EQ(planConvSlices(7, 64, 8, false, std::ref(odd)),
            (ConvSlices{4, 64, 8}));
  EXPECT_TRUE(odd.asked.count({3, 64, 8}));
}

TEST(CudaConvSlicesTest, RowsAreBandedBelowOneSample) {
  // One sample needs 4x the workspace: bands of a quarter of the rows, in
  // every direction (with or without channel splitting).
  LinearNeed need{64, 40, 10};
  EXPECT_EQ(planConvSlices(4, 64, 64, true, std::ref(need)),
            (ConvSlices{1, 16, 64}));
  LinearNeed noSplit{64, 40, 10};
  EXPECT_EQ(planConvSlices(4, 64, 64, false, std::ref(noSplit)),
            (ConvSlices{1, 16, 64}));
  // An odd height halves rounding up (7 -> 4 -> 2 -> 1): the predicate
  // checks the shorter last band.
  LinearNeed odd{8, 70, 25, 7};
  EXPECT_EQ(planConvSlices(1, 7, 8, false, std::ref(odd)),
            (ConvSlices{1, 2, 8}));
  EXPECT_TRUE(odd.asked.count({1, 4, 8}));
  EXPECT_FALSE(odd.asked.count({1, 3, 8}));
}

TEST(CudaConvSlicesTest, ChannelsAreSplitOnlyBelowOneRow) {
  // A need that bands do not reduce: channel slices of the filter
  // gradient, each of all rows.
  auto rowless = [](int64_t n, int64_t, int64_t k) {
    return n * k * 40 / 64 <= 10;
  };
  EXPECT_EQ(planConvSlices(4, 64, 64, true, rowless), (ConvSlices{1, 64, 16}));
  // Without channel splitting (forward, data gradient, grouped filter
  // gradient) nothing fits.
  EXPECT_EQ(planConvSlices(4, 64, 64, false, rowless), std::nullopt);
  // One row of all channels needs 2x: half the channels, and the largest
  // band of them that fits (one row).
  LinearNeed need{64, 40 * 64, 20};
  EXPECT_EQ(planConvSlices(4, 64, 64, true, std::ref(need)),
            (ConvSlices{1, 1, 32}));
  // Odd channel counts leave a smaller last slice, which is checked.
  LinearNeed odd{3, 30 * 64, 10};
  EXPECT_EQ(planConvSlices(1, 64, 3, true, std::ref(odd)),
            (ConvSlices{1, 1, 1}));
  EXPECT_FALSE(odd.asked.count({1, 1, 0}));
}

TEST(CudaConvSlicesTest, NothingFitsWhenOneRowOfOneChannelDoesNot) {
  auto never = [](int64_t, int64_t, int64_t) { return false; };
  EXPECT_EQ(planConvSlices(8, 64, 32, true, never), std::nullopt);
  EXPECT_EQ(planConvSlices(1, 64, 1, true, never), std::nullopt);
}

TEST(CudaConvSlicesTest, ALastSliceThatDoesNotFitShrinksTheSlices) {
  // cuDNN's needs need not be monotone in the slice size: here a slice of
  // 3 samples (the last of 7 by 4) has no fitting algorithm, so the
  // runtime takes slices of 2 (the last one 1).
  auto fits = [](int64_t n, int64_t, int64_t) { return n != 3 && n <= 4; };
  EXPECT_EQ(planConvSlices(7, 64, 16, true, fits), (ConvSlices{2, 64, 16}));
}
