//===- LowPrecisionKernelTest.cpp - bf16 / f16 kernels of the CPU runtime -===//
//
// Mixed precision (tg-amp) runs kernels on bf16 and f16 tensors: tg.cast
// rounds to nearest even (ties to even, overflow to infinity, NaN kept,
// f16 subnormals), the templated kernels load as f32 and store rounded,
// and the convolutions run oneDNN's bf16 primitives or, for f16, f32
// copies in their workspace; both agree with the f32 kernel on the same
// (rounded) values within the output's rounding.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "KernelTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using namespace memopt::rt;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Casts `values` to `type` and back to f32 with the runtime's kernels.
std::vector<uint16_t> narrow(const std::vector<float> &values,
                             ElementType type) {
  std::vector<uint16_t> out(values.size());
  Dims shape{static_cast<int64_t>(values.size())};
  cast(ConstTensor(values.data(), shape),
       Tensor(reinterpret_cast<float *>(out.data()), shape, type));
  return out;
}

std::vector<float> widen(const std::vector<uint16_t> &values,
                         ElementType type) {
  std::vector<float> out(values.size());
  Dims shape{static_cast<int64_t>(values.size())};
  cast(ConstTensor(reinterpret_cast<const float *>(values.data()), shape, type),
       Tensor(out.data(), shape));
  return out;
}

} // namespace

