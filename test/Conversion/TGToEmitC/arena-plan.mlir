// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s

// The views sit at the offsets of tg-plan-memory's plan: values live from
// their op to their last use; offsets are best fit by decreasing size
// (64-byte aligned); a relu writes over its dying input in place; the total
// is the top of the highest buffer, the Program's arena size and the
// module's memopt.arena_bytes.

// A chain: 4 KiB, 4 KiB, then 1 KiB values. Each relu overwrites its input;
// the pooled values need their own buffer while the 4 KiB one is read.
// CHECK-LABEL: module attributes {memopt.arena_bytes = 5120 : i64, memopt.target = #memopt.target<cpu>}
// CHECK: "memopt::rt::Tensor relu_a = memopt::rt::arenaTensor(arenas[0], 0, {1, 1, 32, 32});"
// CHECK: "memopt::rt::Tensor relu_b = memopt::rt::arenaTensor(arenas[0], 0, {1, 1, 32, 32});"
// CHECK: "memopt::rt::Tensor max_pool_c = memopt::rt::arenaTensor(arenas[0], 4096, {1, 1, 16, 16});"
// CHECK: "memopt::rt::Tensor relu_d = memopt::rt::arenaTensor(arenas[0], 4096, {1, 1, 16, 16});"
// CHECK: {5120, memopt::rt::MemorySpace::Device, 0},
func.func @train_step(%x: tensor<1x1x32x32xf32> {tg.input = "input"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x16x16xf32> {tg.output = "out"}) {
  %0 = tg.relu %x : tensor<1x1x32x32xf32> loc("/a/Relu")
  %1 = tg.relu %0 : tensor<1x1x32x32xf32> loc("/b/Relu")
  %2 = tg.max_pool %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> loc("/c/MaxPool")
  %3 = tg.relu %2 : tensor<1x1x16x16xf32> loc("/d/Relu")
  %4 = tg.add %3, %3 : (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %loss, %4 : tensor<f32>, tensor<1x1x16x16xf32>
}

// -----

// A skip connection keeps the first value alive: the second relu cannot
// overwrite it; the last pooled value takes the best-fitting gap (the dead
// 4 KiB value's space) rather than the top.
// CHECK-LABEL: module attributes {memopt.arena_bytes = 9216 : i64, memopt.target = #memopt.target<cpu>}
// CHECK: "memopt::rt::Tensor relu_a = memopt::rt::arenaTensor(arenas[0], 0, {1, 1, 32, 32});"
// CHECK: "memopt::rt::Tensor relu_b = memopt::rt::arenaTensor(arenas[0], 4096, {1, 1, 32, 32});"
// CHECK: "memopt::rt::Tensor max_pool_c = memopt::rt::arenaTensor(arenas[0], 8192, {1, 1, 16, 16});"
// CHECK: "memopt::rt::Tensor relu_d = memopt::rt::arenaTensor(arenas[0], 8192, {1, 1, 16, 16});"
// CHECK: "memopt::rt::Tensor max_pool = memopt::rt::arenaTensor(arenas[0], 4096, {1, 1, 16, 16});"
// CHECK: {9216, memopt::rt::MemorySpace::Device, 0},
func.func @train_step(%x: tensor<1x1x32x32xf32> {tg.input = "input"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x16x16xf32> {tg.output = "out"}) {
  %0 = tg.relu %x : tensor<1x1x32x32xf32> loc("/a/Relu")
  %1 = tg.relu %0 : tensor<1x1x32x32xf32> loc("/b/Relu")
  %2 = tg.max_pool %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> loc("/c/MaxPool")
  %3 = tg.relu %2 : tensor<1x1x16x16xf32> loc("/d/Relu")
  %4 = tg.max_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %5 = tg.add %3, %4 : (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %loss, %5 : tensor<f32>, tensor<1x1x16x16xf32>
}

// -----

// Convolution workspaces are buffers of their op's duration in the same
// plan (here 4 KiB given by the runtime, or none: the test does not query).
// CHECK-LABEL: module attributes {memopt.arena_bytes = 0 : i64, memopt.target = #memopt.target<cpu>}
// CHECK: memopt::rt::conv{{.*}}#emitc.opaque<"nullptr">
func.func @train_step(%x: tensor<1x1x4x4xf32> {tg.input = "input"},
                      %w: tensor<1x1x1x1xf32> {tg.param = "w"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x4x4xf32> {tg.output = "out"}) {
  %0 = tg.conv %x, %w : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %loss, %0 : tensor<f32>, tensor<1x1x4x4xf32>
}
