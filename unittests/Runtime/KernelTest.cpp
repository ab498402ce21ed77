//===- KernelTest.cpp - Hand-checked properties of the CPU kernels --------===//
//
// What the PyTorch parity suite cannot show with random data: tie and NaN
// rules, in-place use, dropout's mask, seeded uniform numbers and the
// comparisons of drop-path masks, select's untouched branch, workspace
// handling, bit-exact
// repeatability and the abort on a bad shape.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/Random.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

using namespace memopt::rt;

namespace {

std::vector<float> iota(int64_t n, float scale = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i) * 0.37f) * scale;
  return v;
}

bool bitEqual(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(RuntimeKernels, MaxPoolTiesGoToTheFirstMaximum) {
  // One 2x2 window of equal values: the gradient goes to the top-left one.
  std::vector<float> x = {1, 1, 1, 1}, dy = {5}, dx(4), y(1);
  Dims in = {1, 1, 2, 2}, out = {1, 1, 1, 1};
  maxPool(ConstTensor(x.data(), in), Tensor(y.data(), out), {2, 2}, {1, 1},
            {0, 0, 0, 0}, {1, 1}, false);
  EXPECT_EQ(y[0], 1.0f);
  maxPoolBackward(ConstTensor(dy.data(), out), ConstTensor(x.data(), in),
                    Tensor(dx.data(), in), {2, 2}, {1, 1}, {0, 0, 0, 0},
                    {1, 1}, false);
  EXPECT_EQ(dx, (std::vector<float>{5, 0, 0, 0}));
}

TEST(RuntimeKernels, MaxPoolNaNWins) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {1, nan, 7, 2}, dy = {3}, dx(4), y(1);
  Dims in = {1, 1, 2, 2}, out = {1, 1, 1, 1};
  maxPool(ConstTensor(x.data(), in), Tensor(y.data(), out), {2, 2}, {1, 1},
            {0, 0, 0, 0}, {1, 1}, false);
  EXPECT_TRUE(std::isnan(y[0]));
  maxPoolBackward(ConstTensor(dy.data(), out), ConstTensor(x.data(), in),
                    Tensor(dx.data(), in), {2, 2}, {1, 1}, {0, 0, 0, 0},
                    {1, 1}, false);
  EXPECT_EQ(dx, (std::vector<float>{0, 3, 0, 0}));
}

TEST(RuntimeKernels, ReluBackwardPassesNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y = {-1, 0, 2, nan}, dy = {1, 2, 3, 4}, dx(4);
  Dims s = {4};
  reluBackward(ConstTensor(dy.data(), s), ConstTensor(y.data(), s),
               Tensor(dx.data(), s));
  EXPECT_EQ(dx, (std::vector<float>{0, 0, 3, 4}));
}

TEST(RuntimeKernels, ElementwiseInPlace) {
  std::vector<float> x = {-2, -0.5, 0.5, 3}, b = {1};
  Dims s = {4};
  relu(ConstTensor(x.data(), s), Tensor(x.data(), s));
  add(ConstTensor(x.data(), s), ConstTensor(b.data(), {1}),
      Tensor(x.data(), s));
  EXPECT_EQ(x, (std::vector<float>{1, 1, 1.5, 4}));
}

TEST(RuntimeKernels, DropoutMask) {
  const int64_t n = 100000;
  std::vector<float> x(n, 2.0f), y(n), mask(n), y2(n), mask2(n);
  Dims s = {n};
  dropout(ConstTensor(x.data(), s), Tensor(y.data(), s),
          Tensor(mask.data(), s), 0.25, 42);
  int64_t dropped = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(mask[i] == 0.0f || mask[i] == 1.0f / 0.75f) << mask[i];
    EXPECT_EQ(y[i], x[i] * mask[i]);
    dropped += mask[i] == 0.0f;
  }
  EXPECT_NEAR(static_cast<double>(dropped) / n, 0.25, 0.01);

  dropout(ConstTensor(x.data(), s), Tensor(y2.data(), s),
          Tensor(mask2.data(), s), 0.25, 42);
  EXPECT_TRUE(bitEqual(mask, mask2)) << "same seed, same mask";
  dropout(ConstTensor(x.data(), s), Tensor(y2.data(), s),
          Tensor(mask2.data(), s), 0.25, 43);
  EXPECT_FALSE(bitEqual(mask, mask2)) << "another seed, another mask";

  dropout(ConstTensor(x.data(), s), Tensor(y2.data(), s),
          Tensor(mask2.data(), s), 0.0, 7);
  EXPECT_TRUE(bitEqual(x, y2)) << "ratio 0 keeps everything";
}