TEST(LowPrecisionKernelTest, Bf16RoundsToNearestEven) {
  std::vector<float> in = {
      1.0f,
      fromBits(0x3f808000), // halfway between two bf16: ties to even (down)
      fromBits(0x3f818000), // halfway, odd below: rounds up
      fromBits(0x3f808001), // just above halfway: up
      -2.5f,
      std::numeric_limits<float>::max(), // rounds to infinity
      std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint16_t> bf = narrow(in, ElementType::BF16);
  EXPECT_EQ(bf[0], 0x3f80);
  EXPECT_EQ(bf[1], 0x3f80);
  EXPECT_EQ(bf[2], 0x3f82);
  EXPECT_EQ(bf[3], 0x3f81);
  EXPECT_EQ(bf[4], 0xc020);
  EXPECT_EQ(bf[5], 0x7f80);
  EXPECT_TRUE(std::isnan(widen(bf, ElementType::BF16)[6]));
  EXPECT_EQ(widen(bf, ElementType::BF16)[4], -2.5f);
}

TEST(LowPrecisionKernelTest, F16RoundsToNearestEvenWithSubnormals) {
  std::vector<float> in = {1.0f,
                           65504.0f,
                           65520.0f,
                           1.0f + 0x1p-11f,
                           0x1p-24f,
                           0x1p-25f,
                           3.0f * 0x1p-25f,
                           -0.0f,
                           std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint16_t> h = narrow(in, ElementType::F16);
  EXPECT_EQ(h[0], 0x3c00);
  EXPECT_EQ(h[1], 0x7bff); // the largest f16
  EXPECT_EQ(h[2], 0x7c00); // halfway to the next: overflows to infinity
  EXPECT_EQ(h[3], 0x3c00); // tie: even
  EXPECT_EQ(h[4], 0x0001); // the smallest subnormal
  EXPECT_EQ(h[5], 0x0000); // half of it: ties to even zero
  EXPECT_EQ(h[6], 0x0002); // 1.5 of it: ties to even (2)
  EXPECT_EQ(h[7], 0x8000);
  EXPECT_EQ(h[8], 0x7c00);
  std::vector<float> back = widen(h, ElementType::F16);
  EXPECT_EQ(back[1], 65504.0f);
  EXPECT_EQ(back[4], 0x1p-24f);
  EXPECT_TRUE(std::isnan(back[9]));
  EXPECT_TRUE(std::signbit(back[7]));
}

TEST(LowPrecisionKernelTest, EveryF16RoundTripsExactly) {
  std::vector<uint16_t> all(1 << 16);
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<uint16_t>(i);
  std::vector<float> wide = widen(all, ElementType::F16);
  std::vector<uint16_t> back = narrow(wide, ElementType::F16);
  for (uint32_t i = 0; i < all.size(); ++i) {
    bool nan = (i & 0x7c00) == 0x7c00 && (i & 0x3ff);
    if (!nan)
      ASSERT_EQ(back[i], all[i]) << "f16 bits " << i;
  }
}

TEST(LowPrecisionKernelTest, ElementwiseComputesInF32AndRounds) {
  std::vector<float> a = {1.0f, -2.0f, 3.0f, 0.5f};
  std::vector<float> b = {0.25f, 1.0f, -3.0f, 1.0f / 3.0f};
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> la = narrow(a, type), lb = narrow(b, type);
    std::vector<uint16_t> sum(4), relu(4);
    Dims shape{4};
    add(ConstTensor(reinterpret_cast<float *>(la.data()), shape, type),
        ConstTensor(reinterpret_cast<float *>(lb.data()), shape, type),
        Tensor(reinterpret_cast<float *>(sum.data()), shape, type));
    memopt::rt::relu(
        ConstTensor(reinterpret_cast<float *>(sum.data()), shape, type),
        Tensor(reinterpret_cast<float *>(relu.data()), shape, type));
    std::vector<float> wa = widen(la, type), wb = widen(lb, type);
    std::vector<float> expected(4);
    for (int i = 0; i < 4; ++i)
      expected[i] = std::max(0.0f, wa[i] + wb[i]);
    // The f32 result rounded once: exactly the kernel's.
    EXPECT_EQ(widen(relu, type), widen(narrow(expected, type), type));
  }
}

TEST(LowPrecisionKernelTest, ConvolutionsMatchF32OnTheRoundedValues) {
  // A 3x3 convolution with bias, 8 -> 16 channels at 12x12, its data and
  // filter gradients: in bf16 (oneDNN's bf16 primitives where the CPU has
  // them, else f32 copies) and in f16 (f32 copies), against the f32 kernel
  // on the same rounded inputs, within a few roundings of the output.
  const Dims input{2, 8, 12, 12}, weight{16, 8, 3, 3}, output{2, 16, 12, 12};
  std::vector<float> x(input.product()), w(weight.product()), bias(16),
      dy(output.product());
  uint32_t seed = 1;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / float(1 << 24) - 0.5f;
  };
  for (auto *v : {&x, &w, &bias, &dy})
    for (float &e : *v)
      e = next();
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> lx = narrow(x, type), lw = narrow(w, type),
                          lb = narrow(bias, type), ldy = narrow(dy, type);
    std::vector<float> rx = widen(lx, type), rw = widen(lw, type),
                       rb = widen(lb, type), rdy = widen(ldy, type);
    auto low = [&](std::vector<uint16_t> &v, const Dims &shape) {
      return Tensor(reinterpret_cast<float *>(v.data()), shape, type);
    };
    auto check = [&](const std::vector<uint16_t> &got,
                     const std::vector<float> &want, const char *what) {
      std::vector<float> g = widen(got, type);
      double worst = 0, scale = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, double(std::fabs(g[i] - want[i])));
        scale = std::max(scale, double(std::fabs(want[i])));
      }
      // bf16 keeps 8 significant bits, f16 11: a few roundings of the
      // largest value.
      double ulp = type == ElementType::BF16 ? 0x1p-8 : 0x1p-11;
      EXPECT_LE(worst, 4 * ulp * scale) << what;
    };
    Dims strides{1, 1}, dilations{1, 1};
    Dims pads{1, 1, 1, 1};
    {
      std::vector<float> want(output.product());
      std::vector<char> ws(convWorkspaceBytes(input, weight, true, output,
                                                strides, pads, dilations, 1) +
                           64);
      conv(ConstTensor(rx.data(), input), ConstTensor(rw.data(), weight),
             ConstTensor(rb.data(), Dims{16}), Tensor(want.data(), output),
             strides, pads, dilations, 1, ws.data());
      std::vector<uint16_t> got(output.product());
      std::vector<char> lws(convWorkspaceBytes(input, weight, true, output,
                                                 strides, pads, dilations, 1,
                                                 type) +
                            64);
      conv(low(lx, input), low(lw, weight), low(lb, Dims{16}),
             low(got, output), strides, pads, dilations, 1, lws.data());
      check(got, want, "conv");
    }
    {
      std::vector<float> want(input.product());
      std::vector<char> ws(convBackwardDataWorkspaceBytes(
          output, weight, input, strides, pads, dilations, 1));
      convBackwardData(
          ConstTensor(rdy.data(), output), ConstTensor(rw.data(), weight),
          Tensor(want.data(), input), strides, pads, dilations, 1, ws.data());
      std::vector<uint16_t> got(input.product());
      std::vector<char> lws(convBackwardDataWorkspaceBytes(
          output, weight, input, strides, pads, dilations, 1, type));
      convBackwardData(low(ldy, output), low(lw, weight), low(got, input),
                         strides, pads, dilations, 1, lws.data());
      check(got, want, "conv_backward_data");
    }
    {
      std::vector<float> want(weight.product());
      std::vector<char> ws(convBackwardFilterWorkspaceBytes(
          output, input, weight, strides, pads, dilations, 1));
      convBackwardFilter(
          ConstTensor(rdy.data(), output), ConstTensor(rx.data(), input),
          Tensor(want.data(), weight), strides, pads, dilations, 1, ws.data());
      std::vector<uint16_t> got(weight.product());
      std::vector<char> lws(convBackwardFilterWorkspaceBytes(
          output, input, weight, strides, pads, dilations, 1, type));
      convBackwardFilter(low(ldy, output), low(lx, input), low(got, weight),
                           strides, pads, dilations, 1, lws.data());
      check(got, want, "conv_backward_filter");
    }
  }
}

