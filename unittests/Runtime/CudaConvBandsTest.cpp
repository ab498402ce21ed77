//===- CudaConvBandsTest.cpp - Row bands of a convolution -----------------===//
//
// The rows each band of a convolution reads and writes (ConvBands.h),
// checked against a brute-force walk over the kernel's taps, and a
// convolution along the height computed band by band as the CUDA runtime
// does (staged rows with zero padding, halos kept for the data gradient,
// filter gradients summed) against the whole: stride 1 and 2, padding,
// dilation, odd heights, a last band shorter than the others. No GPU
// needed.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvBands.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

using namespace memopt::rt::cuda;

namespace {

/// The forward convolution's height for `in` rows.
ConvRows rowsOf(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                int64_t dilation) {
  ConvRows rows{in, 0, kernel, stride, pad, dilation};
  rows.out = (in + 2 * pad - rows.span()) / stride + 1;
  return rows;
}

/// The input rows (padding rows included) output row `o` reads, tap by tap.
std::set<int64_t> tapsOf(const ConvRows &g, int64_t o) {
  std::set<int64_t> taps;
  for (int64_t j = 0; j < g.kernel; ++j)
    taps.insert(o * g.stride - g.pad + j * g.dilation);
  return taps;
}

/// Checks every band of `rows` rows of `g` in both directions.
void checkBands(const ConvRows &g, int64_t rows) {
  SCOPED_TRACE(testing::Message()
               << "in " << g.in << " kernel " << g.kernel << " stride "
               << g.stride << " pad " << g.pad << " dilation " << g.dilation
               << " bands of " << rows);
  // Forward and filter gradient: bands of output rows cover each output
  // row once, and each band's input range holds exactly its taps' span.
  int64_t covered = 0;
  for (int64_t i = 0, e = bandCount(g.out, rows); i < e; ++i) {
    RowRange band = bandAt(g.out, rows, i);
    EXPECT_EQ(band.begin, covered);
    covered = band.end;
    RowRange inputs = g.inputsOf(band);
    int64_t lowest = INT64_MAX, highest = INT64_MIN;
    for (int64_t o = band.begin; o < band.end; ++o)
      for (int64_t row : tapsOf(g, o)) {
        lowest = std::min(lowest, row);
        highest = std::max(highest, row);
      }
    EXPECT_EQ(inputs, (RowRange{lowest, highest + 1}));
    // Without height padding, cuDNN's output count for the rows given is
    // the band's height.
    EXPECT_EQ((inputs.size() - g.span()) / g.stride + 1, band.size());
  }
  EXPECT_EQ(covered, g.out);

  // Data gradient: bands of input rows; every output row with a tap in
  // the band is among the band's outputs, whose input range holds the
  // band's rows that any tap reads.
  covered = 0;
  for (int64_t i = 0, e = bandCount(g.in, rows); i < e; ++i) {
    RowRange band = bandAt(g.in, rows, i);
    EXPECT_EQ(band.begin, covered);
    covered = band.end;
    RowRange outputs = g.outputsReading(band);
    EXPECT_GE(outputs.begin, 0);
    EXPECT_LE(outputs.end, g.out);
    RowRange inputs = g.inputsOf(outputs);
    for (int64_t o = 0; o < g.out; ++o)
      for (int64_t row : tapsOf(g, o))
        if (row >= band.begin && row < band.end) {
          EXPECT_TRUE(o >= outputs.begin && o < outputs.end)
              << "output " << o << " reads row " << row;
          EXPECT_TRUE(row >= inputs.begin && row < inputs.end);
        }
    if (!outputs.empty()) {
      EXPECT_EQ((inputs.size() - g.span()) / g.stride + 1, outputs.size());
      EXPECT_FALSE(band.intersect(inputs).empty());
    }
  }
  EXPECT_EQ(covered, g.in);
}

/// A convolution along the height alone, on integers (exact in double):
/// the three directions computed whole, with zero padding...
struct Conv1d {
  ConvRows g;
  std::vector<double> x, w, dy;

  double padded(const std::vector<double> &v, int64_t row) const {
    return row >= 0 && row < static_cast<int64_t>(v.size()) ? v[row] : 0;
  }
  int64_t tap(int64_t o, int64_t j) const {
    return o * g.stride - g.pad + j * g.dilation;
  }
  std::vector<double> forward() const {
    std::vector<double> y(g.out);
    for (int64_t o = 0; o < g.out; ++o)
      for (int64_t j = 0; j < g.kernel; ++j)
        y[o] += w[j] * padded(x, tap(o, j));
    return y;
  }
  std::vector<double> data() const {
    std::vector<double> dx(g.in);
    for (int64_t o = 0; o < g.out; ++o)
      for (int64_t j = 0; j < g.kernel; ++j)
        if (tap(o, j) >= 0 && tap(o, j) < g.in)
          dx[tap(o, j)] += w[j] * dy[o];
    return dx;
  }
  std::vector<double> filter() const {
    std::vector<double> dw(g.kernel);
    for (int64_t o = 0; o < g.out; ++o)
      for (int64_t j = 0; j < g.kernel; ++j)
        dw[j] += dy[o] * padded(x, tap(o, j));
    return dw;
  }

