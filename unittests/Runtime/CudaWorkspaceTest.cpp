//===- CudaWorkspaceTest.cpp - The CUDA backend's workspace policy --------===//
//
// The arena plan and the CUDA runtime size convolution workspaces with the
// same header-only function; these tests pin its rule, which needs no GPU,
// for 1-D, 2-D and 3-D convolutions.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CUDA/ConvWorkspace.h"

#include <gtest/gtest.h>

using namespace memopt::rt;

TEST(CudaWorkspaceTest, SmallConvolutionsGetTheMinimum) {
  EXPECT_EQ(cuda::convWorkspaceBytes(Dims{2, 3, 8, 8}, Dims{4, 3, 3, 3},
                                     Dims{2, 4, 4, 4}),
            cuda::kMinConvWorkspaceBytes);
  EXPECT_EQ(cuda::kMinConvWorkspaceBytes, size_t(4) << 20);
}

TEST(CudaWorkspaceTest, LargeConvolutionsGetTheirLargestTensor) {
  // ResNet-34 U-Net decoder at 512x512, batch 4: the 4x16x512x512 output.
  Dims input{4, 32, 256, 256}, weight{16, 32, 3, 3}, output{4, 16, 512, 512};
  size_t bytes = size_t(4) * 16 * 512 * 512 * sizeof(float);
  EXPECT_EQ(cuda::convWorkspaceBytes(input, weight, output), bytes);
  // A weight can be the largest tensor (a 1x1 feature map, wide layers).
  EXPECT_EQ(cuda::convWorkspaceBytes(Dims{1, 2048, 1, 1},
                                     Dims{2048, 2048, 1, 1},
                                     Dims{1, 2048, 1, 1}),
            size_t(2048) * 2048 * sizeof(float));
}

TEST(CudaWorkspaceTest, EveryDirectionOfOneConvolutionGetsTheSameSize) {
  // Forward (x, w, y), the data gradient (dx, w, dy) and the filter
  // gradient (x, dw, dy) of one convolution share the policy's size.
  Dims x{2, 64, 128, 128}, w{128, 64, 3, 3}, y{2, 128, 64, 64};
  size_t forward = cuda::convWorkspaceBytes(x, w, y);
  EXPECT_EQ(cuda::convWorkspaceBytes(y, w, x), forward);
  EXPECT_EQ(cuda::convWorkspaceBytes(w, x, y), forward);
}

TEST(CudaWorkspaceTest, HalfAndBf16TensorsCountAtTwoBytes) {
  // Mixed precision (tg-amp): cuDNN's algorithms work in the tensors' type.
  Dims input{4, 32, 256, 256}, weight{16, 32, 3, 3}, output{4, 16, 512, 512};
  EXPECT_EQ(cuda::convWorkspaceBytes(input, weight, output, 2),
            size_t(4) * 16 * 512 * 512 * 2);
  EXPECT_EQ(cuda::convWorkspaceBytes(Dims{2, 3, 8, 8}, Dims{4, 3, 3, 3},
                                     Dims{2, 4, 4, 4}, 2),
            cuda::kMinConvWorkspaceBytes);
}

TEST(CudaWorkspaceTest, LeanWorkspacesAreAnEighthAtLeastTheMinimum) {
  // tg-remat lean-workspaces: an eighth of the full workspace ...
  size_t full = size_t(4) * 16 * 512 * 512 * sizeof(float);
  EXPECT_EQ(cuda::convLeanWorkspaceBytes(full), full / 8);
  // ... never below the minimum the runtime slices within ...
  EXPECT_EQ(cuda::convLeanWorkspaceBytes(size_t(16) << 20),
            cuda::kMinConvWorkspaceBytes);
  // ... and never above the full one: at the minimum there is no saving.
  EXPECT_EQ(cuda::convLeanWorkspaceBytes(cuda::kMinConvWorkspaceBytes),
            cuda::kMinConvWorkspaceBytes);
}

TEST(CudaWorkspaceTest, VolumesAndSignalsGetTheirLargestTensorToo) {
  // The first decoder convolution of a 3-D U-Net at 64^3, batch 2: the
  // 2x32x64x64x64 output (64 MiB in f32, 32 MiB in bf16).
  Dims input{2, 64, 64, 64, 64}, weight{32, 64, 3, 3, 3},
      output{2, 32, 64, 64, 64};
  EXPECT_EQ(cuda::convWorkspaceBytes(input, weight, output),
            size_t(2) * 64 * 64 * 64 * 64 * sizeof(float));
  EXPECT_EQ(cuda::convWorkspaceBytes(input, weight, output, 2),
            size_t(2) * 64 * 64 * 64 * 64 * 2);
  // Its lean workspace is an eighth.
  EXPECT_EQ(cuda::convLeanWorkspaceBytes(
                cuda::convWorkspaceBytes(input, weight, output)),
            size_t(2) * 64 * 64 * 64 * 64 * sizeof(float) / 8);
  // A small 3-D or 1-D convolution gets the minimum.
  EXPECT_EQ(cuda::convWorkspaceBytes(Dims{2, 1, 16, 16, 16},
                                     Dims{4, 1, 3, 3, 3},
                                     Dims{2, 4, 16, 16, 16}),
            cuda::kMinConvWorkspaceBytes);
  EXPECT_EQ(
      cuda::convWorkspaceBytes(Dims{2, 1, 256}, Dims{4, 1, 3}, Dims{2, 4, 256}),
      cuda::kMinConvWorkspaceBytes);
  // A 1-D one large enough: its largest tensor, as the unit axis
  // the runtime adds (ConvGeometry.h) leaves the element counts alone.
  EXPECT_EQ(cuda::convWorkspaceBytes(Dims{8, 64, 65536}, Dims{64, 64, 3},
                                     Dims{8, 64, 65536}),
            size_t(8) * 64 * 65536 * sizeof(float));
}
