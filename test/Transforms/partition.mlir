// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-schedule -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=MBUF
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-partition=stages=1 | FileCheck %s --check-prefix=ONE
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=true' -tg-annotate-workspaces -tg-partition=stages=2 | FileCheck %s --check-prefix=EVAL
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition='stages=2 microbatches=4 schedule=gpipe' | FileCheck %s --check-prefix=PIPE
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 -tg-remat=strategy=sqrt | FileCheck %s --check-prefix=REMAT
// RUN: env OMP_NUM_THREADS=3 memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd eval-step=false' -tg-annotate-workspaces -tg-partition=stages=2 | FileCheck %s --check-prefix=THREADS

// Every stage keeps the thread count its ops' oneDNN workspaces were sized
// for (the step's), so that each stage's process runs on as many.
// THREADS-LABEL: func.func @train_step_stage0(
// THREADS-SAME: memopt.workspace_threads = 3 : i64
// THREADS-LABEL: func.func @train_step_stage1(
// THREADS-SAME: memopt.workspace_threads = 3 : i64

// The passes after tg-partition work per stage: the forward ops a stage
// sends to another (tg.send ... forward) are forward ops of that stage, so
// tg-remat recomputes in stage 0's backward.
// REMAT-LABEL: func.func @train_step_stage0(
// REMAT-SAME: memopt.remat = #memopt.remat<strategy = "sqrt", {{.*}}>
// REMAT: tg.conv %{{.*}} {memopt.recompute,
// REMAT-LABEL: func.func @train_step_stage1(

// With microbatches a stage's cost is its peak once tg-microbatch runs
// them: under GPipe each stage holds all 4 microbatches' activations, and
// the balanced cut moves one op later than for one microbatch (0, 7).
// PIPE-LABEL: func.func @train_step_stage0(
// PIPE-SAME: memopt.stage = #memopt.stage<index = 0, stages = 2, of = "train_step", forward_end = 8,
// PIPE-LABEL: func.func @train_step_stage1(
// PIPE-SAME: memopt.stage = #memopt.stage<index = 1, stages = 2, of = "train_step", forward_begin = 8, forward_end = 10,

// The evaluation step updates nothing: it takes the training step's cuts,
// so each parameter stays on the stage that owns it (stage 1 starts at the
// first forward op that reads dec.weight).
// EVAL-LABEL: func.func @train_step_stage0(
// EVAL-LABEL: func.func @train_step_stage1(
// EVAL-LABEL: func.func @eval_step_stage0(
// EVAL-SAME: {tg.param = "mid.weight"}
// EVAL-NOT: dec.weight
// EVAL-SAME: of = "eval_step"
// EVAL: tg.concat
// EVAL: tg.send
// EVAL-LABEL: func.func @eval_step_stage1(
// EVAL-SAME: {tg.param = "dec.weight"}
// EVAL-NEXT: tg.recv from stage 0 tag 0 forward : tensor<1x4x8x8xf32>
// EVAL-NEXT: tg.conv

// stages=1 leaves the step alone.
// ONE-NOT: memopt.stage
// ONE: func.func @train_step(
// ONE-NOT: memopt.stage

