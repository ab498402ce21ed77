// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -tg-amp=mode=fp16 -tg-autodiff='loss=ce+dice optimizer=sgd scaled-seed=true eval-step=true' -canonicalize -tg-loss-scale | FileCheck %s

// fp16 loss scaling of a loss of several terms (nnU-Net's ce+dice, built
// from tg ops): tg-autodiff seeds the backward with the loss_scale
// argument, so the Dice term's gradients are scaled as the cross-entropy's
// are; tg-loss-scale adds no second argument and rewrites the updates.
// The evaluation step takes the same arguments, the scale once.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {tg.loss_scale = "loss_scale"})
// CHECK: tg.neg %[[S]] : tensor<f32>
// CHECK: tg.cross_entropy_loss_backward %[[S]],
// CHECK: %[[D:.*]] = tg.add %[[S]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[U:.*]] = tg.div %{{.*}}, %[[D]]
// CHECK: tg.sgd_update %{{.*}}, %[[U]] {tg.skip_nonfinite}
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: tensor<f32> {tg.loss_scale = "loss_scale"}) ->
func.func @main(%x: tensor<2x1x4x4x4xf32> {tg.input = "input"},
                %w: tensor<3x1x3x3x3xf32> {tg.param = "w"})
    -> (tensor<2x3x4x4x4xf32> {tg.output = "output"}) {
  %y = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>} : (tensor<2x1x4x4x4xf32>, tensor<3x1x3x3x3xf32>) -> tensor<2x3x4x4x4xf32>
  return %y : tensor<2x3x4x4x4xf32>
}