TEST(LowPrecisionKernelTest, FilterGradientInBandsMatchesF32) {
  // Filter gradients whose oneDNN workspace exceeds their input (with 16
  // or more input elements per weight) run in bands of the outermost
  // spatial axis (ConvBands.h): rows of 2-D, slabs of 3-D and segments of
  // 1-D inputs. Strided, dilated and asymmetrically padded ones agree with
  // the f32 kernel on the same rounded values, stay inside the workspace
  // they report, and repeat bit for bit. That workspace is at most 3x the
  // input in 2-D, where the unbanded kernel's is about 4.5x on two
  // threads; at most 6x on these small 3-D and 1-D problems, whose bands
  // are few planes deep (each reads K - 1 halo planes beyond its own) and,
  // converted to f32 (f16), carry the f32 primitive's own copies (the
  // unbanded f16 workspace of the first 3-D case is 7.4x its input).
  struct Case {
    Dims input, weight;
    Dims strides, dilations;
    Dims pads;
    size_t inputFactor;
  } cases[] = {
      {{2, 16, 40, 24}, {8, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 3},
      {{2, 16, 40, 24}, {8, 16, 3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 0}, 3},
      {{2, 16, 41, 24}, {8, 16, 3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, 3},
      {{2, 16, 43, 64}, {8, 16, 5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, 3},
      {{2, 8, 20, 12, 12},
       {8, 8, 3, 3, 3},
       {1, 1, 1},
       {1, 1, 1},
       {1, 1, 1, 1, 1, 1},
       6},
      {{1, 8, 21, 12, 10},
       {4, 8, 3, 3, 3},
       {2, 2, 2},
       {1, 1, 1},
       {1, 1, 1, 0, 0, 0},
       6},
      {{2, 16, 600}, {8, 16, 3}, {1}, {2}, {2, 2}, 6}};
  uint32_t seed = 7;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / float(1 << 24) - 0.5f;
  };
  for (const Case &c : cases) {
    int axes = c.input.size - 2;
    Dims output{c.input[0], c.weight[0]};
    for (int i = 0; i < axes; ++i) {
      int64_t span = c.dilations[i] * (c.weight[2 + i] - 1) + 1;
      output[output.size++] =
          (c.input[2 + i] + c.pads[i] + c.pads[axes + i] - span) /
              c.strides[i] +
          1;
    }
    std::vector<float> x(c.input.product()), dy(output.product());
    for (auto *v : {&x, &dy})
      for (float &e : *v)
        e = next();
    for (ElementType type : {ElementType::BF16, ElementType::F16}) {
      std::vector<uint16_t> lx = narrow(x, type), ldy = narrow(dy, type);
      std::vector<float> rx = widen(lx, type), rdy = widen(ldy, type);
      std::vector<float> want(c.weight.product());
      std::vector<char> ws(convBackwardFilterWorkspaceBytes(
          output, c.input, c.weight, c.strides, c.pads, c.dilations, 1));
      convBackwardFilter(ConstTensor(rdy.data(), output),
                           ConstTensor(rx.data(), c.input),
                           Tensor(want.data(), c.weight), c.strides, c.pads,
                           c.dilations, 1, ws.data());
      size_t bytes = convBackwardFilterWorkspaceBytes(
          output, c.input, c.weight, c.strides, c.pads, c.dilations, 1, type);
      EXPECT_LE(bytes, c.inputFactor * lx.size() * sizeof(uint16_t) +
                           c.weight.product() * sizeof(float))
          << "input " << c.input[2] << " rows, type " << int(type);
      // A guard after the reported workspace must stay untouched.
      constexpr size_t kGuard = 4096;
      std::vector<char> lws(bytes + kGuard, '\x5a');
      std::vector<uint16_t> got[2];
      for (std::vector<uint16_t> &g : got) {
        g.assign(c.weight.product(), 0);
        convBackwardFilter(
            ConstTensor(reinterpret_cast<const float *>(ldy.data()), output,
                        type),
            ConstTensor(reinterpret_cast<const float *>(lx.data()), c.input,
                        type),
            Tensor(reinterpret_cast<float *>(g.data()), c.weight, type),
            c.strides, c.pads, c.dilations, 1, lws.data());
      }
      EXPECT_TRUE(std::all_of(lws.begin() + bytes, lws.end(),
                              [](char b) { return b == '\x5a'; }));
      EXPECT_EQ(got[0], got[1]);
      std::vector<float> g = widen(got[0], type);
      double worst = 0, scale = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, double(std::fabs(g[i] - want[i])));
        scale = std::max(scale, double(std::fabs(want[i])));
      }
      // One rounding of the f32 sum to the output's type.
      double ulp = type == ElementType::BF16 ? 0x1p-8 : 0x1p-11;
      EXPECT_LE(worst, ulp * scale)
          << "input " << c.input[2] << " rows, type " << int(type);
    }
  }
}

