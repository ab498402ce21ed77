//===- ThreadingTest.cpp - Kernel results do not depend on threads --------===//
//
// The kernels outside oneDNN split their loops over OpenMP threads; their
// reductions (BatchNorm statistics, gradients of pooling and resize) have a
// fixed order. Each test runs kernels on tensors large enough to take the
// parallel path at 1, 2 and 3 threads and requires bit-identical results.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "gtest/gtest.h"

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

using namespace memopt::rt;

namespace {

using Buffers = std::vector<std::vector<float>>;

std::vector<float> wave(int64_t n, float phase) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i) * 0.731f + phase) +
           0.25f * std::cos(static_cast<float>(i % 97) * phase);
  return v;
}

/// Runs `kernels` at 1, 2 and 3 threads; every buffer they return must be
/// bit-identical across the runs.
void expectThreadCountIndependent(const std::function<Buffers()> &kernels) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  Buffers reference = kernels();
  for (int threads : {2, 3}) {
    omp_set_num_threads(threads);
    Buffers other = kernels();
    ASSERT_EQ(reference.size(), other.size());
    for (size_t i = 0; i < reference.size(); ++i)
      EXPECT_EQ(0, std::memcmp(reference[i].data(), other[i].data(),
                               reference[i].size() * sizeof(float)))
          << "buffer " << i << " differs at " << threads << " threads";
  }
  omp_set_num_threads(saved);
}

TEST(RuntimeThreading, BatchNormStatisticsAndGradients) {
  // Two batch items, so that each channel's sums span two runs of data.
  Dims shape = {2, 7, 61, 67}, channel = {7};
  int64_t n = shape.product();
  std::vector<float> x = wave(n, 0.3f), dy = wave(n, 1.7f);
  std::vector<float> scale = wave(7, 0.9f), bias = wave(7, 2.1f);
  expectThreadCountIndependent([&] {
    std::vector<float> y(n), dx(n), mean(7, 0.5f), var(7, 2.0f);
    std::vector<float> saved(7), invStd(7), dScale(7), dBias(7);
    batchNorm(ConstTensor(x.data(), shape), ConstTensor(scale.data(), channel),
              ConstTensor(bias.data(), channel),
              ConstTensor(mean.data(), channel),
              ConstTensor(var.data(), channel), Tensor(y.data(), shape),
              Tensor(mean.data(), channel), Tensor(var.data(), channel),
              Tensor(saved.data(), channel), Tensor(invStd.data(), channel),
              1e-5, 0.1);
    batchNormBackward(ConstTensor(dy.data(), shape), ConstTensor(x.data(), shape),
                      ConstTensor(scale.data(), channel),
                      ConstTensor(saved.data(), channel),
                      ConstTensor(invStd.data(), channel),
                      Tensor(dx.data(), shape), Tensor(dScale.data(), channel),
                      Tensor(dBias.data(), channel));
    return Buffers{y, mean, var, saved, invStd, dx, dScale, dBias};
  });
}

