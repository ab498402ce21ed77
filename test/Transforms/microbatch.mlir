// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-microbatch='microbatches=2 schedule=1f1b' | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-microbatch='microbatches=4 schedule=gpipe' | FileCheck %s --check-prefix=GPIPE
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=3 -tg-microbatch='microbatches=4 schedule=1f1b' | FileCheck %s --check-prefix=THREE
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=true' -tg-annotate-workspaces -tg-microbatch=microbatches=2 | FileCheck %s --check-prefix=ONE
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=true' -tg-annotate-workspaces -tg-partition=stages=2 -tg-microbatch=microbatches=2 -tg-schedule -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=PLAN
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-microbatch=microbatches=1 | FileCheck %s --check-prefix=SAME

// The U-Net in miniature of partition.mlir, compiled for a microbatch of
// one sample, in two stages, two microbatches, 1F1B. Stage 0 takes the
// whole batch (2 samples) and slices it per microbatch; with S = 2 its
// warm-up is one forward, so it runs F0 F1 B0 B1 and holds 2 microbatches.
// Microbatch 1's transfers take tag + 4 (the step has tags 0..3). Its
// BatchNorm reads the running statistics microbatch 0 updated; the
// gradients are summed in microbatch order and halved before the update.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK-SAME: %[[X:.*]]: tensor<2x2x8x8xf32> {tg.input = "input"}
// CHECK-SAME: %[[RM:[^:]*]]: tensor<2xf32> {tg.state = "bn.running_mean"}
// CHECK-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 2, order = "F0 F1 B0 B1", schedule = "1f1b", peak_bytes_gpipe = {{[0-9]+}}, peak_bytes_1f1b = {{[0-9]+}}>
// CHECK: %[[X0:.*]] = tg.slice %[[X]] {ends = array<i64: 1, 2, 8, 8>, starts = array<i64: 0, 0, 0, 0>
// CHECK-NEXT: tg.conv %[[X0]]
// CHECK-NEXT: %{{.*}}, %[[MEAN0:.*]], %[[VAR0:.*]], %{{.*}}, %{{.*}} = tg.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[RM]],
// CHECK: tg.send %{{.*}} to stage 1 tag 0 forward
// CHECK-NEXT: tg.send %{{.*}} to stage 1 tag 1 forward
// CHECK-NEXT: %[[X1:.*]] = tg.slice %[[X]] {ends = array<i64: 2, 2, 8, 8>, starts = array<i64: 1, 0, 0, 0>
// CHECK-NEXT: tg.conv %[[X1]]
// CHECK-NEXT: %{{.*}}, %[[MEAN1:.*]], %[[VAR1:.*]], %{{.*}}, %{{.*}} = tg.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %[[MEAN0]], %[[VAR0]]
// CHECK: tg.send %{{.*}} to stage 1 tag 4 forward
// CHECK-NEXT: tg.send %{{.*}} to stage 1 tag 5 forward
// CHECK-NEXT: tg.recv from stage 1 tag 2 :
// CHECK: tg.recv from stage 1 tag 3 :
// CHECK: %[[G0:.*]] = tg.conv_backward_filter %{{.*}}, %[[X0B:.*]] {
// CHECK: tg.recv from stage 1 tag 6 :
// CHECK: tg.recv from stage 1 tag 7 :
// CHECK: %[[G1:.*]] = tg.conv_backward_filter
// CHECK: %[[SUM:.*]] = tg.add %[[G0]], %[[G1]] : (tensor<2x2x3x3xf32>
// CHECK: tg.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[MEAN:.*]] = tg.mul %[[SUM]], %{{.*}} : (tensor<2x2x3x3xf32>, tensor<f32>)
// CHECK: tg.sgd_update %{{.*}}, %[[MEAN]]
// CHECK: return {{.*}}, %[[MEAN1]], %[[VAR1]] :

