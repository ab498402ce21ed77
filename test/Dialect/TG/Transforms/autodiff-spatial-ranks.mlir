// RUN: memopt-opt %s -tg-autodiff -split-input-file | FileCheck %s

// The gradients of 3-D and 1-D convolutions: the same ops as in 2-D
// (autodiff-rules.mlir) at the input's rank, with the forward op's per-axis
// attributes, and the bias gradient summed over N and every spatial axis.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x8x8x8xf32> {tg.input = "x"}, %[[T:[^:]*]]: tensor<1x4x4x4x4xf32> {tg.target = "target"}, %[[P:[^:]*]]: tensor<1x2x8x8x8xf32> {tg.param = "p"}, %[[W:[^:]*]]: tensor<4x2x3x3x3xf32> {tg.param = "conv.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "conv.bias"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DX:.*]] = tg.conv_backward_data %[[DY]], %[[W]] {dilations = array<i64: 1, 1, 1>, input_shape = array<i64: 1, 2, 8, 8, 8>, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<1x4x4x4x4xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x8x8x8xf32>
// CHECK-NEXT: %[[DW:.*]] = tg.conv_backward_filter %[[DY]], %{{.*}} {dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 2, 2, 2>, weight_shape = array<i64: 4, 2, 3, 3, 3>} : (tensor<1x4x4x4x4xf32>, tensor<1x2x8x8x8xf32>) -> tensor<4x2x3x3x3xf32>
// CHECK-NEXT: %[[DB:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2, 3, 4>, keepdims = false} : (tensor<1x4x4x4x4xf32>) -> tensor<4xf32>
func.func @main(%x: tensor<1x2x8x8x8xf32> {tg.input = "x"},
                %p: tensor<1x2x8x8x8xf32> {tg.param = "p"},
                %w: tensor<4x2x3x3x3xf32> {tg.param = "conv.weight"},
                %b: tensor<4xf32> {tg.param = "conv.bias"})
    -> (tensor<1x4x4x4x4xf32> {tg.output = "y"}) {
  %0 = tg.mul %x, %p
      : (tensor<1x2x8x8x8xf32>, tensor<1x2x8x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  %1 = tg.conv %0, %w, %b {strides = array<i64: 2, 2, 2>,
                             pads = array<i64: 1, 1, 1, 1, 1, 1>,
                             dilations = array<i64: 1, 1, 1>}
      : (tensor<1x2x8x8x8xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>)
      -> tensor<1x4x4x4x4xf32>
  return %1 : tensor<1x4x4x4x4xf32>
}

// -----

// conv_transpose in 1-D: the data gradient is a 1-D conv.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x4x5xf32> {tg.param = "p"}, %[[W:[^:]*]]: tensor<4x3x2xf32> {tg.param = "up.weight"}, %[[B:[^:]*]]: tensor<3xf32> {tg.param = "up.bias"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.conv %[[DY]], %[[W]] {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x3x10xf32>, tensor<4x3x2xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT: %[[DW:.*]] = tg.conv_transpose_backward_filter %[[DY]], %{{.*}} {dilations = array<i64: 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 2>, weight_shape = array<i64: 4, 3, 2>} : (tensor<2x3x10xf32>, tensor<2x4x5xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: %[[DB:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x10xf32>) -> tensor<3xf32>
func.func @main(%x: tensor<2x4x5xf32> {tg.input = "x"},
                %p: tensor<2x4x5xf32> {tg.param = "p"},
                %w: tensor<4x3x2xf32> {tg.param = "up.weight"},
                %b: tensor<3xf32> {tg.param = "up.bias"})
    -> (tensor<2x3x10xf32> {tg.output = "y"}) {
  %0 = tg.mul %x, %p : (tensor<2x4x5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %1 = tg.conv_transpose %0, %w, %b {strides = array<i64: 2>,
                                       pads = array<i64: 0, 0>,
                                       dilations = array<i64: 1>,
                                       output_padding = array<i64: 0>}
      : (tensor<2x4x5xf32>, tensor<4x3x2xf32>, tensor<3xf32>) -> tensor<2x3x10xf32>
  return %1 : tensor<2x3x10xf32>
}