// The seeds of the generated steps' dropouts (Random.h): a function of the
// run seed and the step only, different per step, run seed and stream.
TEST(RuntimeKernels, StepAndStreamSeeds) {
  EXPECT_EQ(stepSeed(7, 3), stepSeed(7, 3));
  EXPECT_NE(stepSeed(7, 3), stepSeed(7, 4));
  EXPECT_NE(stepSeed(7, 3), stepSeed(8, 3));
  EXPECT_NE(stepSeed(0, 1), stepSeed(1, 0));
  EXPECT_NE(streamSeed(stepSeed(7, 3), 0), streamSeed(stepSeed(7, 3), 1));
  EXPECT_NE(streamSeed(stepSeed(7, 3), 1), streamSeed(stepSeed(7, 4), 1));
}

// tg.random_uniform's numbers: a function of (run seed, step, stream,
// element index) only, so a recomputed or resumed op draws them again and
// another step, stream or seed draws others.
TEST(RuntimeKernels, RandomUniformIsCounterBased) {
  const int64_t n = 100000;
  auto draw = [](int64_t count, int64_t step, uint64_t stream,
                 double low = 0.0, double high = 1.0) {
    std::vector<float> v(static_cast<size_t>(count));
    randomUniform(Tensor(v.data(), {count}), low, high,
                  randomUniformSeed(stepSeed(7, step), stream));
    return v;
  };
  std::vector<float> u = draw(n, 1, 0);
  double sum = 0;
  for (float x : u) {
    ASSERT_TRUE(x >= 0.0f && x < 1.0f) << x;
    sum += x;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_TRUE(bitEqual(u, draw(n, 1, 0))) << "same seed, step, stream";
  EXPECT_FALSE(bitEqual(u, draw(n, 2, 0))) << "another step";
  EXPECT_FALSE(bitEqual(u, draw(n, 1, 1))) << "another stream";
  // Element j depends on j only, not on the tensor's size.
  std::vector<float> prefix = draw(10, 1, 0);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), u.begin()));
  // low + (high - low) * u, fused.
  std::vector<float> scaled = draw(n, 1, 0, -1.0, 3.0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(scaled[i], std::fma(4.0f, u[i], -1.0f)) << i;
  // Not the streams of the dropouts.
  EXPECT_NE(randomUniformSeed(stepSeed(7, 1), 0),
            streamSeed(stepSeed(7, 1), 0));
}

TEST(RuntimeKernels, RandomUniformInLowPrecision) {
  const int64_t n = 64;
  uint64_t seed = randomUniformSeed(stepSeed(3, 1), 2);
  std::vector<float> f32(n), back(n);
  randomUniform(Tensor(f32.data(), {n}), 0.0, 1.0, seed);
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> low(n), rounded(n);
    randomUniform(Tensor(reinterpret_cast<float *>(low.data()), {n}, type),
                  0.0, 1.0, seed);
    // The f32 numbers rounded once.
    cast(ConstTensor(f32.data(), {n}),
         Tensor(reinterpret_cast<float *>(rounded.data()), {n}, type));
    EXPECT_EQ(low, rounded);
  }
}

