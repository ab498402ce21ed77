//===- ConvWorkspaceTypeTest.cpp - Convolution workspaces by element type -===//
//
// The CPU runtime's workspace queries size a convolution for its tensors'
// element type (tg-amp): oneDNN's primitive for that type where it has
// one, else the f32 primitive's workspace plus f32 copies of the operands
// and the result (f16 in oneDNN 2.6). The plan reserves exactly this.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include <gtest/gtest.h>

using namespace memopt::rt;

namespace {

size_t align(size_t bytes) { return (bytes + 63) / 64 * 64; }

// A 3x3 convolution of a 64-channel 128x128 feature map.
const Dims kInput{1, 64, 128, 128}, kWeight{64, 64, 3, 3},
    kOutput{1, 64, 128, 128};

size_t forward(ElementType type, bool bias = false) {
  return convWorkspaceBytes(kInput, kWeight, bias, kOutput, {1, 1},
                              {1, 1, 1, 1}, {1, 1}, 1, type);
}

} // namespace

TEST(ConvWorkspaceTypeTest, F32IsTheDefault) {
  EXPECT_EQ(forward(ElementType::F32),
            convWorkspaceBytes(kInput, kWeight, false, kOutput, {1, 1},
                                 {1, 1, 1, 1}, {1, 1}, 1));
}

TEST(ConvWorkspaceTypeTest, F16ConvertsThroughF32CopiesAtLeast) {
  // Without a native f16 kernel the workspace holds the f32 primitive's
  // and one f32 copy of each tensor (a native one would be smaller).
  size_t copies = align(kInput.product() * 4) + align(kWeight.product() * 4) +
                  align(kOutput.product() * 4);
  size_t f16 = forward(ElementType::F16);
  EXPECT_TRUE(f16 == align(forward(ElementType::F32)) + copies ||
              f16 < forward(ElementType::F32));
  // With a bias, its copy too.
  size_t f16Bias = forward(ElementType::F16, /*bias=*/true);
  EXPECT_TRUE(f16Bias == align(forward(ElementType::F32, true)) + copies +
                             align(64 * 4) ||
              f16Bias < forward(ElementType::F32, true));
}

TEST(ConvWorkspaceTypeTest, EveryDirectionAnswersForBf16) {
  // The data and filter gradients and the transposed convolutions take the
  // type too (a CPU without bf16 kernels gets the conversion's size).
  EXPECT_GT(convBackwardDataWorkspaceBytes(kOutput, kWeight, kInput, {1, 1},
                                             {1, 1, 1, 1}, {1, 1}, 1,
                                             ElementType::BF16),
            0u);
  EXPECT_GT(convBackwardFilterWorkspaceBytes(kOutput, kInput, kWeight,
                                               {1, 1}, {1, 1, 1, 1}, {1, 1},
                                               1, ElementType::BF16),
            0u);
  Dims upInput{1, 64, 64, 64}, upWeight{64, 32, 2, 2}, upOutput{1, 32, 128, 128};
  EXPECT_GT(convTransposeWorkspaceBytes(upInput, upWeight, false, upOutput,
                                          {2, 2}, {0, 0, 0, 0}, {1, 1},
                                          {0, 0}, 1, ElementType::BF16),
            0u);
  EXPECT_GT(convTransposeBackwardFilterWorkspaceBytes(
                upOutput, upInput, upWeight, {2, 2}, {0, 0, 0, 0}, {1, 1},
                {0, 0}, 1, ElementType::BF16),
            0u);
}