  // ... and band by band as the CUDA runtime runs them: each call without
  // padding on the rows it is given.
  std::vector<double> staged(RowRange inputs) const {
    std::vector<double> rows(inputs.size());
    for (int64_t r = 0; r < inputs.size(); ++r)
      rows[r] = padded(x, inputs.begin + r);
    return rows;
  }
  std::vector<double> forwardBands(int64_t rows) const {
    std::vector<double> y(g.out, -1);
    for (int64_t i = 0, e = bandCount(g.out, rows); i < e; ++i) {
      RowRange band = bandAt(g.out, rows, i);
      std::vector<double> in = staged(g.inputsOf(band));
      for (int64_t o = band.begin; o < band.end; ++o) {
        y[o] = 0;
        for (int64_t j = 0; j < g.kernel; ++j)
          y[o] += w[j] * in[(o - band.begin) * g.stride + j * g.dilation];
      }
    }
    return y;
  }
  std::vector<double> dataBands(int64_t rows) const {
    std::vector<double> dx(g.in, -1);
    for (int64_t i = 0, e = bandCount(g.in, rows); i < e; ++i) {
      RowRange band = bandAt(g.in, rows, i);
      RowRange outputs = g.outputsReading(band);
      RowRange inputs = g.inputsOf(outputs);
      std::vector<double> halo(inputs.size());
      for (int64_t o = outputs.begin; o < outputs.end; ++o)
        for (int64_t j = 0; j < g.kernel; ++j)
          halo[(o - outputs.begin) * g.stride + j * g.dilation] += w[j] * dy[o];
      for (int64_t r = band.begin; r < band.end; ++r)
        dx[r] =
            r >= inputs.begin && r < inputs.end ? halo[r - inputs.begin] : 0;
    }
    return dx;
  }
  std::vector<double> filterBands(int64_t rows) const {
    std::vector<double> dw(g.kernel);
    for (int64_t i = 0, e = bandCount(g.out, rows); i < e; ++i) {
      RowRange band = bandAt(g.out, rows, i);
      std::vector<double> in = staged(g.inputsOf(band));
      for (int64_t o = band.begin; o < band.end; ++o)
        for (int64_t j = 0; j < g.kernel; ++j)
          dw[j] += dy[o] * in[(o - band.begin) * g.stride + j * g.dilation];
    }
    return dw;
  }
};

} // namespace

TEST(CudaConvBandsTest, BandsComputeTheWholeConvolution) {
  for (auto [in, kernel, stride, pad, dilation] :
       std::vector<std::array<int64_t, 5>>{{16, 3, 1, 1, 1},
                                           {17, 3, 2, 1, 1},
                                           {33, 7, 2, 3, 1},
                                           {9, 1, 2, 0, 1},
                                           {12, 3, 1, 2, 2},
                                           {15, 3, 2, 1, 3},
                                           {5, 3, 1, 1, 1}}) {
    Conv1d conv{rowsOf(in, kernel, stride, pad, dilation), {}, {}, {}};
    for (int64_t i = 0; i < in; ++i)
      conv.x.push_back(static_cast<double>((i * 7) % 11) - 5);
    for (int64_t j = 0; j < kernel; ++j)
      conv.w.push_back(static_cast<double>(j + 1));
    for (int64_t o = 0; o < conv.g.out; ++o)
      conv.dy.push_back(static_cast<double>((o * 5) % 7) - 3);
    for (int64_t rows = 1; rows <= in; ++rows) {
      SCOPED_TRACE(testing::Message()
                   << "in " << in << " kernel " << kernel << " stride "
                   << stride << " pad " << pad << " dilation " << dilation
                   << " bands of " << rows);
      if (rows <= conv.g.out) {
        EXPECT_EQ(conv.forwardBands(rows), conv.forward());
        EXPECT_EQ(conv.filterBands(rows), conv.filter());
      }
      EXPECT_EQ(conv.dataBands(rows), conv.data());
    }
  }
}

