// RUN: memopt-opt %s | FileCheck %s

// Result types of the backward, loss and optimizer ops. Each gradient op
// checks its grad_output against the output shape of its forward op, so each
// op below parses only with the shapes that the forward op relates.

// A strided convolution maps inputs of height 8 and 9 (width 9 and 10) to the
// same output: input_shape picks one.
// Forward H: (9 + 1 + 2 - 2 * (3 - 1) - 1) / 2 + 1 = 4 = (8 + 3 - 5) / 2 + 1;
// W: (10 + 0 + 1 - 3) / 3 + 1 = 3 = (9 + 1 - 3) / 3 + 1.
// CHECK-LABEL: func.func @conv_backward_strided
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x4x3xf32>, %[[X:.*]]: tensor<1x4x9x10xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>)
func.func @conv_backward_strided(%dy: tensor<1x8x4x3xf32>,
                                   %x: tensor<1x4x9x10xf32>,
                                   %w: tensor<8x2x3x3xf32>)
    -> (tensor<1x4x9x10xf32>, tensor<1x4x8x9xf32>, tensor<8x2x3x3xf32>) {
  // CHECK: %[[DX0:.*]] = tg.conv_backward_data %[[DY]], %[[W]] {{.*}} -> tensor<1x4x9x10xf32>
  %0 = tg.conv_backward_data %dy, %w {strides = array<i64: 2, 3>,
                                        pads = array<i64: 1, 0, 2, 1>,
                                        dilations = array<i64: 2, 1>,
                                        groups = 2 : i64,
                                        input_shape = array<i64: 1, 4, 9, 10>}
      : (tensor<1x8x4x3xf32>, tensor<8x2x3x3xf32>) -> tensor<1x4x9x10xf32>
  // CHECK: %[[DX1:.*]] = tg.conv_backward_data %[[DY]], %[[W]] {{.*}} -> tensor<1x4x8x9xf32>
  %1 = tg.conv_backward_data %dy, %w {strides = array<i64: 2, 3>,
                                        pads = array<i64: 1, 0, 2, 1>,
                                        dilations = array<i64: 2, 1>,
                                        groups = 2 : i64,
                                        input_shape = array<i64: 1, 4, 8, 9>}
      : (tensor<1x8x4x3xf32>, tensor<8x2x3x3xf32>) -> tensor<1x4x8x9xf32>
  // CHECK: %[[DW:.*]] = tg.conv_backward_filter %[[DY]], %[[X]] {{.*}} -> tensor<8x2x3x3xf32>
  %2 = tg.conv_backward_filter %dy, %x {strides = array<i64: 2, 3>,
                                          pads = array<i64: 1, 0, 2, 1>,
                                          dilations = array<i64: 2, 1>,
                                          groups = 2 : i64,
                                          weight_shape = array<i64: 8, 2, 3, 3>}
      : (tensor<1x8x4x3xf32>, tensor<1x4x9x10xf32>) -> tensor<8x2x3x3xf32>
  // CHECK: return %[[DX0]], %[[DX1]], %[[DW]]
  return %0, %1, %2
      : tensor<1x4x9x10xf32>, tensor<1x4x8x9xf32>, tensor<8x2x3x3xf32>
}

// The weight of a grouped transposed convolution is C x O/groups x kH x kW.
// Forward H: (5 - 1) * 2 - 1 - 1 + (3 - 1) + 1 + 1 = 10;
// W: (6 - 1) * 3 - 1 - 1 + (3 - 1) + 2 + 1 = 18.
// CHECK-LABEL: func.func @conv_transpose_backward_filter_groups
// CHECK-SAME: (%[[DY:.*]]: tensor<1x4x10x18xf32>, %[[X:.*]]: tensor<1x4x5x6xf32>)
func.func @conv_transpose_backward_filter_groups(%dy: tensor<1x4x10x18xf32>,
                                                   %x: tensor<1x4x5x6xf32>)
    -> tensor<4x2x3x3xf32> {
  // CHECK: %[[DW:.*]] = tg.conv_transpose_backward_filter %[[DY]], %[[X]] {{.*}} -> tensor<4x2x3x3xf32>
  %0 = tg.conv_transpose_backward_filter %dy, %x {
      strides = array<i64: 2, 3>, pads = array<i64: 1, 1, 1, 1>,
      output_padding = array<i64: 1, 2>, groups = 2 : i64,
      weight_shape = array<i64: 4, 2, 3, 3>}
      : (tensor<1x4x10x18xf32>, tensor<1x4x5x6xf32>) -> tensor<4x2x3x3xf32>
  // CHECK: return %[[DW]]
  return %0 : tensor<4x2x3x3xf32>
}

