//===- GatherKernelTest.cpp - gather and its gradient on the CPU runtime --===//
//
// tg.gather copies rows at constant indices; its gradient scatter-adds the
// output gradient back, computed per gradient element over the index
// positions that read it in ascending order (the CUDA kernel's order too):
// repeated indices sum, unread rows are zero, and bf16 gradients are summed
// in f32 and rounded once.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

using namespace memopt::rt;

namespace {

std::vector<float> wave(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i) * 0.61f + 0.3f) * scale;
  return v;
}

/// The scatter-add by definition: dx[o, indices[k], i] += dy[o, k, i], in
/// ascending k, in f32.
std::vector<float> scatterAdd(const std::vector<float> &dy, int64_t outer,
                              int64_t extent, int64_t inner,
                              const std::vector<int64_t> &indices) {
  int64_t count = indices.size();
  std::vector<float> dx(static_cast<size_t>(outer * extent * inner), 0.0f);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k)
      for (int64_t i = 0; i < inner; ++i)
        dx[(o * extent + indices[k]) * inner + i] +=
            dy[(o * count + k) * inner + i];
  return dx;
}

} // namespace

TEST(GatherKernelTest, GatherAlongAnInnerAxisByHand) {
  // x[o, j, i] = 100 o + 10 j + i, 2 x 3 x 2, gathered along axis 1 at a
  // 2 x 2 index tensor with repeats: output 2 x 2 x 2 x 2.
  std::vector<float> x(12);
  for (int o = 0; o < 2; ++o)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        x[(o * 3 + j) * 2 + i] = 100.0f * o + 10.0f * j + i;
  std::vector<int64_t> indices = {2, 0, 2, 2};
  std::vector<float> y(16, -1.0f);
  gather(ConstTensor(x.data(), {2, 3, 2}), Tensor(y.data(), {2, 2, 2, 2}), 1,
         indices.data(), 4);
  EXPECT_EQ(y, (std::vector<float>{20, 21, 0, 1, 20, 21, 20, 21, 120, 121, 100,
                                   101, 120, 121, 120, 121}));
}

TEST(GatherKernelTest, BackwardSumsRepeatedIndicesAndZeroesTheRest) {
  // Axis 0 of a 4 x 1 table read at [3, 1, 3, 3]: row 3 sums three
  // gradients, row 1 gets one, rows 0 and 2 none.
  std::vector<int64_t> indices = {3, 1, 3, 3};
  std::vector<float> dy = {1, 2, 4, 8}, dx(4, -1.0f);
  gatherBackward(ConstTensor(dy.data(), {4, 1}), Tensor(dx.data(), {4, 1}), 0,
                 indices.data(), 4);
  EXPECT_EQ(dx, (std::vector<float>{0, 2, 0, 13}));
}

TEST(GatherKernelTest, BackwardIsTheScatterAddInIndexOrder) {
  // A Swin relative-position-bias table (9 rows x 2 heads) read at a 4 x 4
  // index map, with an outer axis too: bit-equal to the scatter-add in
  // ascending index order.
  std::vector<int64_t> indices = {4, 3, 1, 0, 5, 4, 2, 1,
                                  7, 6, 4, 3, 8, 7, 5, 4};
  for (auto [outer, extent, inner] :
       {std::tuple<int64_t, int64_t, int64_t>{1, 9, 2}, {3, 9, 5}}) {
    int64_t count = indices.size();
    std::vector<float> dy = wave(outer * count * inner, 3.0f);
    std::vector<float> dx(static_cast<size_t>(outer * extent * inner), 7.0f);
    gatherBackward(ConstTensor(dy.data(), {outer, 4, 4, inner}),
                   Tensor(dx.data(), {outer, extent, inner}), 1, indices.data(),
                   count);
    std::vector<float> want = scatterAdd(dy, outer, extent, inner, indices);
    EXPECT_EQ(std::memcmp(dx.data(), want.data(), dx.size() * sizeof(float)), 0)
        << "outer " << outer << ", inner " << inner;
  }
}

TEST(GatherKernelTest, BackwardIsTheAdjointOfGather) {
  // <gather(x), dy> = <x, gather_backward(dy)>.
  std::vector<int64_t> indices = {0, 4, 4, 2, 1, 4};
  std::vector<float> x = wave(3 * 5 * 2, 1.0f), y(3 * 6 * 2);
  std::vector<float> dy = wave(3 * 6 * 2, 0.5f), dx(3 * 5 * 2);
  gather(ConstTensor(x.data(), {3, 5, 2}), Tensor(y.data(), {3, 6, 2}), 1,
         indices.data(), 6);
  gatherBackward(ConstTensor(dy.data(), {3, 6, 2}),
                 Tensor(dx.data(), {3, 5, 2}), 1, indices.data(), 6);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < y.size(); ++i)
    lhs += static_cast<double>(y[i]) * dy[i];
  for (size_t i = 0; i < x.size(); ++i)
    rhs += static_cast<double>(x[i]) * dx[i];
  EXPECT_NEAR(lhs, rhs, 1e-5);
}

TEST(GatherKernelTest, Bf16GatherCopiesAndTheGradientSumsInF32) {
  // bf16 1.0 and 2^-9 (bits 0x3f80 and 0x3b00).
  std::vector<uint16_t> x = {0x3f80, 0x3b00, 0x4000}, y(4);
  std::vector<int64_t> indices = {1, 1, 0, 2};
  gather(ConstTensor(reinterpret_cast<const float *>(x.data()), {3},
                     ElementType::BF16),
         Tensor(reinterpret_cast<float *>(y.data()), {4}, ElementType::BF16), 0,
         indices.data(), 4);
  EXPECT_EQ(y, (std::vector<uint16_t>{0x3b00, 0x3b00, 0x3f80, 0x4000}));
  // 1 + 4 x 2^-9 = 1 + 2^-7, a bf16 value; adding 2^-9 to 1 in bf16 one
  // term at a time would round back to 1 every time.
  std::vector<uint16_t> dy = {0x3f80, 0x3b00, 0x3b00, 0x3b00, 0x3b00},
                        dx(2, 0xffff);
  std::vector<int64_t> same = {0, 0, 0, 0, 0};
  gatherBackward(
      ConstTensor(reinterpret_cast<const float *>(dy.data()), {5},
                  ElementType::BF16),
      Tensor(reinterpret_cast<float *>(dx.data()), {2}, ElementType::BF16), 0,
      same.data(), 5);
  EXPECT_EQ(dx, (std::vector<uint16_t>{0x3f81, 0x0000}));
}

TEST(GatherKernelDeathTest, BadIndexOrShapeAbortsNamingTheKernel) {
  std::vector<float> x(6), y(4);
  std::vector<int64_t> outside = {0, 3}, inside = {0, 2};
  EXPECT_DEATH(gather(ConstTensor(x.data(), {2, 3}), Tensor(y.data(), {2, 2}),
                      1, outside.data(), 2),
               "memopt runtime: gather: an index is outside the axis");
  EXPECT_DEATH(gather(ConstTensor(x.data(), {2, 3}), Tensor(y.data(), Dims()),
                      1, inside.data(), 2),
               "memopt runtime: gather: the output's rank does not fit");
  EXPECT_DEATH(gatherBackward(ConstTensor(y.data(), {2, 2}),
                              Tensor(x.data(), {3, 2}), 1, inside.data(), 2),
               "memopt runtime: gather_backward: the output differs from the "
               "input before the axis");
}
