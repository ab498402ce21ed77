// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// Round trip of the ops of segmentation networks and their gradients.
// Attributes equal to their default are elided by the printer.

// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[DY:.*]]: tensor<2x3x4x4xf32>, %[[A:.*]]: tensor<3x1x1xf32>)
func.func @activations(%x: tensor<2x3x4x4xf32>, %dy: tensor<2x3x4x4xf32>,
                       %a: tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32> {
  // CHECK: %[[R0:.*]] = tg.hard_sigmoid %[[X]] {alpha = 1.000000e-01 : f64} : tensor<2x3x4x4xf32>
  %0 = tg.hard_sigmoid %x {alpha = 0.1, beta = 0.5} : tensor<2x3x4x4xf32>
  // CHECK: %[[R1:.*]] = tg.hard_swish %[[R0]] : tensor<2x3x4x4xf32>
  %1 = tg.hard_swish %0 : tensor<2x3x4x4xf32>
  // CHECK: %[[R2:.*]] = tg.elu %[[R1]] {alpha = 5.000000e-01 : f64} : tensor<2x3x4x4xf32>
  %2 = tg.elu %1 {alpha = 0.5} : tensor<2x3x4x4xf32>
  // CHECK: %[[R3:.*]] = tg.softplus %[[R2]] : tensor<2x3x4x4xf32>
  %3 = tg.softplus %2 : tensor<2x3x4x4xf32>
  // CHECK: %[[R4:.*]] = tg.erf %[[R3]] : tensor<2x3x4x4xf32>
  %4 = tg.erf %3 : tensor<2x3x4x4xf32>
  // CHECK: %[[R5:.*]] = tg.prelu %[[R4]], %[[A]] : (tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %5 = tg.prelu %4, %a : (tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: %[[R6:.*]] = tg.softmax %[[R5]] {axis = 1 : i64} : tensor<2x3x4x4xf32>
  %6 = tg.softmax %5 {axis = 1} : tensor<2x3x4x4xf32>
  // CHECK: %[[R7:.*]] = tg.log_softmax %[[R6]] {axis = 3 : i64} : tensor<2x3x4x4xf32>
  %7 = tg.log_softmax %6 {axis = 3} : tensor<2x3x4x4xf32>
  // CHECK: tg.hard_sigmoid_backward %[[DY]], %[[X]] {alpha = 1.000000e-01 : f64} : tensor<2x3x4x4xf32>
  %8 = tg.hard_sigmoid_backward %dy, %x {alpha = 0.1} : tensor<2x3x4x4xf32>
  // CHECK: tg.hard_swish_backward %[[DY]], %[[X]] : tensor<2x3x4x4xf32>
  %9 = tg.hard_swish_backward %dy, %x : tensor<2x3x4x4xf32>
  // CHECK: tg.elu_backward %[[DY]], %[[X]] : tensor<2x3x4x4xf32>
  %10 = tg.elu_backward %dy, %x {alpha = 1.0} : tensor<2x3x4x4xf32>
  // CHECK: tg.softplus_backward %[[DY]], %[[X]] : tensor<2x3x4x4xf32>
  %11 = tg.softplus_backward %dy, %x : tensor<2x3x4x4xf32>
  // CHECK: tg.erf_backward %[[DY]], %[[X]] : tensor<2x3x4x4xf32>
  %12 = tg.erf_backward %dy, %x : tensor<2x3x4x4xf32>
  // CHECK: tg.prelu_backward %[[DY]], %[[X]], %[[A]] : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %13 = tg.prelu_backward %dy, %x, %a : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: tg.softmax_backward %[[DY]], %[[R6]] {axis = 1 : i64} : tensor<2x3x4x4xf32>
  %14 = tg.softmax_backward %dy, %6 {axis = 1} : tensor<2x3x4x4xf32>
  // CHECK: tg.log_softmax_backward %[[DY]], %[[R7]] {axis = 3 : i64} : tensor<2x3x4x4xf32>
  %15 = tg.log_softmax_backward %dy, %7 {axis = 3} : tensor<2x3x4x4xf32>
  return %7 : tensor<2x3x4x4xf32>
}

// CHECK-LABEL: func.func @instance_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[DY:.*]]: tensor<2x3x4x4xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
func.func @instance_norm(%x: tensor<2x3x4x4xf32>, %dy: tensor<2x3x4x4xf32>,
                         %s: tensor<3xf32>, %b: tensor<3xf32>) {
  // CHECK: %[[Y:.*]], %[[M:.*]], %[[I:.*]] = tg.instance_norm %[[X]], %[[S]], %[[B]] {epsilon = 1.000000e-03 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %y, %m, %i = tg.instance_norm %x, %s, %b {epsilon = 1.0e-3}
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: tg.instance_norm_backward %[[DY]], %[[X]], %[[S]], %[[M]], %[[I]]
  %dx, %ds, %db = tg.instance_norm_backward %dy, %x, %s, %m, %i
      : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// Mixed precision: a bf16 input with f32 scale, bias and statistics.
// CHECK-LABEL: func.func @instance_norm_bf16
func.func @instance_norm_bf16(%x: tensor<2x3x4x4x4xbf16>,
                              %s: tensor<3xf32>, %b: tensor<3xf32>) {
  // CHECK: tg.instance_norm {{.*}} -> (tensor<2x3x4x4x4xbf16>, tensor<2x3xf32>, tensor<2x3xf32>)
  %y, %m, %i = tg.instance_norm %x, %s, %b
      : (tensor<2x3x4x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4x4xbf16>, tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: tg.instance_norm_backward {{.*}} -> (tensor<2x3x4x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
  %dx, %ds, %db = tg.instance_norm_backward %y, %x, %s, %m, %i
      : (tensor<2x3x4x4x4xbf16>, tensor<2x3x4x4x4xbf16>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
      -> (tensor<2x3x4x4x4xbf16>, tensor<3xf32>, tensor<3xf32>)
  return
}

// CHECK-LABEL: func.func @losses
// CHECK-SAME: (%[[Z:.*]]: tensor<2x3x4x4xf32>, %[[T:.*]]: tensor<2x4x4xf32>, %[[Z1:.*]]: tensor<2x1x4x4xf32>, %[[M:.*]]: tensor<2x1x4x4xf32>, %[[G:.*]]: tensor<f32>)
func.func @losses(%z: tensor<2x3x4x4xf32>, %t: tensor<2x4x4xf32>,
                  %z1: tensor<2x1x4x4xf32>, %mask: tensor<2x1x4x4xf32>,
                  %g: tensor<f32>) {
  // CHECK: tg.cross_entropy_loss %[[Z]], %[[T]] : (tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  %0 = tg.cross_entropy_loss %z, %t : (tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  // CHECK: tg.cross_entropy_loss_backward %[[G]], %[[Z]], %[[T]] : (tensor<f32>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x3x4x4xf32>
  %1 = tg.cross_entropy_loss_backward %g, %z, %t : (tensor<f32>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: tg.dice_loss %[[Z]], %[[T]] : (tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  %2 = tg.dice_loss %z, %t : (tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  // One channel: sigmoid against a mask of the logits' shape.
  // CHECK: tg.dice_loss %[[Z1]], %[[M]] {epsilon = 5.000000e-01 : f64} : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<f32>
  %3 = tg.dice_loss %z1, %mask {epsilon = 0.5} : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<f32>
  // CHECK: tg.dice_loss_backward %[[G]], %[[Z]], %[[T]] : (tensor<f32>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x3x4x4xf32>
  %4 = tg.dice_loss_backward %g, %z, %t : (tensor<f32>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x3x4x4xf32>
  return
}
