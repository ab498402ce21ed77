//===- CudaResizeGridTest.cpp - Resize of the CUDA kernels, per element ---===//
//
// What each thread of the CUDA resize kernels computes (ResizeGrid.h), run
// on the host element by element, against the CPU kernels: nearest and
// (bi/tri)linear resizes and their gathered gradients in 1-D, 2-D and 3-D,
// up and down, with the ONNX coordinate and nearest modes. The forward
// reads the same taps in the same order as the CPU (equal results); the
// gradient sums a position's two coinciding taps before multiplying where
// the CPU adds them one by one, so it agrees to float rounding. No GPU
// needed.
//
//===----------------------------------------------------------------------===//

#include "Runtime/CUDA/ResizeGrid.h"
#include "memopt/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace memopt::rt;

namespace {

struct Case {
  Dims input, output;
  Scales scales;
  ResizeMode mode;
  CoordinateMode coordinateMode;
  NearestMode nearestMode;
};

const Case kCases[] = {
    // The 3-D U-Net's trilinear upsampling.
    {{2, 2, 4, 3, 5},
     {2, 2, 8, 6, 10},
     {2.0, 2.0, 2.0},
     ResizeMode::Bilinear,
     CoordinateMode::HalfPixel,
     NearestMode::Floor},
    // Trilinear, align_corners, non-integer scales, one axis shrinking.
    {{1, 1, 5, 4, 6},
     {1, 1, 8, 7, 4},
     {1.6, 1.75, 4.0 / 6.0},
     ResizeMode::Bilinear,
     CoordinateMode::AlignCorners,
     NearestMode::Floor},
    // 3-D nearest, asymmetric (PyTorch's nearest), x2.
    {{1, 2, 3, 4, 3},
     {1, 2, 6, 8, 6},
     {2.0, 2.0, 2.0},
     ResizeMode::Nearest,
     CoordinateMode::Asymmetric,
     NearestMode::Floor},
    // 3-D nearest, half_pixel, round_prefer_ceil, downscale.
    {{1, 1, 7, 6, 5},
     {1, 1, 3, 3, 2},
     {3.0 / 7.0, 0.5, 0.4},
     ResizeMode::Nearest,
     CoordinateMode::HalfPixel,
     NearestMode::RoundPreferCeil},
    // 2-D bilinear, pytorch_half_pixel.
    {{2, 3, 5, 4},
     {2, 3, 10, 9},
     {2.0, 2.25},
     ResizeMode::Bilinear,
     CoordinateMode::PytorchHalfPixel,
     NearestMode::Floor},
    // 1-D linear and nearest.
    {{2, 2, 7},
     {2, 2, 14},
     {2.0},
     ResizeMode::Bilinear,
     CoordinateMode::HalfPixel,
     NearestMode::Floor},
    {{2, 2, 7},
     {2, 2, 17},
     {17.0 / 7.0},
     ResizeMode::Nearest,
     CoordinateMode::Asymmetric,
     NearestMode::RoundPreferFloor},
};

TEST(CudaResizeGridTest, ResizeAndItsGradientMatchTheCpuKernels) {
  for (const Case &c : kCases) {
    std::vector<float> x(c.input.product()), y(c.output.product());
    std::vector<float> dy(y.size()), dx(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = std::sin(0.37f * static_cast<float>(i)) + 0.25f;
    for (size_t i = 0; i < dy.size(); ++i)
      dy[i] = std::cos(0.53f * static_cast<float>(i));
    resize(ConstTensor(x.data(), c.input), Tensor(y.data(), c.output), c.mode,
           c.coordinateMode, c.nearestMode, c.scales);
    resizeBackward(ConstTensor(dy.data(), c.output), Tensor(dx.data(), c.input),
                   c.mode, c.coordinateMode, c.nearestMode, c.scales);
    cuda::ResizeGrid g = cuda::resizeGrid(
        c.input, c.output, c.mode, c.coordinateMode, c.nearestMode, c.scales);
    ASSERT_EQ(g.planes * g.outVolume(), c.output.product());
    ASSERT_EQ(g.planes * g.inVolume(), c.input.product());
    for (int64_t p = 0; p < g.planes; ++p) {
      for (int64_t o = 0; o < g.outVolume(); ++o)
        ASSERT_NEAR(g.valueAt(x.data() + p * g.inVolume(), o),
                    y[p * g.outVolume() + o], 1e-6)
            << "forward, rank " << c.input.size << ", output " << o;
      for (int64_t i = 0; i < g.inVolume(); ++i)
        ASSERT_NEAR(g.gradAt(dy.data() + p * g.outVolume(), i),
                    dx[p * g.inVolume() + i], 1e-5)
            << "backward, rank " << c.input.size << ", input " << i;
    }
  }
}

TEST(CudaResizeGridTest, MissingLeadingAxesAreAbsent) {
  cuda::ResizeGrid g = cuda::resizeGrid(
      Dims{2, 3, 7}, Dims{2, 3, 14}, ResizeMode::Bilinear,
      CoordinateMode::AlignCorners, NearestMode::Floor, Scales{2.0});
  EXPECT_EQ(g.axes, 1);
  EXPECT_EQ(g.planes, 6);
  EXPECT_FALSE(g.d.present);
  EXPECT_FALSE(g.h.present);
  EXPECT_TRUE(g.w.present);
  // An absent axis reads its one position with weight 1.
  EXPECT_EQ(g.h.weightOf(0, 0), 1.0f);
  EXPECT_EQ(g.inVolume(), 7);
  EXPECT_EQ(g.outVolume(), 14);
}

} // namespace
