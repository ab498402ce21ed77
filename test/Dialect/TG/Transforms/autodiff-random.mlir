// RUN: memopt-opt %s -tg-autodiff | FileCheck %s

// Drop-path and drop-connect masks: random_uniform makes the step take the
// seed argument; compare and floor pass no gradient (PyTorch's floor
// backward is zero), so the parameter's gradient is the loss gradient times
// the forward's mask only.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<4x2xf32> {tg.param = "p"}, %{{.*}}: tensor<i64> {tg.seed = "seed"}
// CHECK: %[[U:.*]] = tg.random_uniform {stream = 0 : i64}
// CHECK: %[[M:.*]] = tg.compare %[[U]]
// CHECK: tg.random_uniform {stream = 1 : i64}
// CHECK: tg.floor
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.mul %[[DY]], %[[M]] : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<4x2xf32> {tg.param = "p"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32>
  %k = tg.constant dense<0.8> : tensor<f32>
  %m = tg.compare %u, %k {predicate = #tg<comparison lt>} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %v = tg.random_uniform {stream = 1} : tensor<4x1xf32>
  %a = tg.add %v, %p : (tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %f = tg.floor %a : tensor<4x2xf32>
  %y = tg.mul %p, %m : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %z = tg.add %y, %f : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}
