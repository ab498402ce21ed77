// RUN: memopt-opt %s -tg-autodiff -split-input-file | FileCheck %s

// tg.gather differentiates to tg.gather_backward, the scatter-add of the
// output gradient onto the gathered positions.

// A Swin-style relative position bias: a table parameter gathered at a
// constant index map, permuted to heads first and added to the scores.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[TABLE:[^:]*]]: tensor<9x2xf32> {tg.param = "table"}
// CHECK: %[[G:.*]] = tg.gather %[[TABLE]] {axis = 0 : i64, indices = dense<{{.*}}> : tensor<4x4xi64>} : (tensor<9x2xf32>) -> tensor<4x4x2xf32>
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK: %[[DB:.*]] = tg.transpose {{.*}} {perm = array<i64: 1, 2, 0>} : (tensor<2x4x4xf32>) -> tensor<4x4x2xf32>
// CHECK-NEXT: %[[DT:.*]] = tg.gather_backward %[[DB]] {axis = 0 : i64, indices = dense<{{.*}}> : tensor<4x4xi64>, input_shape = array<i64: 9, 2>} : (tensor<4x4x2xf32>) -> tensor<9x2xf32>
// CHECK: tg.sgd_update %[[TABLE]], %[[DT]]
func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "x"},
                %table: tensor<9x2xf32> {tg.param = "table"})
    -> (tensor<1x2x4x4xf32> {tg.output = "y"}) {
  %0 = tg.gather %table {axis = 0 : i64,
                         indices = dense<[[4, 3, 1, 0], [5, 4, 2, 1],
                                          [7, 6, 4, 3], [8, 7, 5, 4]]>
                             : tensor<4x4xi64>}
      : (tensor<9x2xf32>) -> tensor<4x4x2xf32>
  %1 = tg.transpose %0 {perm = array<i64: 2, 0, 1>}
      : (tensor<4x4x2xf32>) -> tensor<2x4x4xf32>
  %2 = tg.add %x, %1 : (tensor<1x2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A gather of an activation along an inner axis, with a repeated index.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x5x3xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DR:.*]] = tg.gather_backward %[[DY]] {axis = 1 : i64, indices = dense<[4, 0, 4]> : tensor<3xi64>, input_shape = array<i64: 2, 5, 3>} : (tensor<2x3x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.relu_backward %[[DR]]
// CHECK: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x5x3xf32> {tg.param = "p"})
    -> (tensor<2x3x3xf32> {tg.output = "y"}) {
  %0 = tg.relu %p : tensor<2x5x3xf32>
  %1 = tg.gather %0 {axis = 1 : i64, indices = dense<[4, 0, 4]> : tensor<3xi64>}
      : (tensor<2x5x3xf32>) -> tensor<2x3x3xf32>
  return %1 : tensor<2x3x3xf32>
}