namespace {

/// Values in [-0.5, 0.5) from a fixed linear congruential sequence.
std::vector<float> noise(int64_t count, uint32_t seed) {
  std::vector<float> v(count);
  for (float &e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<float>(seed >> 8) / float(1 << 24) - 0.5f;
  }
  return v;
}

/// A low-precision tensor over `bits`.
Tensor lowTensor(std::vector<uint16_t> &bits, const Dims &shape,
                 ElementType type) {
  return Tensor(reinterpret_cast<float *>(bits.data()), shape, type);
}

/// `want` (an f32 kernel's result) rounded once to `type`: what a kernel
/// that loads as f32, computes as the f32 kernel does and stores rounded
/// writes.
std::vector<float> roundedOnce(const std::vector<float> &want,
                               ElementType type) {
  return widen(narrow(want, type), type);
}

using test_support::relativeError;

} // namespace

TEST(LowPrecisionKernelTest, InstanceNormComputesInF32WithF32Statistics) {
  // A 3-D (rank 5) instance norm and its gradient on bf16 / f16 tensors
  // with f32 scale, bias and statistics: the statistics and parameter
  // gradients are the f32 kernel's on the same rounded values, bit for
  // bit, and the activations its results rounded once.
  const Dims x{2, 3, 4, 6, 5}, channels{3}, stats{2, 3};
  std::vector<float> in = noise(x.product(), 3), dy = noise(x.product(), 4);
  for (float &e : in)
    e = 3.0f + 2.0f * e; // a mean far from zero, as after a convolution
  std::vector<float> scale = {0.5f, 1.0f, 2.0f}, bias = {0.1f, -0.2f, 0.3f};
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> lx = narrow(in, type), ldy = narrow(dy, type);
    std::vector<float> rx = widen(lx, type), rdy = widen(ldy, type);
    std::vector<float> y(x.product()), mean(6), inv(6), dx(x.product()),
        ds(3), db(3);
    instanceNorm(ConstTensor(rx.data(), x), ConstTensor(scale.data(), channels),
                 ConstTensor(bias.data(), channels), Tensor(y.data(), x),
                 Tensor(mean.data(), stats), Tensor(inv.data(), stats), 1e-5);
    instanceNormBackward(ConstTensor(rdy.data(), x), ConstTensor(rx.data(), x),
                         ConstTensor(scale.data(), channels),
                         ConstTensor(mean.data(), stats),
                         ConstTensor(inv.data(), stats), Tensor(dx.data(), x),
                         Tensor(ds.data(), channels),
                         Tensor(db.data(), channels));
    std::vector<uint16_t> ly(x.product()), ldx(x.product());
    std::vector<float> lmean(6), linv(6), lds(3), ldb(3);
    instanceNorm(lowTensor(lx, x, type), ConstTensor(scale.data(), channels),
                 ConstTensor(bias.data(), channels), lowTensor(ly, x, type),
                 Tensor(lmean.data(), stats), Tensor(linv.data(), stats), 1e-5);
    instanceNormBackward(lowTensor(ldy, x, type), lowTensor(lx, x, type),
                         ConstTensor(scale.data(), channels),
                         ConstTensor(lmean.data(), stats),
                         ConstTensor(linv.data(), stats),
                         lowTensor(ldx, x, type), Tensor(lds.data(), channels),
                         Tensor(ldb.data(), channels));
    EXPECT_EQ(lmean, mean);
    EXPECT_EQ(linv, inv);
    EXPECT_EQ(lds, ds);
    EXPECT_EQ(ldb, db);
    EXPECT_EQ(widen(ly, type), roundedOnce(y, type));
    EXPECT_EQ(widen(ldx, type), roundedOnce(dx, type));
  }
}