// Drop-path masks: 1 where the comparison holds, 0 elsewhere (NaN never
// holds), broadcasting as the binary ops; floor as std::floor.
TEST(RuntimeKernels, CompareAndFloor) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {0.1f, 0.8f, 0.9f, nan}, keep = {0.8f}, out(4);
  Dims s = {4};
  auto run = [&](Comparison predicate) {
    compare(ConstTensor(a.data(), s), ConstTensor(keep.data(), {1}),
            Tensor(out.data(), s), predicate);
    return out;
  };
  EXPECT_EQ(run(Comparison::Less), (std::vector<float>{1, 0, 0, 0}));
  EXPECT_EQ(run(Comparison::LessEqual), (std::vector<float>{1, 1, 0, 0}));
  EXPECT_EQ(run(Comparison::Greater), (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(run(Comparison::GreaterEqual), (std::vector<float>{0, 1, 1, 0}));
  EXPECT_EQ(run(Comparison::Equal), (std::vector<float>{0, 1, 0, 0}));
  std::vector<float> x = {-1.5f, -0.0f, 0.75f, 1.75f}, y(4);
  memopt::rt::floor(ConstTensor(x.data(), s), Tensor(y.data(), s));
  EXPECT_EQ(y, (std::vector<float>{-2, -0.0f, 0, 1}));
}

// tg.select copies the chosen element: an inf or NaN in the other branch
// (softplus's overflowing branch) does not reach the result, with or
// without broadcasting, in f32 and bf16.
TEST(RuntimeKernels, SelectDoesNotReadTheOtherBranch) {
  float inf = std::numeric_limits<float>::infinity();
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> c = {1, 0, 1, 0}, a = {1, inf, 3, nan},
                     b = {-inf, 20, nan, 40}, out(4);
  Dims s = {4};
  select(ConstTensor(c.data(), s), ConstTensor(a.data(), s),
         ConstTensor(b.data(), s), Tensor(out.data(), s));
  EXPECT_EQ(out, (std::vector<float>{1, 20, 3, 40}));
  // In place on the condition.
  select(ConstTensor(c.data(), s), ConstTensor(a.data(), s),
         ConstTensor(b.data(), s), Tensor(c.data(), s));
  EXPECT_EQ(c, out);

  // 2x1 condition, a scalar and a 1x3 branch broadcast to 2x3.
  std::vector<float> rows = {0, 1}, fill = {inf}, cols = {5, 6, 7}, wide(6);
  select(ConstTensor(rows.data(), {2, 1}), ConstTensor(fill.data(), {1}),
         ConstTensor(cols.data(), {1, 3}), Tensor(wide.data(), {2, 3}));
  EXPECT_EQ(wide, (std::vector<float>{5, 6, 7, inf, inf, inf}));

  // bf16 (1 = 0x3F80, 2 = 0x4000, -3 = 0xC040, inf = 0x7F80): the chosen
  // bits are copied.
  std::vector<uint16_t> cb = {0x3F80, 0}, ab = {0x4000, 0x7F80},
                        bb = {0x7F80, 0xC040}, ob(2);
  auto bf16 = [](std::vector<uint16_t> &v) {
    return Tensor(reinterpret_cast<float *>(v.data()),
                  {static_cast<int64_t>(v.size())}, ElementType::BF16);
  };
  select(bf16(cb), bf16(ab), bf16(bb), bf16(ob));
  EXPECT_EQ(ob, (std::vector<uint16_t>{0x4000, 0xC040}));
}

TEST(RuntimeKernels, SgdWithoutMomentumNeedsNoBuffer) {
  std::vector<float> p = {1, 2}, g = {0.5, -1};
  Dims s = {2};
  sgdUpdate(ConstTensor(p.data(), s), ConstTensor(g.data(), s), ConstTensor(),
            7, Tensor(p.data(), s), Tensor(), 0.1, 0.0, 0.0, 0.0, false);
  EXPECT_EQ(p, (std::vector<float>{1 - 0.1f * 0.5f, 2 + 0.1f}));
}

TEST(RuntimeKernels, SgdFirstStepIgnoresTheBuffer) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> p = {1, 2}, g = {0.5, -1}, buf = {nan, nan}, out(2);
  Dims s = {2};
  sgdUpdate(ConstTensor(p.data(), s), ConstTensor(g.data(), s),
            ConstTensor(buf.data(), s), 1, Tensor(p.data(), s),
            Tensor(out.data(), s), 0.1, 0.9, 0.0, 0.0, false);
  EXPECT_EQ(out, g);
  EXPECT_EQ(p, (std::vector<float>{1 - 0.1f * 0.5f, 2 + 0.1f}));
}

TEST(RuntimeKernels, OptimizerInPlaceMatchesOutOfPlace) {
  const int64_t n = 257;
  Dims s = {n};
  std::vector<float> p = iota(n), g = iota(n, 0.3f), m = iota(n, 0.01f),
                     v(n, 1e-4f);
  std::vector<float> p2(n), m2(n), v2(n);
  adamUpdate(ConstTensor(p.data(), s), ConstTensor(g.data(), s),
             ConstTensor(m.data(), s), ConstTensor(v.data(), s), 3,
             Tensor(p2.data(), s), Tensor(m2.data(), s), Tensor(v2.data(), s),
             1e-3, 0.9, 0.999, 1e-8, 0.01, true);
  adamUpdate(ConstTensor(p.data(), s), ConstTensor(g.data(), s),
             ConstTensor(m.data(), s), ConstTensor(v.data(), s), 3,
             Tensor(p.data(), s), Tensor(m.data(), s), Tensor(v.data(), s),
             1e-3, 0.9, 0.999, 1e-8, 0.01, true);
  EXPECT_TRUE(bitEqual(p, p2));
  EXPECT_TRUE(bitEqual(m, m2));
  EXPECT_TRUE(bitEqual(v, v2));
}

