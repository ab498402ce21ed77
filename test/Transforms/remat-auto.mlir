// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto -tg-schedule | FileCheck %s --check-prefix=SCHED
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=6116' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=PLAIN
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4580' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=SMALLEST
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4324' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=NESTED
// RUN: memopt-opt %s -memopt-set-target='target=cpu device="cpu,memory=5100"' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=DEVICE

// The U-Net in miniature of remat.mlir (encoder conv+BN+ReLU whose output
// is the skip, pool, bottleneck conv+ReLU, upsampling, concat with the
// skip, decoder conv). Persistent: 2148 bytes (weights, BatchNorm state,
// input, output); without recomputation the schedule's planned arena is
// 3968 bytes, so the predicted peak is 6116 bytes.
//
// Under a budget of 5100 bytes (an arena of 2952), recomputing the skip
// meets it: the ReLU and the BatchNorm under it, cheap ops (the clone
// normalizes with the saved statistics) read from the stored conv output,
// 1032 FLOPs for 1024 arena bytes. sqrt, which must store the skip (a
// segment boundary), recomputes 5792 FLOPs for a larger peak.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5100, persistent_bytes = 2148, planned_arena_bytes = 2944, rounds = 1, recomputed_values = 1, recomputed_ops = 2, stored_values = {{[0-9]+}}, flops_added = 1032, seconds_added = {{[-+.0-9Ee]+}} : f64, simulated_peak_bytes_before = 4288, simulated_peak_bytes_after = 3776>
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK-NEXT: %[[BN:[^,]*]], %{{.*}}, %{{.*}}, %[[MEAN:[^,]*]], %[[INVSTD:[^ ]*]] = tg.batch_norm %[[C1]]
// CHECK-NEXT: %[[SKIP:.*]] = tg.relu %[[BN]]
// CHECK: tg.concat %{{.*}}, %[[SKIP]]
// CHECK: %[[BNX:[^,]*]], {{.*}} = tg.batch_norm %[[C1]], %{{.*}}, %{{.*}}, %[[MEAN]], %[[INVSTD]] {memopt.recompute}
// CHECK-NEXT: %[[SKIPX:.*]] = tg.relu %[[BNX]] {memopt.recompute}
// CHECK-NEXT: tg.max_pool_backward %{{.*}}, %[[SKIPX]]
// CHECK-NOT: memopt.recompute
// CHECK: tg.relu_backward %{{.*}}, %[[SKIPX]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// The schedule keeps the clones right before their first reader.
// SCHED: tg.batch_norm {{.*}}{memopt.recompute}
// SCHED-NEXT: tg.relu {{.*}}{memopt.recompute}
// SCHED-NEXT: tg.max_pool_backward

// A budget at the plain predicted peak recomputes nothing.
// PLAIN: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 6116, {{.*}}planned_arena_bytes = 3968, recomputed_values = 0, recomputed_ops = 0, {{.*}}flops_added = 0,
// PLAIN-NOT: memopt.recompute

// The smallest budget auto reaches here (remat-auto-invalid.mlir names
// it): the greedy recomputes the skip, the bottleneck ReLU and conv, and
// then the encoder conv; pruning stores the bottleneck again (the arena
// fits without it), leaving the encoder conv, BatchNorm and ReLU.
// SMALLEST: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 4580, {{.*}}planned_arena_bytes = 2432, {{.*}}recomputed_values = 2, recomputed_ops = 3, {{.*}}flops_added = 5640,
// SMALLEST: tg.conv %arg0, %{{[^ ]*}} {memopt.recompute
// SMALLEST-NEXT: tg.batch_norm {{.*}}{memopt.recompute}
// SMALLEST-NEXT: tg.relu {{.*}}{memopt.recompute}
// SMALLEST-NOT: memopt.recompute

// The smallest budget auto reaches here (remat-auto-invalid.mlir names
// it) nests: the encoder conv is recomputed twice, once privately for the
// BatchNorm, ReLU, pool and bottleneck clones that recreate the bottleneck
// ReLU (that conv clone dies at once), and again right before the
// BatchNorm backward, instead of one clone living from the first to the
// second (docs/passes/remat.md#nested-recomputation).
// NESTED: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 4324, {{.*}}planned_arena_bytes = 2176, {{.*}}nested_values = 1, flops_added = 11560,
// NESTED: tg.conv %arg0, %[[W:[^ ]*]] {memopt.recompute
// NESTED-NEXT: tg.batch_norm {{.*}}{memopt.recompute}
// NESTED-NEXT: tg.relu {{.*}}{memopt.recompute}
// NESTED-NEXT: tg.max_pool {{.*}}memopt.recompute
// NESTED-NEXT: tg.conv {{.*}}memopt.recompute
// NESTED-NEXT: tg.relu {{.*}}{memopt.recompute}
// NESTED: %[[AGAIN:.*]] = tg.conv %arg0, %[[W]] {memopt.recompute
// NESTED-NEXT: tg.batch_norm_backward %{{.*}}, %[[AGAIN]]
// NESTED-NOT: memopt.recompute

// Without a budget, the memory of the device.
// DEVICE: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5100, {{.*}}flops_added = 1032,
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
