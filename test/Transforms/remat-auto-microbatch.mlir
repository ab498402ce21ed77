// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=8200' -tg-autodiff='loss=mse optimizer=sgd' -tg-microbatch=microbatches=2 -tg-remat=strategy=auto | FileCheck %s
// RUN: not memopt-opt %s -memopt-set-target='target=cpu budget=7000' -tg-autodiff='loss=mse optimizer=sgd' -tg-microbatch=microbatches=2 -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=SMALLEST

// remat-auto.mlir's U-Net in miniature, run as two microbatches
// (tg-microbatch: F0 B0 F1 B1). auto decides for both microbatches' copies
// of a value at once, then prunes the copies one at a time
// (docs/planning.md#microbatch-ties).
//
// Without recomputation the predicted peak is 8804 bytes (an arena of
// 5120, 3684 persistent). Under 8200 one round recomputes the skip (the
// BatchNorm and ReLU over the stored conv output) of both microbatches:
// two values, four ops.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 8200, persistent_bytes = 3684, planned_arena_bytes = 4352, rounds = 1, recomputed_values = 2, recomputed_ops = 4,
// CHECK: %[[C0:.*]] = tg.conv %{{.*}}, %arg2
// CHECK: tg.batch_norm %[[C0]], {{.*}}{memopt.recompute}
// CHECK-NEXT: tg.relu {{.*}}{memopt.recompute}
// CHECK: %[[C1:.*]] = tg.conv %{{.*}}, %arg2
// CHECK: tg.batch_norm %[[C1]], {{.*}}{memopt.recompute}
// CHECK-NEXT: tg.relu {{.*}}{memopt.recompute}
// CHECK-NOT: memopt.recompute

// Where the tied plan does not fit, the untied greedy runs from nothing
// (the tie's path may end above its arena) and the smaller arena is the
// one named: here the untied greedy's, as without ties.
// SMALLEST: error: tg-remat: the step does not fit --budget=7000 bytes: the smallest peak remat=auto reaches is 7396 bytes (--budget=7396)
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %skip = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