TEST(RuntimeKernels, BatchNormRunningStatsInPlace) {
  Dims in = {3, 2, 4}, c = {2};
  std::vector<float> x = iota(24), scale = {1, 2}, bias = {0, 1},
                     rm = {0.5, -0.5}, rv = {1, 2};
  std::vector<float> y(24), sm(2), si(2), rm2(2), rv2(2);
  batchNorm(ConstTensor(x.data(), in), ConstTensor(scale.data(), c),
            ConstTensor(bias.data(), c), ConstTensor(rm.data(), c),
            ConstTensor(rv.data(), c), Tensor(y.data(), in),
            Tensor(rm2.data(), c), Tensor(rv2.data(), c), Tensor(sm.data(), c),
            Tensor(si.data(), c), 1e-5, 0.1);
  batchNorm(ConstTensor(x.data(), in), ConstTensor(scale.data(), c),
            ConstTensor(bias.data(), c), ConstTensor(rm.data(), c),
            ConstTensor(rv.data(), c), Tensor(y.data(), in),
            Tensor(rm.data(), c), Tensor(rv.data(), c), Tensor(sm.data(), c),
            Tensor(si.data(), c), 1e-5, 0.1);
  EXPECT_TRUE(bitEqual(rm, rm2));
  EXPECT_TRUE(bitEqual(rv, rv2));
}

/// Runs `kernel(a, b, out)` out of place and again with the output over
/// operand `over` (0: a, 1: b), as the memory plan's in-place writes do
/// (memopt/Analysis/StepMemory.h, inPlaceCandidates): the bits must agree.
void expectInPlaceBitIdentical(
    const char *name,
    const std::function<void(ConstTensor, ConstTensor, Tensor)> &kernel,
    int over) {
  Dims s = {2, 3, 5, 7};
  std::vector<float> a = iota(s.product()), b = iota(s.product(), -0.7f);
  std::vector<float> expected(s.product());
  kernel(ConstTensor(a.data(), s), ConstTensor(b.data(), s),
         Tensor(expected.data(), s));
  std::vector<float> &target = over == 0 ? a : b;
  kernel(ConstTensor(a.data(), s), ConstTensor(b.data(), s),
         Tensor(target.data(), s));
  EXPECT_TRUE(bitEqual(target, expected)) << name << " over operand " << over;
}

TEST(RuntimeKernels, PlannedInPlaceWritesAreBitIdentical) {
  namespace rt = memopt::rt;
  auto unary = [](void (*f)(ConstTensor, Tensor)) {
    return [f](ConstTensor a, ConstTensor, Tensor out) { f(a, out); };
  };
  expectInPlaceBitIdentical("relu", unary(rt::relu), 0);
  expectInPlaceBitIdentical("sigmoid", unary(rt::sigmoid), 0);
  expectInPlaceBitIdentical("tanh", unary(rt::tanh), 0);
  expectInPlaceBitIdentical("neg", unary(rt::neg), 0);
  for (int over : {0, 1}) {
    expectInPlaceBitIdentical("add", rt::add, over);
    expectInPlaceBitIdentical("sub", rt::sub, over);
    expectInPlaceBitIdentical("mul", rt::mul, over);
    expectInPlaceBitIdentical("div", rt::div, over);
    expectInPlaceBitIdentical("relu_backward", rt::reluBackward, over);
    expectInPlaceBitIdentical("sigmoid_backward", rt::sigmoidBackward, over);
    expectInPlaceBitIdentical("tanh_backward", rt::tanhBackward, over);
  }

  // BatchNorm: the output over the input; the input gradient over the
  // incoming gradient or over the input.
  Dims c = {3};
  std::vector<float> scale = {1, -2, 0.5}, bias = {0, 1, -1};
  std::vector<float> rm = {0, 0, 0}, rv = {1, 1, 1}, rm2(3), rv2(3), sm(3),
                     si(3);
  auto batchNormOf = [&](ConstTensor x, ConstTensor, Tensor y) {
    batchNorm(x, ConstTensor(scale.data(), c), ConstTensor(bias.data(), c),
              ConstTensor(rm.data(), c), ConstTensor(rv.data(), c), y,
              Tensor(rm2.data(), c), Tensor(rv2.data(), c),
              Tensor(sm.data(), c), Tensor(si.data(), c), 1e-5, 0.1);
  };
  expectInPlaceBitIdentical("batch_norm", batchNormOf, 0);
  std::vector<float> mean = {0.1f, -0.2f, 0.3f}, invStd = {1.5f, 0.5f, 2},
                     ds(3), db(3);
  auto batchNormBackwardOf = [&](ConstTensor dy, ConstTensor x, Tensor dx) {
    batchNormBackward(dy, x, ConstTensor(scale.data(), c),
                      ConstTensor(mean.data(), c),
                      ConstTensor(invStd.data(), c), dx,
                      Tensor(ds.data(), c), Tensor(db.data(), c));
  };
  expectInPlaceBitIdentical("batch_norm_backward", batchNormBackwardOf, 0);
  expectInPlaceBitIdentical("batch_norm_backward", batchNormBackwardOf, 1);
}

