// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=5700' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=100000' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=PLAIN
// RUN: not memopt-opt %s -memopt-set-target='target=cuda budget=5667' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=SMALLEST

// A U-Net in miniature whose concat is read late in the backward (two
// conv+ReLU layers follow the decoder conv), on cuda, where nothing is
// written in place, so the concat is a buffer of its own from the forward
// to the decoder conv's backward. Persistent: 2468 bytes; the plain
// planned arena is 4032 bytes. Under a budget of 5700 bytes auto
// recomputes the concat and the resize under it (no FLOPs: copies) from
// the stored bottleneck ReLU and skip, right before the decoder conv's
// filter gradient; after pruning (the greedy's earlier picks that the
// arena no longer needs are stored again) nothing else is recomputed.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5700, persistent_bytes = 2468, planned_arena_bytes = 3008, {{.*}}recomputed_values = 1, recomputed_ops = 2, {{.*}}flops_added = 0,
// CHECK: %[[SKIP:.*]] = tg.relu %{{.*}} : tensor<1x2x8x8xf32>
// CHECK: %[[R2:.*]] = tg.relu %{{.*}} : tensor<1x2x4x4xf32>
// CHECK: %[[DCAT:.*]] = tg.conv_backward_data %{{.*}}, %arg4
// CHECK-NEXT: %[[UP:.*]] = tg.resize %[[R2]] {{.*}}memopt.recompute
// CHECK-NEXT: %[[CAT:.*]] = tg.concat %[[UP]], %[[SKIP]] {axis = 1 : i64, memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[CAT]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// A budget at the plain predicted peak recomputes nothing.
// PLAIN: planned_arena_bytes = 4032, recomputed_values = 0, recomputed_ops = 0,
// PLAIN-NOT: memopt.recompute

// One byte below the smallest budget auto reaches: the error names it.
// SMALLEST: error: tg-remat: the step does not fit --budget=5667 bytes: the smallest peak remat=auto reaches is 5668 bytes (--budget=5668)
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3xf32> {tg.param = "dec.weight"},
                %w4: tensor<2x2x3x3xf32> {tg.param = "head.weight"},
                %w5: tensor<2x2x3x3xf32> {tg.param = "out.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %skip = tg.relu %c1 : tensor<1x2x8x8xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r3 = tg.relu %c3 : tensor<1x2x8x8xf32>
  %c4 = tg.conv %r3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r4 = tg.relu %c4 : tensor<1x2x8x8xf32>
  %c5 = tg.conv %r4, %w5 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c5 : tensor<1x2x8x8xf32>
}
