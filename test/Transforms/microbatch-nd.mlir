// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-microbatch='microbatches=2 schedule=1f1b' | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-microbatch='microbatches=2 schedule=1f1b' -tg-schedule -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=PLAN

// tg-partition and tg-microbatch on volumetric (rank-5) and 1-D (rank-3)
// steps: the U-Net in miniature of microbatch.mlir with Conv3d/Conv1d,
// MaxPool3d/1d and a 3-D/1-D nearest upsampling, compiled for a microbatch
// of one sample, in two stages, two microbatches, 1F1B. The cut and the
// costs count every dimension: stage 0 sends the upsampled bottleneck and
// the skip (2 x 1x2x4x4x4 f32 = 1024 bytes), stage 1 their gradients (the
// bottleneck's before upsampling, 1x2x2x2x2, and the skip's: 64 + 512 =
// 576 bytes). The input and the target are sliced along the batch only,
// the BatchNorm of microbatch 1 reads the running statistics of microbatch
// 0, the gradients are summed in microbatch order and the output is the
// microbatches' concatenation along the batch.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x2x4x4x4xf32> {tg.input = "input"}
// CHECK-SAME: %[[RM:[^:]*]]: tensor<2xf32> {tg.state = "bn.running_mean"}
// CHECK-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 2, order = "F0 F1 B0 B1", schedule = "1f1b",
// CHECK-SAME: memopt.stage = #memopt.stage<index = 0, stages = 2, of = "train_step", forward_end = 7, {{.*}}send_bytes = 1024>
// CHECK: %[[X0:.*]] = tg.slice %[[X]] {ends = array<i64: 1, 2, 4, 4, 4>, starts = array<i64: 0, 0, 0, 0, 0>
// CHECK-NEXT: tg.conv %[[X0]]
// CHECK-NEXT: %{{.*}}, %[[MEAN0:.*]], %[[VAR0:.*]], %{{.*}}, %{{.*}} = tg.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[RM]],
// CHECK: tg.send %{{.*}} to stage 1 tag 0 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: tg.send %{{.*}} to stage 1 tag 1 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: %[[X1:.*]] = tg.slice %[[X]] {ends = array<i64: 2, 2, 4, 4, 4>, starts = array<i64: 1, 0, 0, 0, 0>
// CHECK-NEXT: tg.conv %[[X1]]
// CHECK-NEXT: %{{.*}}, %[[MEAN1:.*]], %[[VAR1:.*]], %{{.*}}, %{{.*}} = tg.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[MEAN0]], %[[VAR0]]
// CHECK: tg.send %{{.*}} to stage 1 tag 4 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: tg.send %{{.*}} to stage 1 tag 5 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: tg.recv from stage 1 tag 2 : tensor<1x2x2x2x2xf32>
// CHECK: tg.recv from stage 1 tag 3 : tensor<1x2x4x4x4xf32>
// CHECK: tg.recv from stage 1 tag 6 : tensor<1x2x2x2x2xf32>
// CHECK: tg.recv from stage 1 tag 7 : tensor<1x2x4x4x4xf32>
// CHECK: %[[SUM:.*]] = tg.add %{{.*}}, %{{.*}} : (tensor<2x2x3x3x3xf32>, tensor<2x2x3x3x3xf32>)
// CHECK: tg.sgd_update
// CHECK: return {{.*}}, %[[MEAN1]], %[[VAR1]] :
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-SAME: tensor<2x2x4x4x4xf32> {tg.target = "target"}
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<2x2x4x4x4xf32> {tg.output = "output"}
// CHECK-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1",
// CHECK-SAME: memopt.stage = #memopt.stage<index = 1, stages = 2, of = "train_step", forward_begin = 7, forward_end = 10, {{.*}}send_bytes = 576>
// CHECK: tg.recv from stage 0 tag 0 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: tg.recv from stage 0 tag 1 forward : tensor<1x2x4x4x4xf32>
// CHECK-NEXT: tg.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x4x4x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
// CHECK: tg.slice %{{.*}} {ends = array<i64: 1, 2, 4, 4, 4>, starts = array<i64: 0, 0, 0, 0, 0>
// CHECK: tg.send %{{.*}} to stage 0 tag 2 : tensor<1x2x2x2x2xf32>
// CHECK-NEXT: tg.send %{{.*}} to stage 0 tag 3 : tensor<1x2x4x4x4xf32>
// CHECK: tg.slice %{{.*}} {ends = array<i64: 2, 2, 4, 4, 4>, starts = array<i64: 1, 0, 0, 0, 0>
// CHECK: tg.send %{{.*}} to stage 0 tag 6 : tensor<1x2x2x2x2xf32>
// CHECK-NEXT: tg.send %{{.*}} to stage 0 tag 7 : tensor<1x2x4x4x4xf32>
// CHECK: %[[OUT:.*]] = tg.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x2x4x4x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<2x2x4x4x4xf32>
// CHECK: return %{{.*}}, %[[OUT]],