TEST(RuntimeKernels, ConcatOfOperandsInTheirSlices) {
  // The memory plan may compute concat operands in their slice of the
  // output: the result is the same bits as a concat of separate operands.
  Dims a = {1, 2, 3}, b = {1, 1, 3}, out = {1, 3, 3};
  std::vector<float> x = iota(6), y = iota(3, -2.0f), expected(9), slab(9);
  ConstTensor separate[] = {ConstTensor(x.data(), a), ConstTensor(y.data(), b)};
  concat(separate, 2, Tensor(expected.data(), out), 1);
  std::copy(x.begin(), x.end(), slab.begin());
  std::copy(y.begin(), y.end(), slab.begin() + 6);
  ConstTensor sliced[] = {ConstTensor(slab.data(), a),
                          ConstTensor(slab.data() + 6, b)};
  concat(sliced, 2, Tensor(slab.data(), out), 1);
  EXPECT_TRUE(bitEqual(slab, expected));
}

/// A workspace (std::free it) for a convolution without bias and its two
/// gradients; null when none needs one.
void *convWorkspace(const Dims &in, const Dims &w, const Dims &out,
                    const Dims &s, const Dims &p, const Dims &d,
                    int64_t groups) {
  size_t bytes = std::max(
      {convWorkspaceBytes(in, w, false, out, s, p, d, groups),
       convBackwardDataWorkspaceBytes(out, w, in, s, p, d, groups),
       convBackwardFilterWorkspaceBytes(out, in, w, s, p, d, groups)});
  return bytes ? std::aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr;
}

/// A mid-sized strided, grouped convolution and its gradients.
struct ConvRun {
  std::vector<float> y, dx, dw;
};

ConvRun runConv() {
  Dims in = {4, 16, 33, 29}, w = {32, 8, 3, 3}, out = {4, 32, 17, 15};
  Dims s = {2, 2}, d = {1, 1};
  Dims p = {1, 1, 1, 1};
  std::vector<float> x = iota(in.product()), weight = iota(w.product(), 0.1f),
                     dy = iota(out.product(), 0.5f);
  ConvRun r{std::vector<float>(out.product()),
            std::vector<float>(in.product()), std::vector<float>(w.product())};
  void *ws = convWorkspace(in, w, out, s, p, d, 2);
  conv(ConstTensor(x.data(), in), ConstTensor(weight.data(), w),
         ConstTensor(), Tensor(r.y.data(), out), s, p, d, 2, ws);
  convBackwardData(ConstTensor(dy.data(), out), ConstTensor(weight.data(), w),
                     Tensor(r.dx.data(), in), s, p, d, 2, ws);
  convBackwardFilter(ConstTensor(dy.data(), out), ConstTensor(x.data(), in),
                       Tensor(r.dw.data(), w), s, p, d, 2, ws);
  std::free(ws);
  return r;
}