// A U-Net in miniature (encoder conv+BN+ReLU whose output is the skip,
// pool, bottleneck conv+ReLU, upsampling, concat with the skip, decoder
// conv). The balanced cut puts the encoder and the bottleneck on stage 0
// and the decoder and the loss on stage 1: the upsampled bottleneck and the
// skip cross the cut forward, their gradients backward. Each stage owns the
// parameters of its layers (read, updated and returned there); the target
// goes where the loss is.
// CHECK-LABEL: func.func @train_step_stage0(
// CHECK-SAME: {tg.input = "input"}
// CHECK-SAME: {tg.param = "enc.weight"}
// CHECK-SAME: {tg.param = "mid.weight"}
// CHECK-SAME: {tg.state = "bn.running_var"}
// CHECK-SAME: -> (
// CHECK-NOT: dec.weight
// CHECK-SAME: memopt.stage = #memopt.stage<index = 0, stages = 2, of = "train_step", forward_end = 7, persistent_bytes = {{[0-9]+}}, simulated_peak_bytes = {{[0-9]+}}, seconds = {{.*}} : f64, send_bytes = 1024>
// CHECK: %[[SKIP:.*]] = tg.relu %{{.*}} : tensor<1x2x8x8xf32>
// CHECK: %[[UP:.*]] = tg.resize
// CHECK-NEXT: tg.send %[[UP]] to stage 1 tag 0 forward : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.send %[[SKIP]] to stage 1 tag 1 forward : tensor<1x2x8x8xf32>
// CHECK-NEXT: %[[DUP:.*]] = tg.recv from stage 1 tag 2 : tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.relu_backward %[[DUP]]
// CHECK: %[[DSKIP:.*]] = tg.recv from stage 1 tag 3 : tensor<1x2x8x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = tg.add %[[DSKIP]], %{{.*}}
// CHECK-NEXT: tg.relu_backward %[[SUM]], %[[SKIP]]
// CHECK: tg.sgd_update
// CHECK-NOT: tg.send
// CHECK: return

// CHECK-LABEL: func.func @train_step_stage1(
// CHECK-SAME: {tg.target = "target"}
// CHECK-SAME: {tg.param = "dec.weight"}
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<1x2x8x8xf32> {tg.output = "output"}, tensor<2x4x3x3xf32> {tg.param = "dec.weight"})
// CHECK-SAME: memopt.stage = #memopt.stage<index = 1, stages = 2, of = "train_step", forward_begin = 7, forward_end = 10,
// CHECK-SAME: send_bytes = 640>
// CHECK-NEXT: %[[UP1:.*]] = tg.recv from stage 0 tag 0 forward : tensor<1x2x8x8xf32>
// CHECK-NEXT: %[[SKIP1:.*]] = tg.recv from stage 0 tag 1 forward : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.concat %[[UP1]], %[[SKIP1]]
// CHECK: tg.mse_loss
// CHECK: %[[DCAT:.*]] = tg.conv_backward_data
// CHECK: %[[DUPS:.*]] = tg.slice %[[DCAT]] {ends = array<i64: 1, 2, 8, 8>
// CHECK-NEXT: %[[DSKIPS:.*]] = tg.slice %[[DCAT]] {ends = array<i64: 1, 4, 8, 8>
// CHECK-NEXT: %[[DUP1:.*]] = tg.resize_backward %[[DUPS]]
// CHECK-NEXT: tg.send %[[DUP1]] to stage 0 tag 2 : tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.send %[[DSKIPS]] to stage 0 tag 3 : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.sgd_update
// CHECK-NOT: tg.recv
// CHECK: return
// CHECK-NOT: func.func @train_step(

// Planned per stage: each stage's arena on its own device, the transfers
// as mbuf.send/recv awaited before the next op; the skip received straight
// into its slice of the concat.
// MBUF-LABEL: func.func @train_step_stage0(
// MBUF: %[[A0:.*]] = mbuf.arena 0 size {{[0-9]+}} on device 0
// MBUF: %[[T0:.*]] = mbuf.send %{{.*}} to device 1 tag 0 : !mbuf.view<1x2x8x8xf32>
// MBUF-NEXT: mbuf.wait %[[T0]]
// MBUF: %[[T2:.*]] = mbuf.recv %{{.*}} from device 1 tag 2 : !mbuf.view<1x2x4x4xf32>
// MBUF-NEXT: mbuf.wait %[[T2]]
// MBUF-LABEL: func.func @train_step_stage1(
// MBUF: %[[A1:.*]] = mbuf.arena 0 size {{[0-9]+}} on device 1
// MBUF: %[[CAT:.*]] = mbuf.view %[[A1]][{{[0-9]+}}] {{.*}} -> !mbuf.view<1x4x8x8xf32>
// MBUF: %[[SLICE:.*]] = mbuf.subview %[[CAT]]
// MBUF-NEXT: %[[R0:.*]] = mbuf.recv %[[SLICE]] from device 0 tag 0
// MBUF-NEXT: mbuf.wait %[[R0]]

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
