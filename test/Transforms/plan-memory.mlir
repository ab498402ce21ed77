// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu in-place=false' -tg-plan-memory | FileCheck %s --check-prefix=COPY
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -tg-plan-memory | FileCheck %s

// The plan is recorded on the function and its ops, still in tg: the
// arena's bytes on the function, each op's result offsets (-1 outside the
// arena), the operand a result overwrites in place, a concat's operands
// computed in their slice, and an op's workspace offset.
// convert-tg-to-mbuf reads it (test/Conversion/TGToMBuf). Planning again
// replaces the record with the same one. An elementwise chain over dying
// operands needs one buffer; without in-place writes it needs two.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {memopt.arena_size = 4096 : i64}
// CHECK: tg.relu %{{.*}} {memopt.place = {offsets = array<i64: 0>}}
// CHECK: tg.sigmoid %{{.*}} {memopt.place = {in_place = array<i64: 0>, offsets = array<i64: 0>}}
// CHECK: tg.add %{{.*}}, %{{.*}} {memopt.place = {in_place = array<i64: 0>, offsets = array<i64: 0>}}
// The result computed in the caller's result buffer has no place.
// CHECK: tg.max_pool %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} :
// COPY-LABEL: func.func @chain
// COPY-SAME: attributes {memopt.arena_size = 8192 : i64}
// COPY: tg.relu %{{.*}} {memopt.place = {offsets = array<i64: 0>}}
// COPY: tg.sigmoid %{{.*}} {memopt.place = {offsets = array<i64: 4096>}}
// COPY: tg.add %{{.*}}, %{{.*}} {memopt.place = {offsets = array<i64: 0>}}
// COPY-NOT: in_place = array
func.func @chain(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.add %b, %b : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// One entry per result: BatchNorm's input gradient overwrites the incoming
// gradient, its per-channel gradients are step results in their buffers.
// CHECK-LABEL: func.func @bn_backward
// CHECK-SAME: memopt.arena_size = 320 : i64
// CHECK: tg.batch_norm_backward {{.*}} {memopt.place = {in_place = array<i64: 0, -1, -1>, offsets = array<i64: 0, -1, -1>}}
func.func @bn_backward(%gy: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %mean: tensor<4xf32>, %istd: tensor<4xf32>)
    -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dy = tg.relu %gy : tensor<2x4x3x3xf32>
  %dx, %ds, %db = tg.batch_norm_backward %dy, %x, %g, %mean, %istd : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %r = tg.neg %dx : tensor<2x4x3x3xf32>
  return %r, %ds, %db : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A concat of contiguous slabs: its operands sit in their slices of its
// result (offsets 0 and 128 of the concat's buffer at 0).
// CHECK-LABEL: func.func @concat_slices
// CHECK-SAME: memopt.arena_size = 256 : i64
// CHECK: tg.relu {{.*}}memopt.place = {in_place = array<i64: 0>, offsets = array<i64: 0>}
// CHECK: tg.neg {{.*}}memopt.place = {offsets = array<i64: 128>}
// CHECK: tg.concat {{.*}}memopt.place = {offsets = array<i64: 0>, sliced = array<i64: 0, 1>}
// COPY-LABEL: func.func @concat_slices
// COPY-SAME: memopt.arena_size = 512 : i64
// COPY-NOT: sliced
func.func @concat_slices(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %s = tg.sigmoid %x : tensor<1x2x4x4xf32>
  %a = tg.relu %s : tensor<1x2x4x4xf32>
  %b = tg.neg %x : tensor<1x2x4x4xf32>
  %c = tg.concat %a, %b {axis = 1} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %d : tensor<1x4x2x2xf32>
}

// -----

// A workspace that tg-annotate-workspaces recorded is a buffer of its op's
// duration (100 bytes, padded to 128), beside the relu's output, which
// the convolution reads.
// CHECK-LABEL: func.func @workspace
// CHECK-SAME: memopt.arena_size = 192 : i64
// CHECK: tg.relu {{.*}}memopt.place = {offsets = array<i64: 128>}
// CHECK: tg.conv {{.*}}memopt.place = {workspace = 0 : i64}
func.func @workspace(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32> {
  %a = tg.relu %x : tensor<1x1x4x4xf32>
  %y = tg.conv %a, %w {memopt.workspace_bytes = 100 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// Arguments and constants live outside the arena: an empty plan.
// CHECK-LABEL: func.func @constants
// CHECK-SAME: attributes {memopt.arena_size = 0 : i64}
// CHECK-NOT: memopt.place
func.func @constants(%x: tensor<1x4xf32> {tg.input = "x"}) -> (tensor<1x4xf32> {tg.output = "y"}) {
  %k = tg.constant dense<2.0> : tensor<1x4xf32>
  %y = tg.mul %x, %k : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
