//===- LeanFilterGradientTest.cpp - Filter gradients in a lean workspace ---===//
//
// Under --workspaces=lean tg-remat may give a filter gradient its lean
// workspace (memopt/Runtime/CPU/ConvWorkspace.h): the plan then hands the
// kernel less than its default workspace, and the kernel computes the
// gradient in pieces that fit, groups of output channels for a deep layer
// on a small image, bands of rows for a top layer. The pieces stay inside
// the lean workspace, repeat bit for bit and agree with the whole problem
// within f32 rounding (they sum in another order).
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CPU/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/StepSupport.h"

#include "KernelTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace memopt::rt;

namespace {

struct Case {
  const char *name;
  Dims input, weight;
  Dims strides, pads, dilations;
};

Dims outputShape(const Case &c) {
  int axes = c.input.size - 2;
  Dims output{c.input[0], c.weight[0]};
  for (int i = 0; i < axes; ++i) {
    int64_t span = c.dilations[i] * (c.weight[2 + i] - 1) + 1;
    output[output.size++] =
        (c.input[2 + i] + c.pads[i] + c.pads[axes + i] - span) / c.strides[i] +
        1;
  }
  return output;
}

std::vector<float> noise(int64_t count, uint32_t seed) {
  std::vector<float> v(count);
  for (float &e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = static_cast<float>(seed >> 8) / float(1 << 24) - 0.5f;
  }
  return v;
}

/// The filter gradient of `c` in a workspace of `bytes` that the plan
/// says is `bytes` long, followed by a guard that must stay untouched.
std::vector<float> filterGradient(const Case &c, const std::vector<float> &x,
                                  const std::vector<float> &dy, size_t bytes,
                                  bool &guardIntact) {
  constexpr size_t kGuard = 4096;
  std::vector<char> workspace(bytes + kGuard, '\x5a');
  std::vector<float> dw(c.weight.product(), 1.0f);
  Dims output = outputShape(c);
  arenaWorkspace(workspace.data(), 0, bytes);
  convBackwardFilter(ConstTensor(dy.data(), output),
                     ConstTensor(x.data(), c.input),
                     Tensor(dw.data(), c.weight), c.strides, c.pads,
                     c.dilations, 1, workspace.data());
  guardIntact = std::all_of(workspace.begin() + bytes, workspace.end(),
                            [](char b) { return b == '\x5a'; });
  return dw;
}

const Case kCases[] = {
    // A deep layer on a small image: oneDNN's scratchpad holds per-thread
    // copies of the weight gradient; groups of output channels shrink it.
    {"deep", {2, 256, 4, 4}, {256, 256, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
    {"deep-odd", {1, 96, 3, 5}, {200, 96, 3, 3}, {1, 1}, {1, 1, 1, 1},
     {1, 1}},
    // A top layer: blocked copies of the input and the output gradient;
    // bands of rows shrink them.
    {"top", {2, 16, 64, 48}, {16, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
    {"top-strided", {1, 16, 65, 40}, {32, 16, 3, 3}, {2, 2}, {1, 0, 1, 0},
     {1, 1}},
    {"top-3d", {1, 8, 24, 16, 16}, {8, 8, 3, 3, 3}, {1, 1, 1},
     {1, 1, 1, 1, 1, 1}, {1, 1, 1}},
};

} // namespace

TEST(LeanFilterGradientTest, PiecesFitTheLeanWorkspaceAndMatchTheWhole) {
  size_t shrunk = 0;
  for (const Case &c : kCases) {
    Dims output = outputShape(c);
    std::vector<float> x = noise(c.input.product(), 3),
                       dy = noise(output.product(), 5);
    size_t full = convBackwardFilterWorkspaceBytes(
        output, c.input, c.weight, c.strides, c.pads, c.dilations, 1);
    size_t lean = convBackwardFilterLeanWorkspaceBytes(
        output, c.input, c.weight, c.strides, c.pads, c.dilations, 1);
    EXPECT_LE(lean, full) << c.name;
    shrunk += lean < full;
    bool intact = false;
    std::vector<float> want = filterGradient(c, x, dy, full, intact);
    EXPECT_TRUE(intact) << c.name;
    std::vector<float> got = filterGradient(c, x, dy, lean, intact);
    EXPECT_TRUE(intact) << c.name << ": wrote past the lean workspace";
    EXPECT_EQ(got, filterGradient(c, x, dy, lean, intact)) << c.name;
    // Sums of a few thousand products in another order.
    EXPECT_LE(test_support::relativeError(got, want), 1e-5) << c.name;
  }
  // Whatever this CPU's oneDNN picks, the top layers' blocked copies
  // shrink with their bands.
  EXPECT_GE(shrunk, 2u);
}

TEST(LeanFilterGradientTest, LowPrecisionPiecesAccumulateInF32) {
  // bf16 and f16 gradients are summed over the pieces in f32 and rounded
  // once: within one rounding of the f32 kernel on the same values.
  const Case &c = kCases[0];
  Dims output = outputShape(c);
  std::vector<float> x = noise(c.input.product(), 7),
                     dy = noise(output.product(), 9);
  for (ElementType type : {ElementType::BF16, ElementType::F16}) {
    std::vector<uint16_t> lx(x.size()), ldy(dy.size()),
        lw(c.weight.product());
    cast(ConstTensor(x.data(), c.input),
         Tensor(reinterpret_cast<float *>(lx.data()), c.input, type));
    cast(ConstTensor(dy.data(), output),
         Tensor(reinterpret_cast<float *>(ldy.data()), output, type));
    std::vector<float> rx(x.size()), rdy(dy.size());
    cast(ConstTensor(reinterpret_cast<const float *>(lx.data()), c.input,
                     type),
         Tensor(rx.data(), c.input));
    cast(ConstTensor(reinterpret_cast<const float *>(ldy.data()), output,
                     type),
         Tensor(rdy.data(), output));
    bool intact = false;
    size_t full32 = convBackwardFilterWorkspaceBytes(
        output, c.input, c.weight, c.strides, c.pads, c.dilations, 1);
    std::vector<float> want = filterGradient(c, rx, rdy, full32, intact);
    size_t lean = convBackwardFilterLeanWorkspaceBytes(
        output, c.input, c.weight, c.strides, c.pads, c.dilations, 1, type);
    EXPECT_LE(lean, convBackwardFilterWorkspaceBytes(
                        output, c.input, c.weight, c.strides, c.pads,
                        c.dilations, 1, type));
    constexpr size_t kGuard = 4096;
    std::vector<char> workspace(lean + kGuard, '\x5a');
    arenaWorkspace(workspace.data(), 0, lean);
    convBackwardFilter(
        ConstTensor(reinterpret_cast<const float *>(ldy.data()), output,
                    type),
        ConstTensor(reinterpret_cast<const float *>(lx.data()), c.input,
                    type),
        Tensor(reinterpret_cast<float *>(lw.data()), c.weight, type),
        c.strides, c.pads, c.dilations, 1, workspace.data());
    EXPECT_TRUE(std::all_of(workspace.begin() + lean, workspace.end(),
                            [](char b) { return b == '\x5a'; }));
    std::vector<float> got(lw.size());
    cast(ConstTensor(reinterpret_cast<const float *>(lw.data()), c.weight,
                     type),
         Tensor(got.data(), c.weight));
    double ulp = type == ElementType::BF16 ? 0x1p-8 : 0x1p-11;
    EXPECT_LE(test_support::relativeError(got, want), ulp) << int(type);
  }
}
