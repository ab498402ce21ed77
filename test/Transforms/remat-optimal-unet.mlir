// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal -tg-schedule | FileCheck %s --check-prefix=SCHED
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=sqrt | FileCheck %s --check-prefix=SQRT
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4324' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s --check-prefix=SMALLEST

// The U-Net in miniature of remat-auto.mlir: encoder conv+BN+ReLU whose
// output is the skip, pool, bottleneck conv+ReLU, upsampling, concat with
// the skip, decoder conv. Persistent 2148 bytes, plain arena 3968.
//
// Under 5100 bytes (an arena of 2952) the optimum recomputes the skip:
// the BatchNorm and its ReLU (one recompute unit) from the stored conv
// output, right before the pool's backward, 1032 FLOPs. The skip is a
// concat operand computed in its slice (cpu): absent, it frees the
// concat's buffer once the decoder's filter gradient has read the concat.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 5100, persistent_bytes = 2148, planned_arena_bytes = 2944, milp = <{{.*}}status = "optimal", {{.*}}gap = 0.000000e+00 : f64, {{.*}}>, recomputed_values = 1, recomputed_ops = 2, {{.*}}flops_added = 1032,
// CHECK: %[[C1:.*]] = tg.conv
// CHECK: %[[BN:[^,]*]], {{.*}} = tg.batch_norm %[[C1]],
// CHECK: %[[SKIP:.*]] = tg.relu %[[BN]] :
// CHECK: tg.concat %{{.*}}, %[[SKIP]]
// CHECK: %[[BNX:[^,]*]], {{.*}} = tg.batch_norm %[[C1]], {{.*}} {memopt.recompute}
// CHECK-NEXT: %[[SKIPX:.*]] = tg.relu %[[BNX]] {memopt.recompute}
// CHECK-NEXT: tg.max_pool_backward %{{.*}}, %[[SKIPX]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// SCHED-LABEL: func.func @train_step
// SCHED: tg.batch_norm {{.*}} {memopt.recompute}
// SCHED-NEXT: tg.relu {{.*}} {memopt.recompute}
// SCHED-NEXT: tg.max_pool_backward

// sqrt must store the skip (it crosses segments) and recomputes 5.6 times
// the FLOPs for a higher peak.
// SQRT-LABEL: func.func @train_step
// SQRT-SAME: flops_added = 5792,

// The smallest budget (that of auto's greedy, here): the program, whose
// model of the clones' bytes is conservative (the plain step's order, the
// clones' operands live from their stages' start) and which recomputes a
// value at most once, finds no plan whose real arena fits, so the
// greedy's smallest plan is taken, with status "greedy": it nests, the
// encoder conv recomputed twice (remat-auto.mlir's NESTED).
// SMALLEST-LABEL: func.func @train_step
// SMALLEST-SAME: planned_arena_bytes = 2176,
// SMALLEST-SAME: status = "greedy"
// SMALLEST-SAME: nested_values = 1,
// SMALLEST: %[[C1X:.*]] = tg.conv %[[X:arg0]], %[[W1:[^ ]*]] {memopt.recompute,
// SMALLEST-NEXT: %[[BNX:[^,]*]], {{.*}} = tg.batch_norm %[[C1X]], {{.*}} {memopt.recompute}
// SMALLEST-NEXT: tg.relu %[[BNX]] {memopt.recompute}
// SMALLEST: %[[AGAIN:.*]] = tg.conv %[[X]], %[[W1]] {memopt.recompute,
// SMALLEST-NEXT: tg.batch_norm_backward %{{.*}}, %[[AGAIN]]

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
