// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// Round trip of every backward, loss and optimizer op: each op is parsed,
// printed and parsed again. Attributes equal to their default are elided.

// CHECK-LABEL: func.func @conv_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<1x6x4x4xf32>, %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
func.func @conv_backward(%dy: tensor<1x6x4x4xf32>, %x: tensor<1x4x8x8xf32>,
                           %w: tensor<6x2x3x3xf32>)
    -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) {
  // CHECK: %[[DX:.*]] = tg.conv_backward_data %[[DY]], %[[W]] {groups = 2 : i64, input_shape = array<i64: 1, 4, 8, 8>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  %0 = tg.conv_backward_data %dy, %w {strides = array<i64: 2, 2>,
                                        pads = array<i64: 1, 1, 1, 1>,
                                        groups = 2 : i64,
                                        input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: %[[DW:.*]] = tg.conv_backward_filter %[[DY]], %[[X]] {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, weight_shape = array<i64: 6, 2, 3, 3>} : (tensor<1x6x4x4xf32>, tensor<1x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  %1 = tg.conv_backward_filter %dy, %x {strides = array<i64: 2, 2>,
                                          pads = array<i64: 1, 1, 1, 1>,
                                          groups = 2 : i64,
                                          weight_shape = array<i64: 6, 2, 3, 3>}
      : (tensor<1x6x4x4xf32>, tensor<1x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  // CHECK: return %[[DX]], %[[DW]]
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>
}

// CHECK-LABEL: func.func @conv_transpose_backward_filter
// CHECK-SAME: (%[[DY:.*]]: tensor<1x3x10x10xf32>, %[[X:.*]]: tensor<1x4x5x5xf32>)
func.func @conv_transpose_backward_filter(%dy: tensor<1x3x10x10xf32>,
                                            %x: tensor<1x4x5x5xf32>)
    -> tensor<4x3x3x3xf32> {
  // CHECK: %[[DW:.*]] = tg.conv_transpose_backward_filter %[[DY]], %[[X]] {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, weight_shape = array<i64: 4, 3, 3, 3>} : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>) -> tensor<4x3x3x3xf32>
  %0 = tg.conv_transpose_backward_filter %dy, %x {
      strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
      output_padding = array<i64: 1, 1>, weight_shape = array<i64: 4, 3, 3, 3>}
      : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>) -> tensor<4x3x3x3xf32>
  // CHECK: return %[[DW]]
  return %0 : tensor<4x3x3x3xf32>
}

// Statistics in f32 under a bf16 input, as in tg.batch_norm.
// CHECK-LABEL: func.func @batch_norm_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<2x3x4x4xbf16>, %[[X:.*]]: tensor<2x3x4x4xbf16>, %[[SCALE:.*]]: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[INV_STD:.*]]: tensor<3xf32>)
func.func @batch_norm_backward(%dy: tensor<2x3x4x4xbf16>,
                               %x: tensor<2x3x4x4xbf16>,
                               %scale: tensor<3xf32>, %mean: tensor<3xf32>,
                               %inv_std: tensor<3xf32>)
    -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[DX:.*]], %[[DSCALE:.*]], %[[DBIAS:.*]] = tg.batch_norm_backward %[[DY]], %[[X]], %[[SCALE]], %[[MEAN]], %[[INV_STD]] : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
  %dx, %dscale, %dbias = tg.batch_norm_backward %dy, %x, %scale, %mean, %inv_std
      : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>,
         tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: return %[[DX]], %[[DSCALE]], %[[DBIAS]]
  return %dx, %dscale, %dbias
      : tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @activation_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<2x8xf32>, %[[Y:.*]]: tensor<2x8xf32>, %[[X:.*]]: tensor<2x8xf32>)
func.func @activation_backward(%dy: tensor<2x8xf32>, %y: tensor<2x8xf32>,
                               %x: tensor<2x8xf32>)
    -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>,
        tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK: %[[R0:.*]] = tg.relu_backward %[[DY]], %[[Y]] : tensor<2x8xf32>
  %0 = tg.relu_backward %dy, %y : tensor<2x8xf32>
  // CHECK: %[[R1:.*]] = tg.sigmoid_backward %[[DY]], %[[Y]] : tensor<2x8xf32>
  %1 = tg.sigmoid_backward %dy, %y : tensor<2x8xf32>
  // CHECK: %[[R2:.*]] = tg.tanh_backward %[[DY]], %[[Y]] : tensor<2x8xf32>
  %2 = tg.tanh_backward %dy, %y : tensor<2x8xf32>
  // CHECK: %[[R3:.*]] = tg.leaky_relu_backward %[[DY]], %[[X]] {alpha = 2.000000e-01 : f64} : tensor<2x8xf32>
  %3 = tg.leaky_relu_backward %dy, %x {alpha = 0.2} : tensor<2x8xf32>
  // CHECK: %[[R4:.*]] = tg.clip_backward %[[DY]], %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %4 = tg.clip_backward %dy, %x {min = 0.0, max = 6.0} : tensor<2x8xf32>
  // CHECK: %[[R5:.*]] = tg.sign %[[X]] : tensor<2x8xf32>
  %5 = tg.sign %x : tensor<2x8xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]]
  return %0, %1, %2, %3, %4, %5 : tensor<2x8xf32>, tensor<2x8xf32>,
      tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @pool_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x4x4xf32>, %[[X:.*]]: tensor<1x8x8x8xf32>)
