// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto budget=5800' | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto budget=100000' | FileCheck %s --check-prefix=PLAIN

// A U-Net in miniature whose concat is read late in the backward (two
// conv+ReLU layers follow the decoder conv), on cuda (nothing in place).
// Persistent: 2468 bytes; the plain planned arena is 4224 bytes. Under a
// budget of 5800 bytes auto recomputes the concat with what it reads: the
// encoder conv (an expensive op: one shared clone), the skip ReLU, the pool,
// the bottleneck conv and ReLU, the resize. The clones of cheap recomputed
// operands serve the one clone that needs them (private): the concat's
// skip ReLU %[[SKIP1]] dies with it, and the skip's own backward readers
// later read their own clone %[[SKIP3]] rather than keeping %[[SKIP1]]
// alive across the decoder's backward.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = {budget_bytes = 5800 : i64, flops_added = 6464 : i64, persistent_bytes = 2468 : i64, planned_arena_bytes = 3200 : i64, recomputed_ops = 11 : i64, recomputed_values = 4 : i64
// CHECK: %[[DCAT:.*]] = tg.conv2d_backward_data %{{.*}}, %arg4
// CHECK-NEXT: %[[C1:.*]] = tg.conv2d %arg0, %arg2 {memopt.recompute
// CHECK-NEXT: %[[SKIP1:.*]] = tg.relu %[[C1]] {memopt.recompute}
// CHECK-NEXT: %[[P1:.*]] = tg.max_pool2d %[[SKIP1]] {{.*}}memopt.recompute
// CHECK-NEXT: %[[C2:.*]] = tg.conv2d %[[P1]], %arg3 {memopt.recompute
// CHECK-NEXT: %[[R2:.*]] = tg.relu %[[C2]] {memopt.recompute}
// CHECK-NEXT: %[[UP:.*]] = tg.resize %[[R2]] {{.*}}memopt.recompute
// CHECK-NEXT: %[[CAT:.*]] = tg.concat %[[UP]], %[[SKIP1]] {axis = 1 : i64, memopt.recompute}
// CHECK-NEXT: tg.conv2d_backward_filter %{{.*}}, %[[CAT]]
// CHECK: %[[R2X:.*]] = tg.relu %[[C2]] {memopt.recompute}
// CHECK-NEXT: tg.relu_backward %{{.*}}, %[[R2X]]
// CHECK: %[[SKIP2:.*]] = tg.relu %[[C1]] {memopt.recompute}
// CHECK-NEXT: %[[P2:.*]] = tg.max_pool2d %[[SKIP2]] {{.*}}memopt.recompute
// CHECK-NEXT: tg.conv2d_backward_filter %{{.*}}, %[[P2]]
// CHECK-NEXT: %[[SKIP3:.*]] = tg.relu %[[C1]] {memopt.recompute}
// CHECK-NEXT: tg.max_pool2d_backward %{{.*}}, %[[SKIP3]]
// CHECK-NOT: memopt.recompute
// CHECK: tg.relu_backward %{{.*}}, %[[SKIP3]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// A budget at the plain predicted peak recomputes nothing.
// PLAIN: planned_arena_bytes = 4224 : i64, recomputed_ops = 0 : i64
// PLAIN-NOT: memopt.recompute
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3xf32> {tg.param = "dec.weight"},
                %w4: tensor<2x2x3x3xf32> {tg.param = "head.weight"},
                %w5: tensor<2x2x3x3xf32> {tg.param = "out.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv2d %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %skip = tg.relu %c1 : tensor<1x2x8x8xf32>
  %p = tg.max_pool2d %skip {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tg.conv2d %p, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = tg.conv2d %cat, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r3 = tg.relu %c3 : tensor<1x2x8x8xf32>
  %c4 = tg.conv2d %r3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r4 = tg.relu %c4 : tensor<1x2x8x8xf32>
  %c5 = tg.conv2d %r4, %w5 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c5 : tensor<1x2x8x8xf32>
}
