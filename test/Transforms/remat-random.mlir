// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4400' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s

// A drop-path mask read by the backward of its mul: under the budget remat
// recomputes it, random numbers included. The clone keeps the op's stream,
// so it draws the forward's numbers (tg.random_uniform is Pure: a function
// of the step's seed, its stream and the element index).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: recomputed_values = 1
// CHECK: %[[U:.*]] = tg.random_uniform {stream = 0 : i64} : tensor<1x2x8x8xf32>
// CHECK: tg.compare %[[U]]
// CHECK: %[[UX:.*]] = tg.random_uniform {memopt.recompute, stream = 0 : i64} : tensor<1x2x8x8xf32>
// CHECK-NEXT: %[[MX:.*]] = tg.compare %[[UX]], %{{.*}} {memopt.recompute, predicate = #tg<comparison lt>}
// CHECK-NEXT: tg.mul %{{.*}}, %[[MX]]
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "w3"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %u = tg.random_uniform {stream = 0} : tensor<1x2x8x8xf32>
  %k = tg.constant dense<0.5> : tensor<f32>
  %m = tg.compare %u, %k {predicate = #tg<comparison lt>} : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %y = tg.mul %c1, %m : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c2 = tg.conv %y, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