TEST(RuntimeKernels, ConvolutionsAreBitReproducible) {
  ConvRun a = runConv(), b = runConv();
  EXPECT_TRUE(bitEqual(a.y, b.y));
  EXPECT_TRUE(bitEqual(a.dx, b.dx));
  EXPECT_TRUE(bitEqual(a.dw, b.dw));
}

/// Relative L2 distance of `a` from `b`.
double relativeError(const std::vector<float> &a, const std::vector<double> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

/// A 3x3 convolution (stride 1, pad 1) and its gradients on both paths of
/// the runtime: `channels` x `channels` weights on `size` x `size` maps are
/// reordered into blocked layouts when small against the activations, used
/// in place when large; both must match direct sums in double.
void checkConvAgainstDirectSums(int64_t channels, int64_t size) {
  const int64_t c = channels, n = size;
  Dims in = {1, c, n, n}, w = {c, c, 3, 3};
  Dims s = {1, 1}, d = {1, 1};
  Dims p = {1, 1, 1, 1};
  std::vector<float> x = iota(in.product()), weight = iota(w.product(), 0.1f),
                     dy = iota(in.product(), 0.5f);
  std::vector<double> y(in.product()), dx(in.product()), dw(w.product());
  auto at = [n](int64_t ch, int64_t h, int64_t v) { return (ch * n + h) * n + v; };
  for (int64_t o = 0; o < c; ++o)
    for (int64_t i = 0; i < c; ++i)
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw) {
          double wv = weight[((o * c + i) * 3 + kh) * 3 + kw];
          for (int64_t h = 0; h < n; ++h)
            for (int64_t v = 0; v < n; ++v) {
              int64_t sh = h + kh - 1, sv = v + kw - 1;
              if (sh < 0 || sh >= n || sv < 0 || sv >= n)
                continue;
              y[at(o, h, v)] += wv * x[at(i, sh, sv)];
              dx[at(i, sh, sv)] += wv * dy[at(o, h, v)];
              dw[((o * c + i) * 3 + kh) * 3 + kw] +=
                  double(dy[at(o, h, v)]) * x[at(i, sh, sv)];
            }
        }
  std::vector<float> ry(in.product()), rdx(in.product()), rdw(w.product());
  void *ws = convWorkspace(in, w, in, s, p, d, 1);
  conv(ConstTensor(x.data(), in), ConstTensor(weight.data(), w),
         ConstTensor(), Tensor(ry.data(), in), s, p, d, 1, ws);
  convBackwardData(ConstTensor(dy.data(), in), ConstTensor(weight.data(), w),
                     Tensor(rdx.data(), in), s, p, d, 1, ws);
  convBackwardFilter(ConstTensor(dy.data(), in), ConstTensor(x.data(), in),
                       Tensor(rdw.data(), w), s, p, d, 1, ws);
  std::free(ws);
  EXPECT_LT(relativeError(ry, y), 1e-6);
  EXPECT_LT(relativeError(rdx, dx), 1e-6);
  EXPECT_LT(relativeError(rdw, dw), 1e-6);
}

TEST(RuntimeKernels, BlockedConvolutionsMatchDirectSums) {
  // Weights 2304 elements, activations 2 x 1600: blocked copies.
  checkConvAgainstDirectSums(16, 10);
}

TEST(RuntimeKernels, PlainConvolutionsWithLargeWeightsMatchDirectSums) {
  // Weights 36864 elements, activations 2 x 576: more than 8x, plain.
  checkConvAgainstDirectSums(64, 3);
}

