// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -tg-amp=mode=fp16 -tg-autodiff='loss=mse optimizer=adam' -canonicalize -tg-loss-scale | FileCheck %s

// fp16 loss scaling: the loss's backward is seeded with the new loss_scale
// argument, the updates come last, after the finiteness test of both
// weight gradients, and take their gradient divided by scale + 0 * sum.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"}
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {tg.loss_scale = "loss_scale"})
// CHECK-NOT: tg.constant dense<1.0
// CHECK: tg.mse_loss_backward %[[S]],
// CHECK: %[[G2:.*]] = tg.cast %{{.*}} : tensor<2x2x3x3xf16> to tensor<2x2x3x3xf32>
// CHECK: %[[G1:.*]] = tg.cast %{{.*}} : tensor<2x2x3x3xf16> to tensor<2x2x3x3xf32>
// CHECK: %[[S1:.*]] = tg.reduce_sum %[[G1]] {keepdims = false} : (tensor<2x2x3x3xf32>) -> tensor<f32>
// CHECK: %[[S2:.*]] = tg.reduce_sum %[[G2]] {keepdims = false} : (tensor<2x2x3x3xf32>) -> tensor<f32>
// CHECK: %[[SUM:.*]] = tg.add %[[S1]], %[[S2]]
// CHECK: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[POISON:.*]] = tg.mul %[[SUM]], %[[ZERO]]
// CHECK: %[[D:.*]] = tg.add %[[S]], %[[POISON]]
// CHECK: %[[U1:.*]] = tg.div %[[G1]], %[[D]]
// CHECK: %[[U2:.*]] = tg.div %[[G2]], %[[D]]
// CHECK: tg.adam_update %{{.*}}, %[[U1]], %{{.*}}, %{{.*}}, step %[[STEP]] {tg.skip_nonfinite}
// CHECK-NEXT: tg.adam_update %{{.*}}, %[[U2]], %{{.*}}, %{{.*}}, step %[[STEP]] {tg.skip_nonfinite}
// CHECK-NEXT: return
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tg.relu %c1 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}
