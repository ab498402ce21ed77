// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu in-place=false' -tg-plan-memory | FileCheck %s --check-prefix=COPY
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -tg-verify-memory-plan
// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu in-place=false' -tg-plan-memory -tg-verify-memory-plan

// The plan is visible in the IR: per result its arena offset (-1: outside
// the arena, here the function's result), the operand a result overwrites
// in place, the arena size on the function. An elementwise chain over
// dying operands needs one buffer; without in-place writes it needs two.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: memopt.arena_bytes = 4096 : i64
// CHECK: tg.relu %{{.*}} {memopt.offsets = array<i64: 0>}
// CHECK: tg.sigmoid %{{.*}} {memopt.in_place = array<i64: 0>, memopt.offsets = array<i64: 0>}
// CHECK: tg.add %{{.*}} {memopt.in_place = array<i64: 0>, memopt.offsets = array<i64: 0>}
// CHECK: tg.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, memopt.offsets = array<i64: -1>
// COPY-LABEL: func.func @chain
// COPY-SAME: memopt.arena_bytes = 8192 : i64
// COPY: tg.relu %{{.*}} {memopt.offsets = array<i64: 0>}
// COPY: tg.sigmoid %{{.*}} {memopt.offsets = array<i64: 4096>}
// COPY: tg.add %{{.*}} {memopt.offsets = array<i64: 0>}
func.func @chain(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.add %b, %b : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// An operand that a later op still reads is not overwritten; the add then
// writes over its first operand, which dies there.
// CHECK-LABEL: func.func @operand_live
// CHECK-SAME: memopt.arena_bytes = 8192 : i64
// CHECK: tg.relu %{{.*}} {memopt.offsets = array<i64: 0>}
// CHECK: tg.sigmoid %{{.*}} {memopt.offsets = array<i64: 4096>}
// CHECK: tg.add %{{.*}} {memopt.in_place = array<i64: 0>, memopt.offsets = array<i64: 0>}
func.func @operand_live(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.add %a, %b : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// A broadcasting add may not write over an operand (the kernel reads
// elements of the broadcast operand repeatedly).
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: memopt.arena_bytes = 8192 : i64
// CHECK: tg.add %{{.*}} {memopt.offsets = array<i64: 4096>}
func.func @broadcast(%x: tensor<1x1x32x32xf32>, %y: tensor<1x1x1x1xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %c = tg.add %a, %y : (tensor<1x1x32x32xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// BatchNorm's input gradient overwrites the incoming gradient; buffers are
// padded to 64 bytes (288 bytes take 320); the per-channel gradients are
// results of the function, computed in their result buffers.
// CHECK-LABEL: func.func @bn_backward
// CHECK-SAME: memopt.arena_bytes = 320 : i64
// CHECK: tg.relu %{{.*}} {memopt.offsets = array<i64: 0>}
// CHECK: tg.batch_norm_backward {{.*}} {memopt.in_place = array<i64: 0, -1, -1>, memopt.offsets = array<i64: 0, -1, -1>}
func.func @bn_backward(%gy: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %mean: tensor<4xf32>, %istd: tensor<4xf32>)
    -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dy = tg.relu %gy : tensor<2x4x3x3xf32>
  %dx, %ds, %db = tg.batch_norm_backward %dy, %x, %g, %mean, %istd : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %r = tg.neg %dx : tensor<2x4x3x3xf32>
  return %r, %ds, %db : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A concat whose operands are contiguous slabs of its result (batch 1,
// channel axis) reads operands computed straight into their slice: one
// buffer, no copy. The relu's input shares the relu's slice (in place).
// With batch 2 the slabs interleave: the concat copies.
// CHECK-LABEL: func.func @concat_slices
// CHECK-SAME: memopt.arena_bytes = 256 : i64
// CHECK: tg.sigmoid %{{.*}} {memopt.offsets = array<i64: 0>}
// CHECK: tg.relu %{{.*}} {memopt.in_place = array<i64: 0>, memopt.offsets = array<i64: 0>}
// CHECK: tg.neg %{{.*}} {memopt.offsets = array<i64: 128>}
// CHECK: tg.concat {{.*}} {axis = 1 : i64, memopt.offsets = array<i64: 0>, memopt.sliced_operands = array<i64: 0, 1>}
// COPY-LABEL: func.func @concat_slices
// COPY-SAME: memopt.arena_bytes = 512 : i64
// COPY-NOT: memopt.sliced_operands
func.func @concat_slices(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %s = tg.sigmoid %x : tensor<1x2x4x4xf32>
  %a = tg.relu %s : tensor<1x2x4x4xf32>
  %b = tg.neg %x : tensor<1x2x4x4xf32>
  %c = tg.concat %a, %b {axis = 1} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %d : tensor<1x4x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat_batch2
// CHECK-SAME: memopt.arena_bytes = 512 : i64
// CHECK-NOT: memopt.sliced_operands
func.func @concat_batch2(%x: tensor<2x1x4x4xf32>) -> tensor<2x2x2x2xf32> {
  %a = tg.relu %x : tensor<2x1x4x4xf32>
  %b = tg.neg %x : tensor<2x1x4x4xf32>
  %c = tg.concat %a, %b {axis = 1} : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x2x4x4xf32>) -> tensor<2x2x2x2xf32>
  return %d : tensor<2x2x2x2xf32>
}
