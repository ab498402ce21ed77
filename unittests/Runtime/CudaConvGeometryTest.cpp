//===- CudaConvGeometryTest.cpp - Convolutions as cuDNN descriptors -------===//
//
// What the CUDA runtime hands cuDNN for 1-D, 2-D and 3-D convolutions
// (ConvGeometry.h): the refusals, the unit axis of a 1-D convolution, the
// row (slab) size and the strides of band descriptors. Then a 3-D
// convolution computed in slabs of depth as the runtime's bands do (each
// band a strided view of x and y, or a staged copy with zero slabs where
// the convolution pads, no depth padding in the call) against the whole
// one, on the host, by a naive convolution over strided tensors: what
// cuDNN would compute with those descriptors. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvBands.h"
#include "memopt/Runtime/CUDA/ConvGeometry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace memopt::rt;
using namespace memopt::rt::cuda;

namespace {

TEST(CudaConvGeometryTest, RanksThreeToFiveWithSymmetricPadsAreSupported) {
  EXPECT_EQ(convUnsupported(3, Dims{2}, Dims{1, 1}, Dims{1}), nullptr);
  EXPECT_EQ(convUnsupported(4, Dims{1, 2}, Dims{1, 0, 1, 0}, Dims{1, 1}),
            nullptr);
  EXPECT_EQ(
      convUnsupported(5, Dims{2, 2, 2}, Dims{1, 1, 1, 1, 1, 1}, Dims{1, 2, 1}),
      nullptr);
}

TEST(CudaConvGeometryTest, OtherRanksAndAsymmetricPadsAreRefused) {
  const char *rank = convUnsupported(
      6, Dims{1, 1, 1, 1}, Dims{0, 0, 0, 0, 0, 0, 0, 0}, Dims{1, 1, 1, 1});
  ASSERT_NE(rank, nullptr);
  EXPECT_NE(std::string(rank).find("1-D to 3-D"), std::string::npos);
  EXPECT_NE(convUnsupported(2, Dims{}, Dims{}, Dims{}), nullptr);
  const char *pads =
      convUnsupported(5, Dims{1, 1, 1}, Dims{1, 1, 1, 1, 1, 0}, Dims{1, 1, 1});
  ASSERT_NE(pads, nullptr);
  EXPECT_NE(std::string(pads).find("symmetric"), std::string::npos);
  const char *counts =
      convUnsupported(5, Dims{1, 1}, Dims{1, 1, 1, 1, 1, 1}, Dims{1, 1, 1});
  ASSERT_NE(counts, nullptr);
  EXPECT_NE(std::string(counts).find("one value per spatial axis"),
            std::string::npos);
}

TEST(CudaConvGeometryTest, OneDimensionalConvolutionsGetATrailingUnitAxis) {
  // N x C x L, kernel 3, stride 2, pad 1, dilation 2: L stays the first
  // spatial axis, the one bands cut.
  ConvGeometry g = convGeometry(Dims{2, 4, 33}, Dims{8, 4, 3}, Dims{2, 8, 15},
                                Dims{2}, Dims{1, 1}, Dims{2});
  EXPECT_EQ(g.axes, 2);
  EXPECT_EQ(g.x, (Dims{2, 4, 33, 1}));
  EXPECT_EQ(g.w, (Dims{8, 4, 3, 1}));
  EXPECT_EQ(g.y, (Dims{2, 8, 15, 1}));
  EXPECT_EQ(g.strides, (AxisValues{2, 1, 1}));
  EXPECT_EQ(g.dilations, (AxisValues{2, 1, 1}));
  EXPECT_EQ(g.pads, (AxisValues{1, 0, 0}));
}

TEST(CudaConvGeometryTest, TwoAndThreeDimensionalConvolutionsKeepTheirShapes) {
  ConvGeometry g2 =
      convGeometry(Dims{1, 3, 8, 9}, Dims{4, 3, 3, 3}, Dims{1, 4, 8, 9},
                   Dims{1, 1}, Dims{1, 1, 1, 1}, Dims{1, 1});
  EXPECT_EQ(g2.axes, 2);
  EXPECT_EQ(g2.x, (Dims{1, 3, 8, 9}));
  EXPECT_EQ(g2.pads, (AxisValues{1, 1, 0}));
  ConvGeometry g3 = convGeometry(Dims{2, 1, 16, 12, 10}, Dims{4, 1, 3, 3, 3},
                                 Dims{2, 4, 8, 6, 5}, Dims{2, 2, 2},
                                 Dims{1, 1, 1, 1, 1, 1}, Dims{1, 1, 1});
  EXPECT_EQ(g3.axes, 3);
  EXPECT_EQ(g3.w, (Dims{4, 1, 3, 3, 3}));
  EXPECT_EQ(g3.strides, (AxisValues{2, 2, 2}));
  EXPECT_EQ(g3.pads, (AxisValues{1, 1, 1}));
}

TEST(CudaConvGeometryTest, RowsAreRowsOfImagesAndSlabsOfVolumes) {
  EXPECT_EQ(rowElements(Dims{2, 4, 33, 1}), 1);
  EXPECT_EQ(rowElements(Dims{2, 4, 8, 9}), 9);
  EXPECT_EQ(rowElements(Dims{2, 4, 16, 12, 10}), 120);
}

TEST(CudaConvGeometryTest, BandDescriptorsStrideOverTheWholeTensor) {
  // Contiguous.
  EXPECT_EQ(stridesOf(Dims{2, 4, 8, 9}, 4, 8), (Dims{288, 72, 9, 1}));
  EXPECT_EQ(stridesOf(Dims{2, 4, 16, 12, 10}, 4, 16),
            (Dims{7680, 1920, 120, 10, 1}));
  // A band of 3 slabs of a volume of 16 slabs, and a slice of 2 of its 4
  // output channels: samples and channels keep the whole tensor's pitch.
  EXPECT_EQ(stridesOf(Dims{2, 2, 3, 12, 10}, 4, 16),
            (Dims{7680, 1920, 120, 10, 1}));
}

/// A tensor in memory: `data` with shape `dims` and element `strides`.
struct View {
  float *data;
  Dims dims, strides;
  float &at(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    return data[n * strides[0] + c * strides[1] + d * strides[2] +
                h * strides[3] + w * strides[4]];
  }
};

/// y = conv(x, w) of a 3-D geometry `g` (ungrouped), over strided views: what
/// cuDNN computes with the descriptors of those shapes and strides.
void convolve(const View &x, const std::vector<float> &w, const View &y,
              const ConvGeometry &g) {
  const Dims &k = g.w;
  for (int64_t n = 0; n < y.dims[0]; ++n)
    for (int64_t o = 0; o < y.dims[1]; ++o)
      for (int64_t d = 0; d < y.dims[2]; ++d)
        for (int64_t h = 0; h < y.dims[3]; ++h)
          for (int64_t v = 0; v < y.dims[4]; ++v) {
            float sum = 0;
            for (int64_t c = 0; c < k[1]; ++c)
              for (int64_t a = 0; a < k[2]; ++a)
                for (int64_t b = 0; b < k[3]; ++b)
                  for (int64_t e = 0; e < k[4]; ++e) {
                    int64_t id =
                        d * g.strides[0] - g.pads[0] + a * g.dilations[0];
                    int64_t ih =
                        h * g.strides[1] - g.pads[1] + b * g.dilations[1];
                    int64_t iw =
                        v * g.strides[2] - g.pads[2] + e * g.dilations[2];
                    if (id < 0 || id >= x.dims[2] || ih < 0 ||
                        ih >= x.dims[3] || iw < 0 || iw >= x.dims[4])
                      continue;
                    sum +=
                        x.at(n, c, id, ih, iw) *
                        w[(((o * k[1] + c) * k[2] + a) * k[3] + b) * k[4] + e];
                  }
            y.at(n, o, d, h, v) = sum;
          }
}

/// The forward convolution of `g` in bands of `slabs` output slabs, as
/// Conv.cpp runs them: each band reads its input slabs in place when they
/// lie inside x, else from a staged copy with zero slabs, and calls the
/// convolution without depth padding on strided views of x and y.
std::vector<float> convolveInSlabs(std::vector<float> &x,
                                   const std::vector<float> &w,
                                   const ConvGeometry &g, int64_t slabs) {
  std::vector<float> y(g.y.product(), -1.0f);
  ConvRows depth{g.x[2],       g.y[2],    g.w[2],
                 g.strides[0], g.pads[0], g.dilations[0]};
  const int64_t xSlab = rowElements(g.x), ySlab = rowElements(g.y);
  std::vector<float> staged;
  for (int64_t i = 0, e = bandCount(g.y[2], slabs); i < e; ++i) {
    RowRange outputs = bandAt(g.y[2], slabs, i);
    RowRange inputs = depth.inputsOf(outputs);
    ConvGeometry band = g;
    band.pads[0] = 0;
    band.x[2] = inputs.size();
    band.y[2] = outputs.size();
    View xBand{nullptr, band.x, {}};
    if (inputs.inside(g.x[2])) {
      xBand.data = x.data() + inputs.begin * xSlab;
      xBand.strides = stridesOf(band.x, g.x[1], g.x[2]);
    } else {
      // Planes (N x C) of the band's slabs, zero outside x.
      staged.assign(band.x.product(), 0.0f);
      for (int64_t p = 0; p < g.x[0] * g.x[1]; ++p)
        for (int64_t s = inputs.begin; s < inputs.end; ++s)
          if (s >= 0 && s < g.x[2])
            for (int64_t j = 0; j < xSlab; ++j)
              staged[(p * inputs.size() + s - inputs.begin) * xSlab + j] =
                  x[(p * g.x[2] + s) * xSlab + j];
      xBand.data = staged.data();
      xBand.strides = stridesOf(band.x, g.x[1], band.x[2]);
    }
    View yBand{y.data() + outputs.begin * ySlab, band.y,
               stridesOf(band.y, g.y[1], g.y[2])};
    convolve(xBand, w, yBand, band);
  }
  return y;
}

TEST(CudaConvGeometryTest, ThreeDimensionalConvolutionsInSlabsMatchTheWhole) {
  struct Case {
    Dims x, w;
    AxisValues strides, pads, dilations;
    int64_t slabs;
  };
  const Case cases[] = {
      // 3x3x3, pad 1: every band but the inner ones staged; a last band of
      // one slab.
      {{2, 2, 7, 5, 4}, {3, 2, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2},
      // Strided, no padding: every band in place.
      {{1, 2, 9, 4, 4}, {2, 2, 3, 2, 2}, {2, 1, 2}, {0, 0, 0}, {1, 1, 1}, 2},
      // Dilated along depth, padded by 2.
      {{1, 1, 8, 3, 3}, {2, 1, 3, 3, 1}, {1, 1, 1}, {2, 1, 0}, {2, 1, 1}, 3},
  };
  for (const Case &c : cases) {
    ConvGeometry g;
    g.axes = 3;
    g.x = c.x;
    g.w = c.w;
    g.strides = c.strides;
    g.pads = c.pads;
    g.dilations = c.dilations;
    g.y = Dims{c.x[0], c.w[0], 0, 0, 0};
    for (int a = 0; a < 3; ++a)
      g.y[2 + a] =
          (c.x[2 + a] + 2 * c.pads[a] - (c.w[2 + a] - 1) * c.dilations[a] - 1) /
              c.strides[a] +
          1;
    std::vector<float> x(g.x.product()), w(g.w.product());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>((i * 7919) % 23) - 11.0f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>((i * 104729) % 13) - 6.0f;
    std::vector<float> whole(g.y.product());
    convolve(View{x.data(), g.x, stridesOf(g.x, g.x[1], g.x[2])}, w,
             View{whole.data(), g.y, stridesOf(g.y, g.y[1], g.y[2])}, g);
    // Integer-valued data: the sums are exact in any order.
    EXPECT_EQ(convolveInSlabs(x, w, g, c.slabs), whole)
        << "x " << g.x[2] << "x" << g.x[3] << "x" << g.x[4] << ", slabs "
        << c.slabs;
  }
}

} // namespace