TEST(RuntimeKernels, SingleOutputConvolutionsMatchDirectSums) {
  // One output channel: the runtime's direct, workspace-free forward and
  // gradients.
  // Batch 2, 3 input channels, stride 2, dilation 2, uneven padding.
  Dims in = {2, 3, 11, 9}, w = {1, 3, 3, 2}, out = {2, 1, 4, 5};
  Dims s = {2, 2}, d = {2, 2};
  Dims p = {1, 0, 0, 2};
  EXPECT_EQ(convBackwardDataWorkspaceBytes(out, w, in, s, p, d, 1), 0u);
  EXPECT_EQ(convBackwardFilterWorkspaceBytes(out, in, w, s, p, d, 1), 0u);
  std::vector<float> x = iota(in.product()), weight = iota(w.product(), 0.1f),
                     dy = iota(out.product(), 0.5f);
  std::vector<double> y(out.product(), 0.25), dx(in.product()),
      dw(w.product());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 2; ++kw)
          for (int64_t oh = 0; oh < 4; ++oh)
            for (int64_t ow = 0; ow < 5; ++ow) {
              int64_t ih = oh * 2 - 1 + kh * 2, iw = ow * 2 - 0 + kw * 2;
              if (ih < 0 || ih >= 11 || iw < 0 || iw >= 9)
                continue;
              double g = dy[(b * 4 + oh) * 5 + ow];
              int64_t xi = ((b * 3 + c) * 11 + ih) * 9 + iw;
              int64_t wi = (c * 3 + kh) * 2 + kw;
              y[(b * 4 + oh) * 5 + ow] += double(weight[wi]) * x[xi];
              dx[xi] += g * weight[wi];
              dw[wi] += g * x[xi];
            }
  EXPECT_EQ(convWorkspaceBytes(in, w, true, out, s, p, d, 1), 0u);
  float bias = 0.25f;
  std::vector<float> ry(out.product(), -1.0f), rdx(in.product(), -1.0f),
      rdw(w.product(), -1.0f);
  conv(ConstTensor(x.data(), in), ConstTensor(weight.data(), w),
         ConstTensor(&bias, Dims{1}), Tensor(ry.data(), out), s, p, d, 1,
         nullptr);
  EXPECT_LT(relativeError(ry, y), 1e-7);
  convBackwardData(ConstTensor(dy.data(), out), ConstTensor(weight.data(), w),
                     Tensor(rdx.data(), in), s, p, d, 1, nullptr);
  convBackwardFilter(ConstTensor(dy.data(), out), ConstTensor(x.data(), in),
                       Tensor(rdw.data(), w), s, p, d, 1, nullptr);
  EXPECT_LT(relativeError(rdx, dx), 1e-6);
  EXPECT_LT(relativeError(rdw, dw), 1e-7);
}

TEST(RuntimeKernels, WorkspaceQueryIsStable) {
  Dims in = {2, 3, 9, 9}, w = {5, 3, 3, 3}, out = {2, 5, 9, 9};
  size_t first = convWorkspaceBytes(in, w, true, out, {1, 1}, {1, 1, 1, 1},
                                      {1, 1}, 1);
  EXPECT_EQ(first, convWorkspaceBytes(in, w, true, out, {1, 1},
                                        {1, 1, 1, 1}, {1, 1}, 1));
}

TEST(RuntimeKernels, PadBackwardOfOneAxisByHand) {
  // x = [a b c d] padded by 2 before and 3 after.
  //   edge:    a a | a b c d | d d d   -> dx = [3 1 1 4] for dy = 1
  //   reflect: c b | a b c d | c b a   -> dx = [2 3 3 1]
  std::vector<float> dy(9, 1.0f), dx(4);
  Dims in = {1, 1, 4}, out = {1, 1, 9};
  padBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), in),
              {0, 0, 2, 0, 0, 3}, PadMode::Edge);
  EXPECT_EQ(dx, (std::vector<float>{3, 1, 1, 4}));
  padBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), in),
              {0, 0, 2, 0, 0, 3}, PadMode::Reflect);
  EXPECT_EQ(dx, (std::vector<float>{2, 3, 3, 1}));
  padBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), in),
              {0, 0, 2, 0, 0, 3}, PadMode::Constant);
  EXPECT_EQ(dx, (std::vector<float>{1, 1, 1, 1}));
}

/// The scatter-add that pad_backward computes as a gather: every padded
/// position adds its gradient onto the input element it copied.
std::vector<double> padBackwardReference(const std::vector<float> &dy,
                                         const Dims &in, const Dims &pads,
                                         PadMode mode) {
  int rank = in.size;
  Dims out = in;
  for (int a = 0; a < rank; ++a)
    out[a] = in[a] + pads[a] + pads[rank + a];
  std::vector<double> dx(static_cast<size_t>(in.product()), 0.0);
  std::vector<int64_t> c(rank, 0);
  for (size_t o = 0; o < dy.size(); ++o) {
    int64_t offset = 0;
    bool inside = true;
    for (int a = 0; a < rank; ++a) {
      int64_t i = c[a] - pads[a], n = in[a];
      if (i < 0)
        i = mode == PadMode::Edge ? 0 : mode == PadMode::Reflect ? -i : -1;
      else if (i >= n)
        i = mode == PadMode::Edge      ? n - 1
            : mode == PadMode::Reflect ? 2 * (n - 1) - i
                                       : -1;
      inside = inside && i >= 0;
      offset = offset * n + i;
    }
    if (inside)
      dx[offset] += dy[o];
    for (int a = rank - 1; a >= 0; --a) {
      if (++c[a] < out[a])
        break;
      c[a] = 0;
    }
  }
  return dx;
}