// Rank-3 input (N x C x L): the per-channel gradients take the type of
// 'scale', the input gradient that of 'input'.
// CHECK-LABEL: func.func @batch_norm_backward_rank3
// CHECK-SAME: (%[[DY:.*]]: tensor<4x3x5xf16>, %[[X:.*]]: tensor<4x3x5xf16>, %[[S:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<3xf32>)
func.func @batch_norm_backward_rank3(%dy: tensor<4x3x5xf16>,
                                     %x: tensor<4x3x5xf16>,
                                     %s: tensor<3xf32>, %m: tensor<3xf32>,
                                     %i: tensor<3xf32>)
    -> (tensor<4x3x5xf16>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = tg.batch_norm_backward %[[DY]], %[[X]], %[[S]], %[[M]], %[[I]] {{.*}} -> (tensor<4x3x5xf16>, tensor<3xf32>, tensor<3xf32>)
  %dx, %ds, %db = tg.batch_norm_backward %dy, %x, %s, %m, %i
      : (tensor<4x3x5xf16>, tensor<4x3x5xf16>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>) -> (tensor<4x3x5xf16>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: return %[[DX]], %[[DS]], %[[DB]]
  return %dx, %ds, %db : tensor<4x3x5xf16>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @pool_backward_ceil_mode
// CHECK-SAME: (%[[DY:.*]]: tensor<1x1x3x3xf32>, %[[X:.*]]: tensor<1x1x5x5xf32>, %[[DZ:.*]]: tensor<1x2x4x4xf32>)
func.func @pool_backward_ceil_mode(%dy: tensor<1x1x3x3xf32>,
                                   %x: tensor<1x1x5x5xf32>,
                                   %dz: tensor<1x2x4x4xf32>)
    -> (tensor<1x1x5x5xf32>, tensor<1x2x6x6xf32>) {
  // (5 - 2) / 2 + 1 rounds up to 3.
  // CHECK: %[[MAX:.*]] = tg.max_pool_backward %[[DY]], %[[X]] {{.*}} -> tensor<1x1x5x5xf32>
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 2, 2>,
                                       strides = array<i64: 2, 2>,
                                       ceil_mode = true}
      : (tensor<1x1x3x3xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  // (6 + 2 - 3) / 2 + 1 rounds up to 4: the last window starts at padded
  // row 6, inside the input.
  // CHECK: %[[AVG:.*]] = tg.avg_pool_backward %[[DZ]] {{.*}} -> tensor<1x2x6x6xf32>
  %1 = tg.avg_pool_backward %dz {kernel = array<i64: 3, 3>,
                                   strides = array<i64: 2, 2>,
                                   pads = array<i64: 1, 1, 1, 1>,
                                   ceil_mode = true,
                                   input_shape = array<i64: 1, 2, 6, 6>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  // CHECK: return %[[MAX]], %[[AVG]]
  return %0, %1 : tensor<1x1x5x5xf32>, tensor<1x2x6x6xf32>
}

// A non-integer scale: 6 x 1.5 = 9, 4 x 1.5 = 6.
// CHECK-LABEL: func.func @resize_backward_fractional
// CHECK-SAME: (%[[DY:.*]]: tensor<2x3x9x6xbf16>)
func.func @resize_backward_fractional(%dy: tensor<2x3x9x6xbf16>)
    -> tensor<2x3x6x4xbf16> {
  // CHECK: %[[DX:.*]] = tg.resize_backward %[[DY]] {{.*}} -> tensor<2x3x6x4xbf16>
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode bilinear>,
                               coordinate_mode = #tg<coordinate_mode pytorch_half_pixel>,
                               scales = array<f64: 1.5, 1.5>,
                               input_shape = array<i64: 2, 3, 6, 4>}
      : (tensor<2x3x9x6xbf16>) -> tensor<2x3x6x4xbf16>
  // CHECK: return %[[DX]]
  return %0 : tensor<2x3x6x4xbf16>
}

// Strided slice of rank 3: ceil(4 / 2) = 2, ceil(7 / 3) = 3, ceil(7 / 4) = 2.
// CHECK-LABEL: func.func @slice_backward_strided
// CHECK-SAME: (%[[DY:.*]]: tensor<2x3x2xf32>)
func.func @slice_backward_strided(%dy: tensor<2x3x2xf32>) -> tensor<5x7x9xf32> {
  // CHECK: %[[DX:.*]] = tg.slice_backward %[[DY]] {{.*}} -> tensor<5x7x9xf32>
  %0 = tg.slice_backward %dy {starts = array<i64: 1, 0, 2>,
                              ends = array<i64: 5, 7, 9>,
                              steps = array<i64: 2, 3, 4>,
                              input_shape = array<i64: 5, 7, 9>}
      : (tensor<2x3x2xf32>) -> tensor<5x7x9xf32>
  // CHECK: return %[[DX]]
  return %0 : tensor<5x7x9xf32>
}

// Edge pad of rank 5 with a width-0 axis: 3 + 1 + 0 = 4, 4 + 0 + 2 = 6.
// CHECK-LABEL: func.func @pad_backward_edge
// CHECK-SAME: (%[[DY:.*]]: tensor<1x2x4x6x5xf32>)
func.func @pad_backward_edge(%dy: tensor<1x2x4x6x5xf32>) -> tensor<1x2x3x4x5xf32> {
  // CHECK: %[[DX:.*]] = tg.pad_backward %[[DY]] {{.*}} -> tensor<1x2x3x4x5xf32>
  %0 = tg.pad_backward %dy {pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 0, 2, 0>,
                            mode = #tg<pad_mode edge>,
                            input_shape = array<i64: 1, 2, 3, 4, 5>}
      : (tensor<1x2x4x6x5xf32>) -> tensor<1x2x3x4x5xf32>
  // CHECK: return %[[DX]]
  return %0 : tensor<1x2x3x4x5xf32>
}

// Broadcasting adds leading axes and repeats axes of size 1.
// CHECK-LABEL: func.func @broadcast_ranks
// CHECK-SAME: (%[[S:.*]]: tensor<f32>, %[[X:.*]]: tensor<4x1xf32>)
func.func @broadcast_ranks(%s: tensor<f32>, %x: tensor<4x1xf32>)
    -> (tensor<3x2xf32>, tensor<2x4x5xf32>) {
  // CHECK: %[[B0:.*]] = tg.broadcast %[[S]] {{.*}} -> tensor<3x2xf32>
  %0 = tg.broadcast %s {shape = array<i64: 3, 2>}
      : (tensor<f32>) -> tensor<3x2xf32>
  // CHECK: %[[B1:.*]] = tg.broadcast %[[X]] {{.*}} -> tensor<2x4x5xf32>
  %1 = tg.broadcast %x {shape = array<i64: 2, 4, 5>}
      : (tensor<4x1xf32>) -> tensor<2x4x5xf32>
  // CHECK: return %[[B0]], %[[B1]]
  return %0, %1 : tensor<3x2xf32>, tensor<2x4x5xf32>
}

// A loss is a rank-0 tensor of the prediction's element type; its gradient
// has the prediction's type.
// CHECK-LABEL: func.func @loss_types
// CHECK-SAME: (%[[P:.*]]: tensor<2x1x3x5xbf16>, %[[T:.*]]: tensor<2x1x3x5xbf16>)
func.func @loss_types(%p: tensor<2x1x3x5xbf16>, %t: tensor<2x1x3x5xbf16>)
    -> tensor<2x1x3x5xbf16> {
  // CHECK: %[[L:.*]] = tg.bce_loss %[[P]], %[[T]] {{.*}} -> tensor<bf16>
  %0 = tg.bce_loss %p, %t
      : (tensor<2x1x3x5xbf16>, tensor<2x1x3x5xbf16>) -> tensor<bf16>
  // CHECK: %[[G:.*]] = tg.bce_loss_backward %[[L]], %[[P]], %[[T]] {{.*}} -> tensor<2x1x3x5xbf16>
  %1 = tg.bce_loss_backward %0, %p, %t
      : (tensor<bf16>, tensor<2x1x3x5xbf16>, tensor<2x1x3x5xbf16>)
      -> tensor<2x1x3x5xbf16>
  // CHECK: return %[[G]]
  return %1 : tensor<2x1x3x5xbf16>
}

// Elementwise gradients and updates take their operands' type, rank 0
// included.
// CHECK-LABEL: func.func @elementwise_rank0
// CHECK-SAME: (%[[DY:.*]]: tensor<f16>, %[[Y:.*]]: tensor<f16>, %[[STEP:.*]]: tensor<i64>)
func.func @elementwise_rank0(%dy: tensor<f16>, %y: tensor<f16>,
                             %step: tensor<i64>)
    -> (tensor<f16>, tensor<f16>, tensor<f16>) {
  // CHECK: %[[T:.*]] = tg.tanh_backward %[[DY]], %[[Y]] : tensor<f16>
  %0 = tg.tanh_backward %dy, %y : tensor<f16>
  // CHECK: %[[P:.*]], %[[BUF:.*]] = tg.sgd_update %[[Y]], %[[T]], %[[Y]], step %[[STEP]] {{.*}} : tensor<f16>
  %p, %buf = tg.sgd_update %y, %0, %y, step %step {momentum = 0.9} : tensor<f16>
  // CHECK: return %[[T]], %[[P]], %[[BUF]]
  return %0, %p, %buf : tensor<f16>, tensor<f16>, tensor<f16>
}
