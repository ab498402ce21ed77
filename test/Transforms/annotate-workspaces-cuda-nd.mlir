// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s

// The CUDA backend convolves 1-D, 2-D and 3-D tensors (cuDNN's N-d
// descriptors; a 1-D convolution as a 2-D one with a unit axis): every
// direction gets the workspace of the CUDA policy, the largest tensor of
// the convolution in its element type, at least 4 MiB.

// A 3-D convolution at 64^3 (the 2x32x64x64x64 output: 64 MiB), its
// transposed convolution (the 2x32x64x64x64 output of the upsampling) and
// the small ones at the minimum.
// CHECK-LABEL: func.func @volumes
// CHECK: tg.conv {{.*}}memopt.workspace_bytes = 67108864 : i64{{.*}} -> tensor<2x32x64x64x64xf32>
// CHECK: tg.conv_transpose {{.*}}memopt.workspace_bytes = 67108864 : i64{{.*}} -> tensor<2x32x64x64x64xf32>
// CHECK: tg.conv {{.*}}memopt.workspace_bytes = 4194304 : i64{{.*}} -> tensor<2x4x16x16x16xf32>
func.func @volumes(%x: tensor<2x16x64x64x64xf32>, %w: tensor<32x16x3x3x3xf32>,
                   %u: tensor<2x64x32x32x32xf32>, %wt: tensor<64x32x2x2x2xf32>,
                   %s: tensor<2x1x16x16x16xf32>, %ws: tensor<4x1x3x3x3xf32>)
    -> (tensor<2x32x64x64x64xf32>, tensor<2x32x64x64x64xf32>, tensor<2x4x16x16x16xf32>) {
  %y = tg.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x16x64x64x64xf32>, tensor<32x16x3x3x3xf32>) -> tensor<2x32x64x64x64xf32>
  %up = tg.conv_transpose %u, %wt {strides = array<i64: 2, 2, 2>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, output_padding = array<i64: 0, 0, 0>} : (tensor<2x64x32x32x32xf32>, tensor<64x32x2x2x2xf32>) -> tensor<2x32x64x64x64xf32>
  %z = tg.conv %s, %ws {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x1x16x16x16xf32>, tensor<4x1x3x3x3xf32>) -> tensor<2x4x16x16x16xf32>
  return %y, %up, %z : tensor<2x32x64x64x64xf32>, tensor<2x32x64x64x64xf32>, tensor<2x4x16x16x16xf32>
}

// -----

// Mixed precision: bf16 volumes at 2 bytes an element (32 MiB); a 1-D
// convolution of 8x64x65536 (128 MiB), strided and dilated.
// CHECK-LABEL: func.func @typed_and_signals
// CHECK: tg.conv {{.*}}memopt.workspace_bytes = 33554432 : i64{{.*}} -> tensor<2x32x64x64x64xbf16>
// CHECK: tg.conv {{.*}}memopt.workspace_bytes = 134217728 : i64{{.*}} -> tensor<8x64x32768xf32>
func.func @typed_and_signals(%x: tensor<2x16x64x64x64xbf16>, %w: tensor<32x16x3x3x3xbf16>,
                             %s: tensor<8x64x65536xf32>, %ws: tensor<64x64x3xf32>)
    -> (tensor<2x32x64x64x64xbf16>, tensor<8x64x32768xf32>) {
  %y = tg.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x16x64x64x64xbf16>, tensor<32x16x3x3x3xbf16>) -> tensor<2x32x64x64x64xbf16>
  %z = tg.conv %s, %ws {strides = array<i64: 2>, pads = array<i64: 2, 2>, dilations = array<i64: 2>} : (tensor<8x64x65536xf32>, tensor<64x64x3xf32>) -> tensor<8x64x32768xf32>
  return %y, %z : tensor<2x32x64x64x64xbf16>, tensor<8x64x32768xf32>
}