TEST(RuntimeKernels, PadBackwardMatchesTheScatterAdd) {
  struct Case {
    Dims in, pads;
  };
  // Ranks 3 to 5; widths of 0 (MONAI's replicate pad of a 1x1 conv), 1,
  // uneven, and up to size - 1 (the most a reflect pad may take).
  std::vector<Case> cases = {
      {{2, 3, 5}, {0, 0, 2, 0, 0, 4}},
      {{1, 2, 1}, {0, 0, 0, 0, 0, 0}},
      {{2, 2, 4, 3}, {0, 0, 1, 2, 0, 0, 3, 0}},
      {{1, 3, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0}},
      {{1, 2, 3, 4, 5}, {0, 0, 1, 0, 2, 0, 0, 2, 3, 4}},
      {{2, 1, 2, 3, 2}, {0, 0, 1, 1, 1, 0, 0, 1, 2, 1}},
  };
  for (PadMode mode : {PadMode::Constant, PadMode::Edge, PadMode::Reflect})
    for (const Case &c : cases) {
      int rank = c.in.size;
      Dims out = c.in;
      for (int a = 0; a < rank; ++a)
        out[a] = c.in[a] + c.pads[a] + c.pads[rank + a];
      std::vector<float> dy = iota(out.product(), 3.0f);
      std::vector<float> dx(static_cast<size_t>(c.in.product()), -1.0f);
      padBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), c.in),
                  c.pads, mode);
      std::vector<double> want =
          padBackwardReference(dy, c.in, c.pads, mode);
      for (size_t i = 0; i < dx.size(); ++i)
        EXPECT_NEAR(dx[i], want[i], 1e-5)
            << "mode " << static_cast<int>(mode) << ", rank " << rank
            << ", element " << i;
    }
}

TEST(RuntimeKernels, PadBackwardIsTheAdjointOfPad) {
  // <pad(x), dy> = <x, pad_backward(dy)> for every mode.
  Dims in = {1, 2, 3, 4}, pads = {0, 0, 2, 1, 0, 0, 1, 3};
  Dims out = {1, 2, 6, 8};
  std::vector<float> x = iota(in.product()), y(out.product());
  std::vector<float> dy = iota(out.product(), 0.5f), dx(in.product());
  for (PadMode mode : {PadMode::Constant, PadMode::Edge, PadMode::Reflect}) {
    pad(ConstTensor(x.data(), in), Tensor(y.data(), out), pads, mode, 0.0);
    padBackward(ConstTensor(dy.data(), out), Tensor(dx.data(), in), pads,
                mode);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i)
      lhs += static_cast<double>(y[i]) * dy[i];
    for (size_t i = 0; i < x.size(); ++i)
      rhs += static_cast<double>(x[i]) * dx[i];
    EXPECT_NEAR(lhs, rhs, 1e-4) << "mode " << static_cast<int>(mode);
  }
}

TEST(RuntimeKernels, ReshapeCopies) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  reshape(ConstTensor(x.data(), {2, 3}), Tensor(y.data(), {3, 2}));
  EXPECT_EQ(x, y);
}

TEST(RuntimeKernelsDeathTest, BadShapeAbortsNamingTheKernel) {
  std::vector<float> a(6), b(4), c(6);
  EXPECT_DEATH(add(ConstTensor(a.data(), {2, 3}), ConstTensor(b.data(), {4}),
                   Tensor(c.data(), {2, 3})),
               "memopt runtime: add: operand of shape 4 does not broadcast "
               "to 2x3");
  EXPECT_DEATH(conv(ConstTensor(a.data(), {1, 1, 2, 3}),
                      ConstTensor(b.data(), {1, 1, 2, 2}), ConstTensor(),
                      Tensor(c.data(), {1, 1, 2, 2}), {1, 1}, {0, 0, 0, 0},
                      {1, 1}, 1, nullptr),
               "memopt runtime: conv: 'output' has shape 1x1x2x2, expected "
               "1x1x1x2");
}

} // namespace