func.func @pool_backward(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x8x8xf32>)
    -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  // CHECK: %[[MAX:.*]] = tg.max_pool_backward %[[DY]], %[[X]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 3, 3>,
                                       strides = array<i64: 2, 2>,
                                       pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: %[[AVG:.*]] = tg.avg_pool_backward %[[DY]] {count_include_pad = true, input_shape = array<i64: 1, 8, 8, 8>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  %1 = tg.avg_pool_backward %dy {kernel = array<i64: 2, 2>,
                                   strides = array<i64: 2, 2>,
                                   count_include_pad = true,
                                   input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: return %[[MAX]], %[[AVG]]
  return %0, %1 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// `sizes` is optional: it can only be the height and width of grad_output.
// CHECK-LABEL: func.func @resize_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x64x64xf32>)
func.func @resize_backward(%dy: tensor<1x8x64x64xf32>)
    -> (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) {
  // CHECK: %[[NEAREST:.*]] = tg.resize_backward %[[DY]] {coordinate_mode = #tg<coordinate_mode asymmetric>, input_shape = array<i64: 1, 8, 32, 32>, mode = #tg<resize_mode nearest>, nearest_mode = #tg<nearest_mode floor>, scales = array<f64: 2.000000e+00, 2.000000e+00>, sizes = array<i64: 64, 64>} : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode nearest>,
                               coordinate_mode = #tg<coordinate_mode asymmetric>,
                               nearest_mode = #tg<nearest_mode floor>,
                               sizes = array<i64: 64, 64>,
                               scales = array<f64: 2.0, 2.0>,
                               input_shape = array<i64: 1, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: %[[BILINEAR:.*]] = tg.resize_backward %[[DY]] {coordinate_mode = #tg<coordinate_mode half_pixel>, input_shape = array<i64: 1, 8, 32, 32>, mode = #tg<resize_mode bilinear>, scales = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  %1 = tg.resize_backward %dy {mode = #tg<resize_mode bilinear>,
                               coordinate_mode = #tg<coordinate_mode half_pixel>,
                               scales = array<f64: 2.0, 2.0>,
                               input_shape = array<i64: 1, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: return %[[NEAREST]], %[[BILINEAR]]
  return %0, %1 : tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>
}

// CHECK-LABEL: func.func @slice_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x3x3xf32>)
func.func @slice_backward(%dy: tensor<1x8x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // CHECK: %[[DX:.*]] = tg.slice_backward %[[DY]] {ends = array<i64: 1, 8, 7, 7>, input_shape = array<i64: 1, 8, 8, 8>, starts = array<i64: 0, 0, 1, 1>, steps = array<i64: 1, 1, 2, 2>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %0 = tg.slice_backward %dy {starts = array<i64: 0, 0, 1, 1>,
                              ends = array<i64: 1, 8, 7, 7>,
                              steps = array<i64: 1, 1, 2, 2>,
                              input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<1x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: return %[[DX]]
  return %0 : tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @pad_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<1x2x6x7xf32>)
func.func @pad_backward(%dy: tensor<1x2x6x7xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[DX:.*]] = tg.pad_backward %[[DY]] {input_shape = array<i64: 1, 2, 4, 4>, mode = #tg<pad_mode reflect>, pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>} : (tensor<1x2x6x7xf32>) -> tensor<1x2x4x4xf32>
  %0 = tg.pad_backward %dy {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>,
                            mode = #tg<pad_mode reflect>,
                            input_shape = array<i64: 1, 2, 4, 4>}
      : (tensor<1x2x6x7xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: return %[[DX]]
  return %0 : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<8x1x1xf32>)
func.func @broadcast(%x: tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32> {
  // CHECK: %[[B:.*]] = tg.broadcast %[[X]] {shape = array<i64: 2, 8, 4, 4>} : (tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %0 = tg.broadcast %x {shape = array<i64: 2, 8, 4, 4>}
      : (tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: return %[[B]]
  return %0 : tensor<2x8x4x4xf32>
}

// CHECK-LABEL: func.func @losses
// CHECK-SAME: (%[[P:.*]]: tensor<1x1x8x8xf32>, %[[T:.*]]: tensor<1x1x8x8xf32>)
func.func @losses(%p: tensor<1x1x8x8xf32>, %t: tensor<1x1x8x8xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  // CHECK: %[[MSE:.*]] = tg.mse_loss %[[P]], %[[T]] : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  %0 = tg.mse_loss %p, %t
      : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  // CHECK: %[[L1:.*]] = tg.l1_loss %[[P]], %[[T]] : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  %1 = tg.l1_loss %p, %t
      : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  // CHECK: %[[BCE:.*]] = tg.bce_loss %[[P]], %[[T]] : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  %2 = tg.bce_loss %p, %t
      : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<f32>
  // CHECK: return %[[MSE]], %[[L1]], %[[BCE]]
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @loss_backward
// CHECK-SAME: (%[[G:.*]]: tensor<f32>, %[[P:.*]]: tensor<1x1x8x8xf32>, %[[T:.*]]: tensor<1x1x8x8xf32>)
func.func @loss_backward(%g: tensor<f32>, %p: tensor<1x1x8x8xf32>,
                         %t: tensor<1x1x8x8xf32>)
    -> (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) {
  // CHECK: %[[MSE:.*]] = tg.mse_loss_backward %[[G]], %[[P]], %[[T]] : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %0 = tg.mse_loss_backward %g, %p, %t
      : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>)
      -> tensor<1x1x8x8xf32>
  // CHECK: %[[L1:.*]] = tg.l1_loss_backward %[[G]], %[[P]], %[[T]] : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %1 = tg.l1_loss_backward %g, %p, %t
      : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>)
      -> tensor<1x1x8x8xf32>
  // CHECK: %[[BCE:.*]] = tg.bce_loss_backward %[[G]], %[[P]], %[[T]] : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  %2 = tg.bce_loss_backward %g, %p, %t
      : (tensor<f32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>)
      -> tensor<1x1x8x8xf32>
  // CHECK: return %[[MSE]], %[[L1]], %[[BCE]]
  return %0, %1, %2
      : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
}

// Plain SGD keeps no state; with momentum the op reads and yields the
// buffer and takes the step number.
// CHECK-LABEL: func.func @sgd_update
// CHECK-SAME: (%[[P:.*]]: tensor<6x4xf32>, %[[G:.*]]: tensor<6x4xf32>, %[[BUF:.*]]: tensor<6x4xf32>, %[[STEP:.*]]: tensor<i64>)
func.func @sgd_update(%p: tensor<6x4xf32>, %g: tensor<6x4xf32>,
                      %buf: tensor<6x4xf32>, %step: tensor<i64>)
    -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) {
  // CHECK: %[[P1:.*]] = tg.sgd_update %[[P]], %[[G]] {lr = 1.000000e-01 : f64} : tensor<6x4xf32>
  %p1 = tg.sgd_update %p, %g {lr = 0.1} : tensor<6x4xf32>
  // CHECK: %[[P2:.*]], %[[BUF2:.*]] = tg.sgd_update %[[P1]], %[[G]], %[[BUF]], step %[[STEP]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov = true, weight_decay = 1.000000e-04 : f64} : tensor<6x4xf32>
  %p2, %buf2 = tg.sgd_update %p1, %g, %buf, step %step {lr = 0.1, momentum = 0.9,
                                                        weight_decay = 1.0e-4,
                                                        nesterov = true}
      : tensor<6x4xf32>
  // CHECK: return %[[P1]], %[[P2]], %[[BUF2]]
  return %p1, %p2, %buf2 : tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
}

// Adam with the default hyperparameters, then AdamW.
// CHECK-LABEL: func.func @adam_update
// CHECK-SAME: (%[[P:.*]]: tensor<6x4xf32>, %[[G:.*]]: tensor<6x4xf32>, %[[M:.*]]: tensor<6x4xf32>, %[[V:.*]]: tensor<6x4xf32>, %[[STEP:.*]]: tensor<i64>)
func.func @adam_update(%p: tensor<6x4xf32>, %g: tensor<6x4xf32>,
                       %m: tensor<6x4xf32>, %v: tensor<6x4xf32>,
                       %step: tensor<i64>)
    -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) {
  // CHECK: %[[P1:.*]], %[[M1:.*]], %[[V1:.*]] = tg.adam_update %[[P]], %[[G]], %[[M]], %[[V]], step %[[STEP]] : tensor<6x4xf32>
  %p1, %m1, %v1 = tg.adam_update %p, %g, %m, %v, step %step : tensor<6x4xf32>
  // CHECK: %[[P2:.*]], %[[M2:.*]], %[[V2:.*]] = tg.adam_update %[[P1]], %[[G]], %[[M1]], %[[V1]], step %[[STEP]] {beta1 = 8.000000e-01 : f64, beta2 = 5.000000e-01 : f64, decoupled = true, eps = 1.000000e-03 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-02 : f64} : tensor<6x4xf32>
  %p2, %m2, %v2 = tg.adam_update %p1, %g, %m1, %v1, step %step {
      lr = 1.0e-2, beta1 = 0.8, beta2 = 0.5, eps = 1.0e-3,
      weight_decay = 1.0e-2, decoupled = true}
      : tensor<6x4xf32>
  // CHECK: return %[[P2]], %[[M2]], %[[V2]], %[[P1]]
  return %p2, %m2, %v2, %p1
      : tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
}
