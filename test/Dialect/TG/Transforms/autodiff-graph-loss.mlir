// RUN: memopt-opt %s -tg-autodiff='loss=graph optimizer=adam' | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff='loss=graph optimizer=adam eval-step=true' | FileCheck %s --check-prefix=EVAL

// loss=graph: the model computes its own loss as its rank-0 first output
// and takes the target as an ordinary input. No loss op and no tg.target
// argument are added; the gradient is seeded at the model's loss, which is
// the first result under its own name; further outputs follow it.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32> {tg.input = "input"}, %[[T:[^:]*]]: tensor<2x3xf32> {tg.input = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<2x3xf32> {tg.param = "w"},
// CHECK-SAME: %{{[^:]*}}: tensor<2x3xf32> {tg.opt_state = "w.exp_avg"}, %{{[^:]*}}: tensor<2x3xf32> {tg.opt_state = "w.exp_avg_sq"}, %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"})
// CHECK-SAME: -> (tensor<f32> {tg.output = "my_loss"}, tensor<2x3xf32> {tg.output = "prediction"}, tensor<2x3xf32> {tg.param = "w"},
// CHECK-NOT: tg.target
// CHECK-NOT: _loss
// CHECK: %[[P:.*]] = tg.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[D:.*]] = tg.sub %[[P]], %[[T]]
// CHECK-NEXT: %[[SQ:.*]] = tg.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[LOSS:.*]] = tg.reduce_mean %[[SQ]]
// CHECK-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: tg.reshape %[[ONE]] {shape = array<i64: 1, 1>} : (tensor<f32>) -> tensor<1x1xf32>
// CHECK: tg.adam_update %[[W]]
// CHECK: return %[[LOSS]], %[[P]],

// The evaluation function returns the model's loss and outputs: no loss op
// is appended.
// EVAL-LABEL: func.func @eval_step(
// EVAL-SAME: %[[X:[^:]*]]: tensor<2x3xf32> {tg.input = "input"}, %[[T:[^:]*]]: tensor<2x3xf32> {tg.input = "target"},
// EVAL-SAME: -> (tensor<f32> {tg.output = "my_loss"}, tensor<2x3xf32> {tg.output = "prediction"})
// EVAL-NEXT: %[[P:.*]] = tg.mul %[[X]]
// EVAL-NEXT: %[[D:.*]] = tg.sub %[[P]], %[[T]]
// EVAL-NEXT: %[[SQ:.*]] = tg.mul %[[D]], %[[D]]
// EVAL-NEXT: %[[LOSS:.*]] = tg.reduce_mean %[[SQ]]
// EVAL-NEXT: return %[[LOSS]], %[[P]] : tensor<f32>, tensor<2x3xf32>
func.func @main(%x: tensor<2x3xf32> {tg.input = "input"},
                %t: tensor<2x3xf32> {tg.input = "target"},
                %w: tensor<2x3xf32> {tg.param = "w"})
    -> (tensor<f32> {tg.output = "my_loss"}, tensor<2x3xf32> {tg.output = "prediction"}) {
  %0 = tg.mul %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.sub %0, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tg.mul %1, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tg.reduce_mean %2 {keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %3, %0 : tensor<f32>, tensor<2x3xf32>
}