TEST(LowPrecisionKernelTest, PReluTakesLowPrecisionTensors) {
  // A per-channel slope broadcast over a rank-5 input, forward and
  // backward: the f32 kernel's results on the rounded values, rounded once.
  const Dims x{2, 3, 2, 3, 4}, slopeShape{3, 1, 1, 1};
  std::vector<float> in = noise(x.product(), 5), dy = noise(x.product(), 6);
  std::vector<float> slope = {0.25f, 0.1f, -0.5f};
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> lx = narrow(in, type), ldy = narrow(dy, type),
                          la = narrow(slope, type);
    std::vector<float> rx = widen(lx, type), rdy = widen(ldy, type),
                       ra = widen(la, type);
    std::vector<float> y(x.product()), dx(x.product());
    prelu(ConstTensor(rx.data(), x), ConstTensor(ra.data(), slopeShape),
          Tensor(y.data(), x));
    preluBackward(ConstTensor(rdy.data(), x), ConstTensor(rx.data(), x),
                  ConstTensor(ra.data(), slopeShape), Tensor(dx.data(), x));
    std::vector<uint16_t> ly(x.product()), ldx(x.product());
    prelu(lowTensor(lx, x, type), lowTensor(la, slopeShape, type),
          lowTensor(ly, x, type));
    preluBackward(lowTensor(ldy, x, type), lowTensor(lx, x, type),
                  lowTensor(la, slopeShape, type), lowTensor(ldx, x, type));
    EXPECT_EQ(widen(ly, type), roundedOnce(y, type));
    EXPECT_EQ(widen(ldx, type), roundedOnce(dx, type));
  }
}