TEST(RuntimeThreading, PoolingAndResizeGradients) {
  Dims in = {1, 9, 66, 70}, pooled = {1, 9, 33, 35};
  Dims up = {1, 9, 132, 140};
  int64_t n = in.product();
  std::vector<float> x = wave(n, 0.4f);
  std::vector<float> dPooled = wave(pooled.product(), 1.1f);
  std::vector<float> dUp = wave(up.product(), 2.3f);
  expectThreadCountIndependent([&] {
    std::vector<float> maxOut(pooled.product()), maxGrad(n);
    std::vector<float> avgOut(pooled.product()), avgGrad(n);
    std::vector<float> nearest(up.product()), nearestGrad(n);
    std::vector<float> bilinear(up.product()), bilinearGrad(n);
    maxPool(ConstTensor(x.data(), in), Tensor(maxOut.data(), pooled), {3, 3},
              {2, 2}, {1, 1, 1, 1}, {1, 1}, false);
    maxPoolBackward(ConstTensor(dPooled.data(), pooled),
                      ConstTensor(x.data(), in), Tensor(maxGrad.data(), in),
                      {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false);
    avgPool(ConstTensor(x.data(), in), Tensor(avgOut.data(), pooled), {3, 3},
              {2, 2}, {1, 1, 1, 1}, false, false);
    avgPoolBackward(ConstTensor(dPooled.data(), pooled),
                      Tensor(avgGrad.data(), in), {3, 3}, {2, 2},
                      {1, 1, 1, 1}, false, false);
    resize(ConstTensor(x.data(), in), Tensor(nearest.data(), up),
           ResizeMode::Nearest, CoordinateMode::Asymmetric, NearestMode::Floor,
           {2.0, 2.0});
    resizeBackward(ConstTensor(dUp.data(), up), Tensor(nearestGrad.data(), in),
                   ResizeMode::Nearest, CoordinateMode::Asymmetric,
                   NearestMode::Floor, {2.0, 2.0});
    resize(ConstTensor(x.data(), in), Tensor(bilinear.data(), up),
           ResizeMode::Bilinear, CoordinateMode::HalfPixel,
           NearestMode::Floor, {2.0, 2.0});
    resizeBackward(ConstTensor(dUp.data(), up), Tensor(bilinearGrad.data(), in),
                   ResizeMode::Bilinear, CoordinateMode::HalfPixel,
                   NearestMode::Floor, {2.0, 2.0});
    return Buffers{maxOut,  maxGrad,     avgOut,   avgGrad,
                   nearest, nearestGrad, bilinear, bilinearGrad};
  });
}

TEST(RuntimeThreading, GatherAndItsGradient) {
  // A table of 600 rows x 64 read 3 times per row at a shuffled index map
  // (past kMinParallelWork): the gradient's per-row sums have index order.
  Dims table = {600, 64}, gathered = {45, 40, 64};
  std::vector<int64_t> indices(1800);
  for (int64_t k = 0; k < 1800; ++k)
    indices[k] = (k * 7919) % 600;
  std::vector<float> x = wave(table.product(), 0.6f);
  std::vector<float> dy = wave(gathered.product(), 1.3f);
  expectThreadCountIndependent([&] {
    std::vector<float> y(gathered.product()), dx(table.product());
    gather(ConstTensor(x.data(), table), Tensor(y.data(), gathered), 0,
           indices.data(), 1800);
    gatherBackward(ConstTensor(dy.data(), gathered), Tensor(dx.data(), table),
                   0, indices.data(), 1800);
    return Buffers{y, dx};
  });
}

TEST(RuntimeThreading, ElementwiseAndOptimizerUpdates) {
  Dims shape = {3, 5, 71, 73};
  int64_t n = shape.product();
  std::vector<float> a = wave(n, 0.2f), b = wave(n, 0.8f);
  expectThreadCountIndependent([&] {
    std::vector<float> sum(n), relued(n), dRelu(n);
    std::vector<float> param = a, momentum = b, adamParam = a;
    std::vector<float> expAvg = b, expAvgSq(n, 0.01f);
    add(ConstTensor(a.data(), shape), ConstTensor(b.data(), shape),
        Tensor(sum.data(), shape));
    relu(ConstTensor(a.data(), shape), Tensor(relued.data(), shape));
    reluBackward(ConstTensor(b.data(), shape), ConstTensor(relued.data(), shape),
                 Tensor(dRelu.data(), shape));
    sgdUpdate(ConstTensor(param.data(), shape), ConstTensor(b.data(), shape),
              ConstTensor(momentum.data(), shape), 3,
              Tensor(param.data(), shape), Tensor(momentum.data(), shape),
              0.01, 0.9, 0.1, 1e-4, false);
    adamUpdate(ConstTensor(adamParam.data(), shape),
               ConstTensor(b.data(), shape), ConstTensor(expAvg.data(), shape),
               ConstTensor(expAvgSq.data(), shape), 2,
               Tensor(adamParam.data(), shape), Tensor(expAvg.data(), shape),
               Tensor(expAvgSq.data(), shape), 1e-3, 0.9, 0.999, 1e-8, 1e-2,
               true);
    return Buffers{sum, relued, dRelu, param, momentum, adamParam, expAvg,
                   expAvgSq};
  });
}

} // namespace
