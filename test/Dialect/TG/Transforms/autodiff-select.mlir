// RUN: memopt-opt %s -tg-autodiff | FileCheck %s

// tg.select passes the output gradient to the branch the condition chose
// and 0 to the other (a select again, so that an inf or NaN does not leak
// into the other branch), summed back to a broadcast branch's shape; the
// condition, a comparison, gets none.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<4x2xf32> {tg.param = "p"}, %[[Q:[^:]*]]: tensor<1x2xf32> {tg.param = "q"}
// CHECK: %[[M:.*]] = tg.compare %[[P]], %{{.*}} {predicate = #tg<comparison gt>}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK: %[[Z:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DP:.*]] = tg.select %[[M]], %[[DY]], %[[Z]] : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
// CHECK: %[[Z2:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DQ:.*]] = tg.select %[[M]], %[[Z2]], %[[DY]] : (tensor<4x2xf32>, tensor<f32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[SQ:.*]] = tg.reduce_sum %[[DQ]] {axes = array<i64: 0>} : (tensor<4x2xf32>) -> tensor<1x2xf32>
// CHECK-DAG: tg.sgd_update %[[P]], %[[DP]]
// CHECK-DAG: tg.sgd_update %[[Q]], %[[SQ]]
func.func @main(%p: tensor<4x2xf32> {tg.param = "p"}, %q: tensor<1x2xf32> {tg.param = "q"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %t = tg.constant dense<0.5> : tensor<f32>
  %m = tg.compare %p, %t {predicate = #tg<comparison gt>} : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %y = tg.select %m, %p, %q : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