// Stage 1 (the last) alternates from the start. Its send of microbatch 0's
// gradients would meet stage 0's send of microbatch 1's activations (both
// blocking): it is postponed after the receives of microbatch 1, the order
// in which stage 0 performs them. The loss is the microbatches' mean, the
// output their concatenation.
// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-SAME: tensor<2x2x8x8xf32> {tg.target = "target"}
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<2x2x8x8xf32> {tg.output = "output"}
// CHECK-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1",
// CHECK: tg.recv from stage 0 tag 0 forward
// CHECK-NEXT: tg.recv from stage 0 tag 1 forward
// CHECK: %[[OUT0:.*]] = tg.conv
// CHECK: %[[LOSS0:.*]] = tg.mse_loss %[[OUT0]]
// CHECK: tg.mse_loss_backward
// CHECK: tg.resize_backward
// CHECK-NEXT: tg.recv from stage 0 tag 4 forward
// CHECK-NEXT: tg.recv from stage 0 tag 5 forward
// CHECK-NEXT: tg.send %{{.*}} to stage 0 tag 2 :
// CHECK-NEXT: tg.send %{{.*}} to stage 0 tag 3 :
// CHECK: %[[OUT1:.*]] = tg.conv
// CHECK: %[[LOSS1:.*]] = tg.mse_loss %[[OUT1]]
// CHECK: %[[LOSSES:.*]] = tg.add %[[LOSS0]], %[[LOSS1]] : (tensor<f32>, tensor<f32>)
// CHECK: tg.send %{{.*}} to stage 0 tag 6 :
// CHECK-NEXT: tg.send %{{.*}} to stage 0 tag 7 :
// CHECK: %[[OUT:.*]] = tg.concat %[[OUT0]], %[[OUT1]] {axis = 0 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK-NEXT: %[[HALF1:.*]] = tg.constant dense<5.000000e-01>
// CHECK-NEXT: %[[LOSS:.*]] = tg.mul %[[LOSSES]], %[[HALF1]]
// CHECK: return %[[LOSS]], %[[OUT]],

// GPipe: all forwards, then all backwards; every stage holds all 4
// microbatches, and records what 1F1B would have held instead.
// GPIPE-LABEL: func.func @train_step_stage0(
// GPIPE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 4, order = "F0 F1 F2 F3 B0 B1 B2 B3", schedule = "gpipe", peak_bytes_gpipe = [[PGPIPE:[0-9]+]], peak_bytes_1f1b = [[P1F1B:[0-9]+]]>
// GPIPE: tg.send %{{.*}} to stage 1 tag 12 forward
// GPIPE-NEXT: tg.send %{{.*}} to stage 1 tag 13 forward
// GPIPE-NEXT: tg.recv from stage 1 tag 2 :
// GPIPE-LABEL: func.func @train_step_stage1(
// GPIPE-SAME: order = "F0 F1 F2 F3 B0 B1 B2 B3"

// 1F1B on three stages: stage i warms up with 2 - i forwards and holds
// min(4, 3 - i) microbatches.
// THREE-LABEL: func.func @train_step_stage0(
// THREE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 3, order = "F0 F1 F2 B0 F3 B1 B2 B3",
// THREE-LABEL: func.func @train_step_stage1(
// THREE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 2, order = "F0 F1 B0 F2 B1 F3 B2 B3",
// THREE-LABEL: func.func @train_step_stage2(
// THREE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 1, order = "F0 B0 F1 B1 F2 B2 F3 B3",

// One process: gradient accumulation, one microbatch after the other, and
// no schedule to choose. The evaluation step runs its microbatches' forwards
// and returns the mean loss and the whole batch's output.
// ONE-LABEL: func.func @train_step(
// ONE-SAME: tensor<2x2x8x8xf32> {tg.input = "input"}
// ONE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1">
// ONE-LABEL: func.func @eval_step(
// ONE-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<2x2x8x8xf32> {tg.output = "output"})
// ONE-SAME: memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 2, order = "F0 F1">
// ONE: tg.batch_norm_inference
// ONE: tg.batch_norm_inference
// ONE: tg.add
// ONE-NEXT: tg.concat %{{.*}}, %{{.*}} {axis = 0 : i64}

// The memory plan takes the microbatched stages as they are.
// PLAN-LABEL: func.func @train_step_stage0(
// PLAN-SAME: !mbuf.view<2x2x8x8xf32> {tg.input = "input"}
// PLAN-LABEL: func.func @train_step_stage1(
// PLAN-LABEL: func.func @eval_step_stage0(
// PLAN-SAME: order = "F0 F1"

// microbatches=1 leaves the module alone.
// SAME-NOT: memopt.microbatch
// SAME: func.func @train_step(%{{.*}}: tensor<1x2x8x8xf32>
// SAME-NOT: memopt.microbatch

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
