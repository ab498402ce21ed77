// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s --check-prefix=ARENA
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPU

// target=cuda: every convolution gets the workspace of the CUDA backend's
// policy (memopt/Runtime/CUDA/ConvWorkspace.h: the largest tensor, at
// least 4 MiB) without a GPU; constants are copied into the arena, where
// the device kernels can read them.

func.func @train_step(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                      %w: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4x4x4xf32> {tg.output = "y"}) {
  %c = tg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = tg.conv %x, %w, %c {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32> loc("/conv/Conv")
  return %loss, %y : tensor<f32>, tensor<2x4x4x4xf32>
}

// The 4 MiB workspace (placed first: best fit by decreasing size) and the
// constant (16 bytes, padded to 64) share the arena; the constant is live
// across the convolution, so they do not overlap.
// ARENA: module attributes {memopt.arena_bytes = 4194368 : i64, memopt.target = #memopt.target<cuda>}

// CHECK: static float constant_data[4] = {1.000000000e+00f, 2.000000000e+00f, 3.000000000e+00f, 4.000000000e+00f};
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor constant = memopt::rt::arenaTensor(arenas[0], 4194304, {4});
// CHECK-NEXT: memopt::rt::constant(constant_data, constant);
// CHECK: memopt::rt::conv(input, conv_weight, constant, y, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, memopt::rt::arenaWorkspace(arenas[0], 0, {{[0-9]+}}));

// The CPU target keeps the constant in its static array.
// CPU-LABEL: static void train_step(
// CPU: memopt::rt::Tensor constant(constant_data, {4});
// CPU-NOT: memopt::rt::constant(
// CPU: memopt::rt::conv(input, conv_weight, constant, y, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, nullptr);

// -----

// A large convolution reserves its largest tensor: the 2x64x128x128 output,
// 8 MiB.
func.func @train_step(%x: tensor<2x64x128x128xf32> {tg.input = "input"},
                      %w: tensor<64x64x3x3xf32> {tg.param = "conv.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<64x64x3x3xf32> {tg.output = "dw"}) {
  %dw = tg.conv_backward_filter %x, %x {pads = array<i64: 1, 1, 1, 1>, weight_shape = array<i64: 64, 64, 3, 3>} : (tensor<2x64x128x128xf32>, tensor<2x64x128x128xf32>) -> tensor<64x64x3x3xf32>
  return %loss, %dw : tensor<f32>, tensor<64x64x3x3xf32>
}

// ARENA: module attributes {memopt.arena_bytes = 8388608 : i64, memopt.target = #memopt.target<cuda>}
// CHECK: memopt::rt::convBackwardFilter(input, input, dw, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, memopt::rt::arenaWorkspace(arenas[0], 0, {{[0-9]+}}));
// CPU: memopt::rt::convBackwardFilter(input, input, dw, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, nullptr);
