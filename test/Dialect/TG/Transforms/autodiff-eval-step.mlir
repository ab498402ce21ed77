// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -split-input-file | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff -split-input-file | FileCheck %s --check-prefix=NOEVAL

// The evaluation function next to the training step: the same arguments
// (the dropout's seed among them), the loss and the outputs as results, the
// forward ops in evaluation mode (BatchNorm on its running statistics,
// dropout passed through), the same loss, no update.

// NOEVAL-NOT: @eval_step
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %{{[^:]*}}: tensor<2x3x8x8xf32> {tg.input = "input"},
// CHECK-SAME: %{{[^:]*}}: tensor<i64> {tg.seed = "seed"})
// CHECK: tg.dropout
// CHECK: tg.sgd_update
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8x8xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<2x4x8x8xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
// CHECK-SAME: %[[S:[^:]*]]: tensor<4xf32> {tg.param = "bn.weight"},
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32> {tg.param = "bn.bias"},
// CHECK-SAME: %[[RM:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_mean"},
// CHECK-SAME: %[[RV:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_var"},
// CHECK-SAME: %{{[^:]*}}: tensor<i64> {tg.seed = "seed"})
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<2x4x8x8xf32> {tg.output = "output"})
// CHECK-NEXT: %[[C:.*]] = tg.conv %[[X]], %[[W]]
// CHECK-NEXT: %[[BN:.*]] = tg.batch_norm_inference %[[C]], %[[S]], %[[B]], %[[RM]], %[[RV]] {epsilon = 1.000000e-03 : f64}
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[BN]]
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[R]], %[[T]]
// CHECK-NEXT: return %[[LOSS]], %[[R]] : tensor<f32>, tensor<2x4x8x8xf32>
// CHECK-NEXT: }
func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %w: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %rm: tensor<4xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x8x8xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1:5 = tg.batch_norm %0, %s, %b, %rm, %rv {epsilon = 1.0e-3 : f64}
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %2, %mask = tg.dropout %1#0 {ratio = 0.25 : f64} : tensor<2x4x8x8xf32>
  %3 = tg.relu %2 : tensor<2x4x8x8xf32>
  return %3 : tensor<2x4x8x8xf32>
}
