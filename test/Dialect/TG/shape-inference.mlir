// RUN: memopt-opt %s | FileCheck %s

// Result types that the inference derives non-trivially. The verifier rejects
// any result type other than the inferred one (see invalid.mlir), so each op
// below parses only with the type that its inference computes.

// H: (9 + 1 + 2 - 2 * (3 - 1) - 1) / 2 + 1 = 4; W: (10 + 0 + 1 - 3) / 3 + 1 = 3.
// CHECK-LABEL: func.func @conv_stride_dilation_groups
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x9x10xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>, %[[DX:.*]]: tensor<1x6x5x5xf32>, %[[DW:.*]]: tensor<6x1x3x3xf32>)
func.func @conv_stride_dilation_groups(%x: tensor<1x4x9x10xf32>,
                                       %w: tensor<8x2x3x3xf32>,
                                       %dx: tensor<1x6x5x5xf32>,
                                       %dw: tensor<6x1x3x3xf32>)
    -> (tensor<1x8x4x3xf32>, tensor<1x6x3x3xf32>) {
  // CHECK: %[[R0:.*]] = tg.conv %[[X]], %[[W]] {{.*}} -> tensor<1x8x4x3xf32>
  %0 = tg.conv %x, %w {strides = array<i64: 2, 3>,
                         pads = array<i64: 1, 0, 2, 1>,
                         dilations = array<i64: 2, 1>, groups = 2 : i64}
      : (tensor<1x4x9x10xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x3xf32>
  // Depthwise: one input channel per group.
  // CHECK: %[[R1:.*]] = tg.conv %[[DX]], %[[DW]] {groups = 6 : i64} : (tensor<1x6x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x3x3xf32>
  %1 = tg.conv %dx, %dw {groups = 6 : i64}
      : (tensor<1x6x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x3x3xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<1x8x4x3xf32>, tensor<1x6x3x3xf32>
}

// H: (5 - 1) * 2 - 1 - 1 + (3 - 1) + 1 + 1 = 10;
// W: (6 - 1) * 3 - 1 - 1 + (3 - 1) + 2 + 1 = 18; channels: 2 per group x 2.
// CHECK-LABEL: func.func @conv_transpose_output_padding
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x6xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[DX:.*]]: tensor<1x2x4x4xf32>, %[[DW:.*]]: tensor<2x3x3x3xf32>)
func.func @conv_transpose_output_padding(%x: tensor<1x4x5x6xf32>,
                                         %w: tensor<4x2x3x3xf32>,
                                         %dx: tensor<1x2x4x4xf32>,
                                         %dw: tensor<2x3x3x3xf32>)
    -> (tensor<1x4x10x18xf32>, tensor<1x3x9x8xf32>) {
  // CHECK: %[[R0:.*]] = tg.conv_transpose %[[X]], %[[W]] {{.*}} -> tensor<1x4x10x18xf32>
  %0 = tg.conv_transpose %x, %w {strides = array<i64: 2, 3>,
                                   pads = array<i64: 1, 1, 1, 1>,
                                   output_padding = array<i64: 1, 2>,
                                   groups = 2 : i64}
      : (tensor<1x4x5x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x10x18xf32>
  // With stride 1 the output padding must stay below the dilation:
  // H: 3 + 2 * 2 + 1 + 1 = 9; W: 3 + 2 * 2 + 0 + 1 = 8.
  // CHECK: %[[R1:.*]] = tg.conv_transpose %[[DX]], %[[DW]] {{.*}} -> tensor<1x3x9x8xf32>
  %1 = tg.conv_transpose %dx, %dw {dilations = array<i64: 2, 2>,
                                     output_padding = array<i64: 1, 0>}
      : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x9x8xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<1x4x10x18xf32>, tensor<1x3x9x8xf32>
}

// CHECK-LABEL: func.func @pool_ceil_mode
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x6x6xf32>, %[[Y:.*]]: tensor<1x1x5x5xf32>, %[[Z:.*]]: tensor<1x2x7x7xf32>)
func.func @pool_ceil_mode(%x: tensor<1x1x6x6xf32>, %y: tensor<1x1x5x5xf32>,
                          %z: tensor<1x2x7x7xf32>)
    -> (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>,
        tensor<1x2x3x3xf32>, tensor<1x2x4x4xf32>) {
  // (6 - 3) / 2 + 1 rounds down to 2 and up to 3.
  // CHECK: %[[FLOOR:.*]] = tg.max_pool %[[X]] {{.*}} -> tensor<1x1x2x2xf32>
  %0 = tg.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32>
  // CHECK: %[[CEIL:.*]] = tg.max_pool %[[X]] {{.*}} -> tensor<1x1x3x3xf32>
  %1 = tg.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                         ceil_mode = true}
      : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
  // H is padded by 1 on both sides: the extra window would start at 6, in
  // the bottom padding, so it is dropped and H stays 3. W has no padding and
  // rounds up from 2 to 3.
  // CHECK: %[[DROP:.*]] = tg.max_pool %[[Y]] {{.*}} -> tensor<1x1x3x3xf32>
  %2 = tg.max_pool %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                         pads = array<i64: 1, 0, 1, 0>, ceil_mode = true}
      : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  // CHECK: %[[AVG_FLOOR:.*]] = tg.avg_pool %[[Z]] {{.*}} -> tensor<1x2x3x3xf32>
  %3 = tg.avg_pool %z {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: %[[AVG_CEIL:.*]] = tg.avg_pool %[[Z]] {{.*}} -> tensor<1x2x4x4xf32>
  %4 = tg.avg_pool %z {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                         ceil_mode = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: return %[[FLOOR]], %[[CEIL]], %[[DROP]], %[[AVG_FLOOR]], %[[AVG_CEIL]]
  return %0, %1, %2, %3, %4
      : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>,
        tensor<1x2x3x3xf32>, tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @broadcasting
// CHECK-SAME: (%[[A:.*]]: tensor<2x1x4xf16>, %[[B:.*]]: tensor<3x1xf16>, %[[S:.*]]: tensor<f16>)
func.func @broadcasting(%a: tensor<2x1x4xf16>, %b: tensor<3x1xf16>,
                        %s: tensor<f16>) -> (tensor<2x3x4xf16>, tensor<3x1xf16>) {
  // CHECK: %[[R0:.*]] = tg.add %[[A]], %[[B]] : (tensor<2x1x4xf16>, tensor<3x1xf16>) -> tensor<2x3x4xf16>
  %0 = tg.add %a, %b : (tensor<2x1x4xf16>, tensor<3x1xf16>) -> tensor<2x3x4xf16>
  // CHECK: %[[R1:.*]] = tg.div %[[S]], %[[B]] : (tensor<f16>, tensor<3x1xf16>) -> tensor<3x1xf16>
  %1 = tg.div %s, %b : (tensor<f16>, tensor<3x1xf16>) -> tensor<3x1xf16>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<2x3x4xf16>, tensor<3x1xf16>
}

// CHECK-LABEL: func.func @matmul_batch_broadcasting
// CHECK-SAME: (%[[A:.*]]: tensor<2x1x3x4xf32>, %[[B:.*]]: tensor<5x4x6xf32>, %[[C:.*]]: tensor<7x2x3xf32>, %[[D:.*]]: tensor<3x4xf32>)
func.func @matmul_batch_broadcasting(%a: tensor<2x1x3x4xf32>,
                                     %b: tensor<5x4x6xf32>,
                                     %c: tensor<7x2x3xf32>,
                                     %d: tensor<3x4xf32>)
    -> (tensor<2x5x3x6xf32>, tensor<7x2x4xf32>) {
  // CHECK: %[[R0:.*]] = tg.matmul %[[A]], %[[B]] : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %0 = tg.matmul %a, %b
      : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  // CHECK: %[[R1:.*]] = tg.matmul %[[C]], %[[D]] : (tensor<7x2x3xf32>, tensor<3x4xf32>) -> tensor<7x2x4xf32>
  %1 = tg.matmul %c, %d : (tensor<7x2x3xf32>, tensor<3x4xf32>) -> tensor<7x2x4xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<2x5x3x6xf32>, tensor<7x2x4xf32>
}

// CHECK-LABEL: func.func @gemm_transposes
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[AT:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[BT:.*]]: tensor<5x3xf32>, %[[C:.*]]: tensor<2x1xf32>)
func.func @gemm_transposes(%a: tensor<3x2xf32>, %at: tensor<2x3xf32>,
                           %b: tensor<3x5xf32>, %bt: tensor<5x3xf32>,
                           %c: tensor<2x1xf32>)
    -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  // CHECK: %[[R0:.*]] = tg.gemm %[[A]], %[[B]] {trans_a = true} : (tensor<3x2xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %0 = tg.gemm %a, %b {trans_a = true}
      : (tensor<3x2xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  // CHECK: %[[R1:.*]] = tg.gemm %[[AT]], %[[BT]], %[[C]] {trans_b = true} : (tensor<2x3xf32>, tensor<5x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %1 = tg.gemm %at, %bt, %c {trans_b = true}
      : (tensor<2x3xf32>, tensor<5x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  // CHECK: %[[R2:.*]] = tg.gemm %[[A]], %[[BT]] {trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>
  %2 = tg.gemm %a, %bt {trans_a = true, trans_b = true}
      : (tensor<3x2xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]]
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// CHECK-LABEL: func.func @reduce_keepdims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @reduce_keepdims(%x: tensor<2x3x4xf32>)
    -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<f32>) {
  // CHECK: %[[R0:.*]] = tg.reduce_sum %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = tg.reduce_sum %x {axes = array<i64: 1>}
      : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: %[[R1:.*]] = tg.reduce_mean %[[X]] {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = tg.reduce_mean %x {axes = array<i64: 1>, keepdims = false}
      : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // No axes: every axis is reduced.
  // CHECK: %[[R2:.*]] = tg.reduce_sum %[[X]] {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = tg.reduce_sum %x {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]]
  return %0, %1, %2 : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<f32>
}

// [1, 10) by 3 keeps 1, 4, 7; [0, 7) by 2 keeps 0, 2, 4, 6; [2, 9) by 4
// keeps 2, 6.
// CHECK-LABEL: func.func @slice_steps
// CHECK-SAME: (%[[X:.*]]: tensor<10x7x9xf32>)
func.func @slice_steps(%x: tensor<10x7x9xf32>) -> tensor<3x4x2xf32> {
  // CHECK: %[[R:.*]] = tg.slice %[[X]] {{.*}} -> tensor<3x4x2xf32>
  %0 = tg.slice %x {starts = array<i64: 1, 0, 2>, ends = array<i64: 10, 7, 9>,
                    steps = array<i64: 3, 2, 4>}
      : (tensor<10x7x9xf32>) -> tensor<3x4x2xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<3x4x2xf32>
}

// Results whose types the parser infers: no result type is written.
// CHECK-LABEL: func.func @dropout_results
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xbf16>)
func.func @dropout_results(%x: tensor<3x5xbf16>)
    -> (tensor<3x5xbf16>, tensor<3x5xbf16>) {
  // CHECK: %[[Y:.*]], %[[MASK:.*]] = tg.dropout %[[X]] {{.*}} : tensor<3x5xbf16>
  %y, %mask = tg.dropout %x {ratio = 0.1} : tensor<3x5xbf16>
  // CHECK: return %[[Y]], %[[MASK]] : tensor<3x5xbf16>, tensor<3x5xbf16>
  return %y, %mask : tensor<3x5xbf16>, tensor<3x5xbf16>
}

// The statistics keep their own element type under a bf16 input.
// CHECK-LABEL: func.func @batch_norm_mixed_precision
func.func @batch_norm_mixed_precision(%x: tensor<4x3xbf16>, %s: tensor<3xf32>)
    -> tensor<3xf32> {
  // CHECK: tg.batch_norm {{.*}} -> (tensor<4x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y, %m, %v, %sm, %si = tg.batch_norm %x, %s, %s, %s, %s
      : (tensor<4x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>)
      -> (tensor<4x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  return %m : tensor<3xf32>
}

// A tensor may have zero channels; batch normalization of it is empty.
// CHECK-LABEL: func.func @batch_norm_zero_channels
func.func @batch_norm_zero_channels(%x: tensor<2x0x3xf32>, %s: tensor<0xf32>)
    -> tensor<2x0x3xf32> {
  // CHECK: tg.batch_norm {{.*}} -> (tensor<2x0x3xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>)
  %y, %m, %v, %sm, %si = tg.batch_norm %x, %s, %s, %s, %s
      : (tensor<2x0x3xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>,
         tensor<0xf32>)
      -> (tensor<2x0x3xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>,
          tensor<0xf32>)
  return %y : tensor<2x0x3xf32>
}
