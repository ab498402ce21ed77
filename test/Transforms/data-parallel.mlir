// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd momentum=0.9 eval-step=true' -tg-data-parallel=replicas=2 | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=adam eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-data-parallel=replicas=2 | FileCheck %s --check-prefix=STAGES
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-data-parallel=replicas=2 -tg-annotate-workspaces -tg-schedule -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=MBUF
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-data-parallel=replicas=1 | FileCheck %s --check-prefix=ONE
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=adam eval-step=true' -tg-data-parallel='replicas=4 zero=true' | FileCheck %s --check-prefix=ZERO
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=adam eval-step=false' -tg-data-parallel='replicas=4 zero=true' -tg-annotate-workspaces -tg-schedule -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=ZERO-MBUF

// Every gradient an update reads is averaged over the replicas right after
// the op that computes it; the running statistics right after the
// BatchNorm that computes them; the loss before the return. The evaluation
// step updates nothing and is left alone.
// CHECK: module attributes {memopt.data_parallel = 2 : i64
// CHECK-LABEL: func.func @train_step(
// CHECK: %{{.*}}, %[[NM:[^,]*]], %[[NV:[^,]*]], %{{.*}}, %{{.*}} = tg.batch_norm
// CHECK-NEXT: %[[MEAN:.*]] = tg.all_reduce %[[NM]] over 2 : tensor<2xf32>
// CHECK-NEXT: %[[VAR:.*]] = tg.all_reduce %[[NV]] over 2 : tensor<2xf32>
// CHECK: %[[LOSS:.*]] = tg.mse_loss
// CHECK: %[[DEC:.*]] = tg.conv_backward_filter
// CHECK-NEXT: %[[G:.*]] = tg.all_reduce %[[DEC]] over 2 : tensor<2x2x3x3xf32>
// CHECK: %{{.*}}, %[[GSCALE:[^,]*]], %[[GBIAS:[^,]*]] = tg.batch_norm_backward
// CHECK-NEXT: %[[AB:.*]] = tg.all_reduce %[[GBIAS]] over 2
// CHECK-NEXT: %[[AS:.*]] = tg.all_reduce %[[GSCALE]] over 2
// CHECK: tg.sgd_update %{{.*}}, %[[AS]], %{{.*}}, step
// CHECK-NEXT: tg.sgd_update %{{.*}}, %[[AB]], %{{.*}}, step
// CHECK-NEXT: tg.sgd_update
// CHECK-NEXT: tg.sgd_update %{{.*}}, %[[G]], %{{.*}}, step
// CHECK: %[[LMEAN:.*]] = tg.all_reduce %[[LOSS]] over 2 : tensor<f32>
// CHECK-NEXT: return %[[LMEAN]], %{{.*}}, %[[MEAN]], %[[VAR]]
// CHECK-LABEL: func.func @eval_step(
// CHECK-NOT: tg.all_reduce
// CHECK: return

// With stages, each stage averages what it owns: the stage with the
// BatchNorm its statistics, the stage with the loss the loss.
// STAGES-LABEL: func.func @train_step_stage0(
// STAGES: tg.batch_norm
// STAGES-NEXT: tg.all_reduce
// STAGES-NEXT: tg.all_reduce
// STAGES: %[[G0:.*]] = tg.all_reduce %{{.*}} over 2
// STAGES: tg.adam_update %{{.*}}, %[[G0]],
// STAGES-LABEL: func.func @train_step_stage1(
// STAGES: %[[G1:.*]] = tg.all_reduce %{{.*}} over 2
// STAGES: tg.adam_update %{{.*}}, %[[G1]],
// STAGES: tg.all_reduce %{{.*}} over 2 : tensor<f32>
// STAGES-NEXT: return

// Planned: the mean is written over the gradient it averages (in place),
// and a running statistic's straight into the step's result buffer.
// MBUF-LABEL: func.func @train_step(
// MBUF: mbuf.kernel ins(%{{.*}} : !mbuf.view<2xf32>) outs(%{{.*}} : !mbuf.view<2xf32>) {
// MBUF-NEXT: ^bb0(%[[STAT:.*]]: tensor<2xf32>):
// MBUF-NEXT: tg.all_reduce %[[STAT]] over 2
// MBUF: mbuf.kernel ins(%{{.*}} : !mbuf.view<2x2x3x3xf32>) outs(%{{.*}} : !mbuf.view<2x2x3x3xf32>) attributes {tied_operands = array<i64: 0>} {
// MBUF-NEXT: ^bb0(%[[ARG:.*]]: tensor<2x2x3x3xf32>):
// MBUF-NEXT: tg.all_reduce %[[ARG]] over 2

// zero: each of the 4 replicas keeps a quarter of the optimizer state
// (ceil(36 / 4) = 9 elements of each 2x2x3x3 weight's, ceil(2 / 4) = 1 of
// each BatchNorm vector's) and updates its part of the parameter, read from
// the parameter and the averaged gradient; the whole parameter is gathered
// back. The evaluation step takes the same arguments.
// ZERO-LABEL: func.func @train_step(
// ZERO-SAME: tensor<9xf32> {tg.opt_state = "enc.weight.exp_avg"}
// ZERO-SAME: tensor<1xf32> {tg.opt_state = "bn.weight.exp_avg"}
// ZERO-SAME: -> (
// ZERO-SAME: tensor<9xf32> {tg.opt_state = "enc.weight.exp_avg"}
// ZERO: tg.all_reduce %grad_scale over 4 : tensor<2xf32>
// ZERO: %[[G:.*]] = tg.all_reduce %{{.*}} over 4 : tensor<2x2x3x3xf32>
// ZERO-NEXT: %[[PP:.*]] = tg.shard %{{.*}} over 4 : tensor<2x2x3x3xf32> -> tensor<9xf32>
// ZERO-NEXT: %[[GP:.*]] = tg.shard %[[G]] over 4 : tensor<2x2x3x3xf32> -> tensor<9xf32>
// ZERO-NEXT: %[[NP:[^,]*]], %{{.*}}, %{{.*}} = tg.adam_update %[[PP]], %[[GP]], %{{.*}}, %{{.*}}, step %{{.*}} : tensor<9xf32>
// ZERO-NEXT: %[[W:.*]] = tg.all_gather %[[NP]] over 4 : tensor<9xf32> -> tensor<2x2x3x3xf32>
// ZERO: return %{{.*}}, %{{.*}}, %[[W]],
// ZERO-LABEL: func.func @eval_step(
// ZERO-SAME: tensor<9xf32> {tg.opt_state = "enc.weight.exp_avg"}
// ZERO-NOT: tg.shard
// ZERO: return

// Planned: the gathered parameter is written straight into its result
// buffer (the parameter's own, which every reader has read by then).
// ZERO-MBUF-LABEL: func.func @train_step(
// ZERO-MBUF: %[[R:.*]] = mbuf.result 2 : !mbuf.view<2x2x3x3xf32>
// ZERO-MBUF-NEXT: mbuf.kernel ins(%{{.*}} : !mbuf.view<9xf32>) outs(%[[R]] : !mbuf.view<2x2x3x3xf32>)
// ZERO-MBUF-NEXT: ^bb0(%[[PART:.*]]: tensor<9xf32>):
// ZERO-MBUF-NEXT: tg.all_gather %[[PART]] over 4

// replicas=1 leaves the module alone.
// ONE-NOT: memopt.data_parallel
// ONE-NOT: tg.all_reduce

func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r2 = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