TEST(CudaConvBandsTest, Stride1WithPaddingReadsAHalo) {
  // 3x3, pad 1: output rows [4, 8) read input rows [3, 9); the top band
  // reads one padding row above row 0, the bottom one one below.
  ConvRows g = rowsOf(16, 3, 1, 1, 1);
  EXPECT_EQ(g.out, 16);
  EXPECT_EQ(g.inputsOf({4, 8}), (RowRange{3, 9}));
  EXPECT_EQ(g.inputsOf({0, 4}), (RowRange{-1, 5}));
  EXPECT_FALSE(g.inputsOf({0, 4}).inside(g.in));
  EXPECT_TRUE(g.inputsOf({4, 8}).inside(g.in));
  EXPECT_EQ(g.inputsOf({12, 16}), (RowRange{11, 17}));
  // dx rows [4, 8) get gradient from output rows [3, 9), which span input
  // rows [2, 10).
  EXPECT_EQ(g.outputsReading({4, 8}), (RowRange{3, 9}));
  EXPECT_EQ(g.inputsOf(g.outputsReading({4, 8})), (RowRange{2, 10}));
  EXPECT_EQ(g.outputsReading({0, 4}), (RowRange{0, 5}));
  EXPECT_EQ(g.outputsReading({12, 16}), (RowRange{11, 16}));
  for (int64_t rows : {1, 2, 3, 5, 8, 16})
    checkBands(g, rows);
}

TEST(CudaConvBandsTest, Stride2HalvesTheOutputsOfABand) {
  // 3x3, stride 2, pad 1 on 17 rows: 9 output rows.
  ConvRows g = rowsOf(17, 3, 2, 1, 1);
  EXPECT_EQ(g.out, 9);
  EXPECT_EQ(g.inputsOf({2, 4}), (RowRange{3, 8}));
  EXPECT_EQ(g.outputsReading({4, 6}), (RowRange{2, 4}));
  EXPECT_EQ(g.outputsReading({3, 4}), (RowRange{1, 3}));
  // 7x7, stride 2, pad 3 (ResNet's first convolution) on an odd height.
  ConvRows stem = rowsOf(33, 7, 2, 3, 1);
  EXPECT_EQ(stem.out, 17);
  EXPECT_EQ(stem.inputsOf({0, 1}), (RowRange{-3, 4}));
  for (const ConvRows &each : {g, stem})
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 9, 17})
      checkBands(each, rows);
}

TEST(CudaConvBandsTest, AStrided1x1KernelSkipsRows) {
  // 1x1, stride 2 (a ResNet downsampling shortcut): odd input rows are
  // read by no output, so a band of them gets no outputs (its gradient is
  // zero), and the last input row of an odd height too.
  ConvRows g = rowsOf(9, 1, 2, 0, 1);
  EXPECT_EQ(g.out, 5);
  EXPECT_TRUE(g.outputsReading({1, 2}).empty());
  EXPECT_EQ(g.outputsReading({1, 4}), (RowRange{1, 2}));
  EXPECT_EQ(g.inputsOf({1, 2}), (RowRange{2, 3}));
  ConvRows even = rowsOf(10, 1, 2, 0, 1);
  EXPECT_TRUE(even.outputsReading({9, 10}).empty());
  for (const ConvRows &each : {g, even})
    for (int64_t rows : {1, 2, 3, 4})
      checkBands(each, rows);
}

TEST(CudaConvBandsTest, DilationWidensTheSpan) {
  // 3x3, dilation 2, pad 2: a span of 5 rows.
  ConvRows g = rowsOf(12, 3, 1, 2, 2);
  EXPECT_EQ(g.span(), 5);
  EXPECT_EQ(g.out, 12);
  EXPECT_EQ(g.inputsOf({3, 6}), (RowRange{1, 8}));
  EXPECT_EQ(g.outputsReading({5, 6}), (RowRange{3, 8}));
  ConvRows strided = rowsOf(15, 3, 2, 1, 3);
  for (const ConvRows &each : {g, strided})
    for (int64_t rows : {1, 2, 4, 5, 11})
      checkBands(each, rows);
}

TEST(CudaConvBandsTest, TheLastBandIsShorter) {
  EXPECT_EQ(bandCount(10, 4), 3);
  EXPECT_EQ(bandAt(10, 4, 0), (RowRange{0, 4}));
  EXPECT_EQ(bandAt(10, 4, 2), (RowRange{8, 10}));
  EXPECT_EQ(bandCount(10, 10), 1);
  EXPECT_EQ(bandCount(1, 1), 1);
  // Its halo stops at the padding row below the image.
  ConvRows g = rowsOf(10, 3, 1, 1, 1);
  EXPECT_EQ(g.inputsOf(bandAt(10, 4, 2)), (RowRange{7, 11}));
  EXPECT_EQ(RowRange({7, 11}).intersect({0, 10}), (RowRange{7, 10}));
  EXPECT_TRUE(RowRange({7, 11}).intersect({11, 12}).empty());
}
