// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -convert-tg-to-emitc | FileCheck %s

// The pass plans nothing itself: it emits the plan recorded in the IR, here
// written by hand (a workspace at 128, the relu over its input).
// CHECK-LABEL: module attributes {memopt.arena_bytes = 256 : i64, memopt.target = #memopt.target<cpu>}
// CHECK: "memopt::rt::Tensor conv_c = memopt::rt::arenaTensor(arena, 64, {1, 1, 4, 4});"
// CHECK: memopt::rt::conv2d{{.*}}#emitc.opaque<"memopt::rt::arenaWorkspace(arena, 128)">
// CHECK: "memopt::rt::Tensor relu_r = memopt::rt::arenaTensor(arena, 64, {1, 1, 4, 4});"
// CHECK: /*arenaBytes=*/256
func.func @train_step(%x: tensor<1x1x4x4xf32> {tg.input = "input"},
                      %w: tensor<1x1x1x1xf32> {tg.param = "w"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x4x4xf32> {tg.output = "out"})
    attributes {memopt.arena_bytes = 256 : i64} {
  %0 = tg.conv2d %x, %w {memopt.offsets = array<i64: 64>, memopt.workspace = array<i64: 128, 100>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32> loc("/c/Conv")
  %1 = tg.relu %0 {memopt.offsets = array<i64: 64>, memopt.in_place = array<i64: 0>} : tensor<1x1x4x4xf32> loc("/r/Relu")
  %2 = tg.neg %1 {memopt.offsets = array<i64: -1>} : tensor<1x1x4x4xf32>
  return %loss, %2 : tensor<f32>, tensor<1x1x4x4xf32>
}

// -----

// Without a plan (or with an unsafe one) the pass fails before it emits.
// expected-error @+1 {{memory plan: the function has no 'memopt.arena_bytes'; run -tg-plan-memory first}}
func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  %y = tg.relu %x : tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}