// The memory plan takes the volumetric stages as they are.
// PLAN-LABEL: func.func @train_step_stage0(
// PLAN-SAME: !mbuf.view<2x2x4x4x4xf32> {tg.input = "input"}
// PLAN-LABEL: func.func @train_step_stage1(
// PLAN-SAME: !mbuf.view<2x2x4x4x4xf32> {tg.target = "target"}

func.func @main(%x: tensor<1x2x4x4x4xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x4x4x4xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<2x2x3x3x3xf32>) -> tensor<1x2x4x4x4xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x4x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %skip = tg.relu %bn#0 : tensor<1x2x4x4x4xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>} : (tensor<1x2x2x2x2xf32>, tensor<2x2x3x3x3xf32>) -> tensor<1x2x2x2x2xf32>
  %r2 = tg.relu %c2 : tensor<1x2x2x2x2xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0, 2.0>, sizes = array<i64: 4, 4, 4>} : (tensor<1x2x2x2x2xf32>) -> tensor<1x2x4x4x4xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x4x4x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x4x4x4xf32>, tensor<2x4x3x3x3xf32>) -> tensor<1x2x4x4x4xf32>
  return %c3 : tensor<1x2x4x4x4xf32>
}

// -----

// The 1-D U-Net: the same cut, the sends counted over 3 dimensions (2 x
// 1x2x8 f32 = 128 bytes forward; 1x2x4 + 1x2x8 = 96 backward).
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x2x8xf32> {tg.input = "input"}
// CHECK-SAME: memopt.stage = #memopt.stage<index = 0, stages = 2, of = "train_step", forward_end = 7, {{.*}}send_bytes = 128>
// CHECK: tg.slice %[[X]] {ends = array<i64: 1, 2, 8>, starts = array<i64: 0, 0, 0>
// CHECK: tg.send %{{.*}} to stage 1 tag 0 forward : tensor<1x2x8xf32>
// CHECK: tg.slice %[[X]] {ends = array<i64: 2, 2, 8>, starts = array<i64: 1, 0, 0>
// CHECK: tg.recv from stage 1 tag 2 : tensor<1x2x4xf32>
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-SAME: memopt.stage = #memopt.stage<index = 1, stages = 2, of = "train_step", forward_begin = 7, forward_end = 10, {{.*}}send_bytes = 96>
// CHECK: tg.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> tensor<2x2x8xf32>
// PLAN-LABEL: func.func @train_step_stage0(
// PLAN-SAME: !mbuf.view<2x2x8xf32> {tg.input = "input"}

func.func @main(%x: tensor<1x2x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1>, strides = array<i64: 1>, dilations = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %skip = tg.relu %bn#0 : tensor<1x2x8xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1>, strides = array<i64: 1>, dilations = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0>, sizes = array<i64: 8>} : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> tensor<1x4x8xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1>, strides = array<i64: 1>, dilations = array<i64: 1>} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x8xf32>
  return %c3 : tensor<1x2x8xf32>
}