TEST(LowPrecisionKernelTest, VolumetricDataMovementInLowPrecision) {
  // The ops between a 3-D U-Net's convolutions at rank 5 in bf16 / f16:
  // max and average pooling, trilinear resize, pad and concat, forward
  // and backward, against the f32 kernels on the same rounded values. The
  // forward ops compute as the f32 kernel and round once (max pooling,
  // pad and concat are exact); the backward ops accumulate into their
  // low-precision result, within a few roundings.
  const Dims x{1, 2, 4, 6, 4}, pooled{1, 2, 2, 3, 2}, up{1, 2, 8, 12, 8};
  const Dims window{2, 2, 2}, pads{0, 0, 0, 0, 0, 0}, dilations{1, 1, 1};
  const Dims padded{1, 2, 5, 8, 5}, padding{0, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  const Dims joined{1, 4, 4, 6, 4};
  const Scales scales{2.0, 2.0, 2.0};
  std::vector<float> in = noise(x.product(), 8);
  std::vector<float> dPooled = noise(pooled.product(), 9),
                     dUp = noise(up.product(), 10);
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> lx = narrow(in, type), ldp = narrow(dPooled, type),
                          ldu = narrow(dUp, type);
    std::vector<float> rx = widen(lx, type), rdp = widen(ldp, type),
                       rdu = widen(ldu, type);
    ConstTensor fx(rx.data(), x);
    double ulp = type == ElementType::BF16 ? 0x1p-8 : 0x1p-11;
    // Runs `f32` on f32 tensors and `low` on low ones with outputs of
    // `shape`; compares them exactly (`exact`) or within `roundings`.
    auto compare = [&](const Dims &shape, auto f32, auto low,
                       const char *what, int roundings) {
      std::vector<float> want(shape.product());
      f32(Tensor(want.data(), shape));
      std::vector<uint16_t> got(shape.product());
      low(lowTensor(got, shape, type));
      if (roundings == 0)
        EXPECT_EQ(widen(got, type), roundedOnce(want, type)) << what;
      else
        EXPECT_LE(relativeError(widen(got, type), want), roundings * ulp)
            << what;
    };
    compare(
        pooled,
        [&](Tensor out) {
          maxPool(fx, out, window, window, pads, dilations, false);
        },
        [&](Tensor out) {
          maxPool(lowTensor(lx, x, type), out, window, window, pads,
                  dilations, false);
        },
        "max_pool", 0);
    compare(
        x,
        [&](Tensor out) {
          maxPoolBackward(ConstTensor(rdp.data(), pooled), fx, out, window,
                          window, pads, dilations, false);
        },
        [&](Tensor out) {
          maxPoolBackward(lowTensor(ldp, pooled, type),
                          lowTensor(lx, x, type), out, window, window, pads,
                          dilations, false);
        },
        "max_pool_backward", 0);
    compare(
        pooled,
        [&](Tensor out) {
          avgPool(fx, out, window, window, pads, false, false);
        },
        [&](Tensor out) {
          avgPool(lowTensor(lx, x, type), out, window, window, pads, false,
                  false);
        },
        "avg_pool", 0);
    compare(
        x,
        [&](Tensor out) {
          avgPoolBackward(ConstTensor(rdp.data(), pooled), out, window,
                          window, pads, false, false);
        },
        [&](Tensor out) {
          avgPoolBackward(lowTensor(ldp, pooled, type), out, window, window,
                          pads, false, false);
        },
        "avg_pool_backward", 2);
    compare(
        up,
        [&](Tensor out) {
          resize(fx, out, ResizeMode::Bilinear, CoordinateMode::HalfPixel,
                 NearestMode::RoundPreferFloor, scales);
        },
        [&](Tensor out) {
          resize(lowTensor(lx, x, type), out, ResizeMode::Bilinear,
                 CoordinateMode::HalfPixel, NearestMode::RoundPreferFloor,
                 scales);
        },
        "resize", 0);
    compare(
        x,
        [&](Tensor out) {
          resizeBackward(ConstTensor(rdu.data(), up), out,
                         ResizeMode::Bilinear, CoordinateMode::HalfPixel,
                         NearestMode::RoundPreferFloor, scales);
        },
        [&](Tensor out) {
          resizeBackward(lowTensor(ldu, up, type), out, ResizeMode::Bilinear,
                         CoordinateMode::HalfPixel,
                         NearestMode::RoundPreferFloor, scales);
        },
        "resize_backward", 8);
    compare(
        padded,
        [&](Tensor out) { pad(fx, out, padding, PadMode::Constant, 0.5); },
        [&](Tensor out) {
          pad(lowTensor(lx, x, type), out, padding, PadMode::Constant, 0.5);
        },
        "pad", 0);
    compare(
        joined,
        [&](Tensor out) {
          ConstTensor parts[] = {fx, fx};
          concat(parts, 2, out, 1);
        },
        [&](Tensor out) {
          ConstTensor parts[] = {lowTensor(lx, x, type),
                                 lowTensor(lx, x, type)};
          concat(parts, 2, out, 1);
        },
        "concat", 0);
  }
}
