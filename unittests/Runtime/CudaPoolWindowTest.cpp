//===- CudaPoolWindowTest.cpp - Pooling windows of the CUDA kernels -------===//
//
// What each thread of the CUDA pooling kernels computes (PoolWindow.h),
// run on the host element by element, against the CPU kernels: max and
// average pooling and their gathered gradients in 1-D, 2-D and 3-D, with
// strides, asymmetric pads, dilation, ceil mode, count_include_pad, ties
// and a NaN. The gradients gather in the CPU's scatter order, so results
// are equal, not only close. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/PoolWindow.h"
#include "memopt/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace memopt::rt;

namespace {

struct Case {
  Dims input, kernel, strides, pads, dilations;
  bool ceilMode;
};

/// The output shape the CPU computes (its poolShape, through a call).
Dims outputShape(const Case &c) {
  Dims out{c.input[0], c.input[1]};
  int axes = c.input.size - 2;
  for (int i = 0; i < axes; ++i) {
    int64_t span = (c.kernel[i] - 1) * c.dilations[i] + 1;
    int64_t room = c.input[2 + i] + c.pads[i] + c.pads[axes + i] - span;
    int64_t n =
        (c.ceilMode ? (room + c.strides[i] - 1) : room) / c.strides[i] + 1;
    // PyTorch: the last window must start inside the input or left pad.
    if (c.ceilMode && (n - 1) * c.strides[i] >= c.input[2 + i] + c.pads[i])
      --n;
    out[out.size++] = n;
  }
  return out;
}

/// Values with ties (integers in a small range) and, if `nan`, one NaN.
std::vector<float> values(int64_t count, bool nan) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = static_cast<float>((i * 7 + 3) % 5) - 2.0f;
  if (nan && count > 3)
    v[count / 3] = NAN;
  return v;
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

const Case kCases[] = {
    // 3-D: 2x2x2 windows, stride 2 (the U-Nets' MaxPool3d).
    {{2, 2, 6, 6, 6},
     {2, 2, 2},
     {2, 2, 2},
     {0, 0, 0, 0, 0, 0},
     {1, 1, 1},
     false},
    // 3-D: 3x3x3 stride 2, asymmetric pads, ceil mode, odd extents.
    {{1, 2, 7, 5, 6},
     {3, 3, 3},
     {2, 2, 2},
     {1, 0, 1, 0, 1, 1},
     {1, 1, 1},
     true},
    // 3-D: dilated along depth and width.
    {{1, 1, 9, 4, 7},
     {2, 2, 3},
     {1, 2, 1},
     {1, 0, 1, 1, 0, 1},
     {2, 1, 2},
     false},
    // 2-D as before.
    {{2, 3, 8, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false},
    // 1-D: overlapping windows, padded, ceil mode.
    {{2, 2, 11}, {3}, {2}, {1, 1}, {1}, true},
};

TEST(CudaPoolWindowTest, MaxPoolingMatchesTheCpuKernels) {
  for (const Case &c : kCases)
    for (bool nan : {false, true}) {
      Dims out = outputShape(c);
      std::vector<float> x = values(c.input.product(), nan);
      std::vector<float> y(out.product()), dy(out.product());
      for (size_t i = 0; i < dy.size(); ++i)
        dy[i] = 0.25f * static_cast<float>(i % 9) + 0.5f;
      std::vector<float> dx(x.size());
      maxPool(ConstTensor(x.data(), c.input), Tensor(y.data(), out), c.kernel,
              c.strides, c.pads, c.dilations, c.ceilMode);
      maxPoolBackward(ConstTensor(dy.data(), out),
                      ConstTensor(x.data(), c.input),
                      Tensor(dx.data(), c.input), c.kernel, c.strides, c.pads,
                      c.dilations, c.ceilMode);
      cuda::PoolWindow w = cuda::poolWindow(c.input, out, c.kernel, c.strides,
                                            c.pads, c.dilations);
      ASSERT_EQ(w.planes * w.outVolume(), out.product());
      std::vector<float> gy(y.size()), gdx(dx.size());
      for (int64_t p = 0; p < w.planes; ++p) {
        const float *plane = x.data() + p * w.inVolume();
        for (int64_t o = 0; o < w.outVolume(); ++o)
          gy[p * w.outVolume() + o] = w.maxAt(plane, o);
        for (int64_t i = 0; i < w.inVolume(); ++i)
          gdx[p * w.inVolume() + i] =
              w.maxGradAt(plane, dy.data() + p * w.outVolume(), i);
      }
      EXPECT_TRUE(sameBits(gy, y))
          << "forward, rank " << c.input.size << (nan ? ", NaN" : "");
      EXPECT_TRUE(sameBits(gdx, dx))
          << "backward, rank " << c.input.size << (nan ? ", NaN" : "");
    }
}

TEST(CudaPoolWindowTest, AveragePoolingMatchesTheCpuKernels) {
  for (const Case &c : kCases)
    for (bool countIncludePad : {false, true}) {
      // Average pooling has no dilation.
      Dims ones = c.dilations;
      for (int i = 0; i < ones.size; ++i)
        ones[i] = 1;
      Case u = c;
      u.dilations = ones;
      Dims out = outputShape(u);
      std::vector<float> x = values(c.input.product(), false);
      std::vector<float> y(out.product()), dy(out.product());
      for (size_t i = 0; i < dy.size(); ++i)
        dy[i] = 0.3f * static_cast<float>(i % 7) - 0.8f;
      std::vector<float> dx(x.size());
      avgPool(ConstTensor(x.data(), c.input), Tensor(y.data(), out), c.kernel,
              c.strides, c.pads, c.ceilMode, countIncludePad);
      avgPoolBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), c.input),
                      c.kernel, c.strides, c.pads, c.ceilMode, countIncludePad);
      cuda::PoolWindow w =
          cuda::poolWindow(c.input, out, c.kernel, c.strides, c.pads, ones);
      std::vector<float> gy(y.size()), gdx(dx.size());
      for (int64_t p = 0; p < w.planes; ++p) {
        for (int64_t o = 0; o < w.outVolume(); ++o)
          gy[p * w.outVolume() + o] =
              w.averageAt(x.data() + p * w.inVolume(), o, countIncludePad);
        for (int64_t i = 0; i < w.inVolume(); ++i)
          gdx[p * w.inVolume() + i] = w.averageGradAt(
              dy.data() + p * w.outVolume(), i, countIncludePad);
      }
      EXPECT_TRUE(sameBits(gy, y)) << "forward, rank " << c.input.size
                                   << ", count_include_pad " << countIncludePad;
      EXPECT_TRUE(sameBits(gdx, dx))
          << "backward, rank " << c.input.size << ", count_include_pad "
          << countIncludePad;
    }
}

TEST(CudaPoolWindowTest, MissingLeadingAxesAreUnitWindows) {
  cuda::PoolWindow w = cuda::poolWindow(Dims{2, 3, 11}, Dims{2, 3, 6}, Dims{3},
                                        Dims{2}, Dims{1, 1}, Dims{1});
  EXPECT_EQ(w.planes, 6);
  for (int a : {0, 1}) {
    EXPECT_EQ(w.in[a], 1);
    EXPECT_EQ(w.out[a], 1);
    EXPECT_EQ(w.kernel[a], 1);
    EXPECT_EQ(w.padBegin[a] + w.padEnd[a], 0);
  }
  EXPECT_EQ(w.in[2], 11);
  EXPECT_EQ(w.out[2], 6);
  EXPECT_EQ(w.kernel[2], 3);
}

} // namespace
