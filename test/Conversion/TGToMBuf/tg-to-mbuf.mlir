// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu in-place=false' -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=COPY
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=CUDA

// The plan becomes buffers: arguments and results are views of the
// caller's buffers, arena 0 holds every other value at its offset, each op
// is a kernel writing its result views. An elementwise chain over dying
// operands needs one buffer (each kernel tied to the operand it
// overwrites); without in-place writes it needs two.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: !mbuf.view<1x1x32x32xf32>) -> !mbuf.view<1x1x16x16xf32>
// CHECK: %[[ARENA:.*]] = mbuf.arena 0 size 4096 on device 0 : !mbuf.arena<device>
// CHECK: %[[A:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<1x1x32x32xf32>
// CHECK: mbuf.kernel ins(%[[X]] : !mbuf.view<1x1x32x32xf32>) outs(%[[A]] : !mbuf.view<1x1x32x32xf32>) {
// CHECK-NEXT: ^bb0(%[[T:.*]]: tensor<1x1x32x32xf32>):
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[T]] : tensor<1x1x32x32xf32>
// CHECK-NEXT: mbuf.yield %[[R]] : tensor<1x1x32x32xf32>
// CHECK: %[[B:.*]] = mbuf.view %[[ARENA]][0]
// CHECK: mbuf.kernel ins(%[[A]] : {{.*}}) outs(%[[B]] : {{.*}}) attributes {tied_operands = array<i64: 0>}
// CHECK: tg.sigmoid
// CHECK: %[[C:.*]] = mbuf.view %[[ARENA]][0]
// CHECK: mbuf.kernel ins(%[[B]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}}) attributes {tied_operands = array<i64: 0, -1>}
// CHECK: tg.add
// CHECK: %[[D:.*]] = mbuf.result 0 : !mbuf.view<1x1x16x16xf32>
// CHECK: mbuf.kernel ins(%[[C]] : {{.*}}) outs(%[[D]] : {{.*}}) {
// CHECK: tg.max_pool
// CHECK: return %[[D]] : !mbuf.view<1x1x16x16xf32>
// COPY-LABEL: func.func @chain
// COPY: mbuf.arena 0 size 8192 on device 0
// COPY: mbuf.view %{{.*}}[0]
// COPY: mbuf.view %{{.*}}[4096]
// COPY: mbuf.view %{{.*}}[0]
// COPY-NOT: tied_operands
func.func @chain(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.add %b, %b : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// An operand that a later op still reads is not overwritten; the add then
// writes over its first operand, which dies there.
// CHECK-LABEL: func.func @operand_live
// CHECK: mbuf.arena 0 size 8192
// CHECK: %[[A:.*]] = mbuf.view %{{.*}}[0]
// CHECK: %[[B:.*]] = mbuf.view %{{.*}}[4096]
// CHECK: mbuf.kernel ins(%[[A]] : {{.*}}) outs(%[[B]] : {{.*}}) {
// CHECK: %[[C:.*]] = mbuf.view %{{.*}}[0]
// CHECK: mbuf.kernel ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}}) attributes {tied_operands = array<i64: 0, -1>}
func.func @operand_live(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.add %a, %b : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// A broadcasting add may not write over an operand (the kernel reads
// elements of the broadcast operand repeatedly).
// CHECK-LABEL: func.func @broadcast
// CHECK: mbuf.arena 0 size 8192
// CHECK: %[[C:.*]] = mbuf.view %{{.*}}[4096]
// CHECK-NEXT: mbuf.kernel ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%[[C]] : {{.*}}) {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.add
func.func @broadcast(%x: tensor<1x1x32x32xf32>, %y: tensor<1x1x1x1xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %c = tg.add %a, %y : (tensor<1x1x32x32xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// BatchNorm's input gradient overwrites the incoming gradient; buffers are
// padded to 64 bytes (288 bytes take 320); the per-channel gradients are
// results of the function, computed in their result buffers.
// CHECK-LABEL: func.func @bn_backward
// CHECK: mbuf.arena 0 size 320
// CHECK: %[[DY:.*]] = mbuf.view %{{.*}}[0] : !mbuf.arena<device> -> !mbuf.view<2x4x3x3xf32>
// CHECK: %[[DX:.*]] = mbuf.view %{{.*}}[0] : !mbuf.arena<device> -> !mbuf.view<2x4x3x3xf32>
// CHECK-NEXT: %[[DS:.*]] = mbuf.result 1 : !mbuf.view<4xf32>
// CHECK-NEXT: %[[DB:.*]] = mbuf.result 2 : !mbuf.view<4xf32>
// CHECK-NEXT: mbuf.kernel ins(%[[DY]], {{.*}}) outs(%[[DX]], %[[DS]], %[[DB]] : {{.*}}) attributes {tied_operands = array<i64: 0, -1, -1, -1, -1>}
// CHECK: return %{{.*}}, %[[DS]], %[[DB]]
func.func @bn_backward(%gy: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %mean: tensor<4xf32>, %istd: tensor<4xf32>)
    -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dy = tg.relu %gy : tensor<2x4x3x3xf32>
  %dx, %ds, %db = tg.batch_norm_backward %dy, %x, %g, %mean, %istd : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %r = tg.neg %dx : tensor<2x4x3x3xf32>
  return %r, %ds, %db : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A concat whose operands are contiguous slabs of its result (batch 1,
// channel axis) reads operands computed straight into their slice: the
// concat's view comes first, the operands are subviews of it, tied to it
// in the concat's kernel. The relu's input shares the relu's slice (in
// place). With batch 2 the slabs interleave: the concat copies.
// CHECK-LABEL: func.func @concat_slices
// CHECK: %[[ARENA:.*]] = mbuf.arena 0 size 256
// CHECK: %[[S:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<1x2x4x4xf32>
// CHECK: tg.sigmoid
// CHECK: %[[C:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<1x4x4x4xf32>
// CHECK-NEXT: %[[A:.*]] = mbuf.subview %[[C]][0] : !mbuf.view<1x4x4x4xf32> -> !mbuf.view<1x2x4x4xf32>
// CHECK-NEXT: mbuf.kernel ins(%[[S]] : {{.*}}) outs(%[[A]] : {{.*}}) attributes {tied_operands = array<i64: 0>}
// CHECK: %[[B:.*]] = mbuf.subview %[[C]][128] : !mbuf.view<1x4x4x4xf32> -> !mbuf.view<1x2x4x4xf32>
// CHECK-NEXT: mbuf.kernel ins(%{{.*}} : {{.*}}) outs(%[[B]] : {{.*}}) {
// CHECK: mbuf.kernel ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : {{.*}}) attributes {tied_operands = array<i64: 0, 0>}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.concat
// COPY-LABEL: func.func @concat_slices
// COPY: mbuf.arena 0 size 512
// COPY-NOT: mbuf.subview
func.func @concat_slices(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %s = tg.sigmoid %x : tensor<1x2x4x4xf32>
  %a = tg.relu %s : tensor<1x2x4x4xf32>
  %b = tg.neg %x : tensor<1x2x4x4xf32>
  %c = tg.concat %a, %b {axis = 1} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %d : tensor<1x4x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat_batch2
// CHECK: mbuf.arena 0 size 512
// CHECK-NOT: mbuf.subview
func.func @concat_batch2(%x: tensor<2x1x4x4xf32>) -> tensor<2x2x2x2xf32> {
  %a = tg.relu %x : tensor<2x1x4x4xf32>
  %b = tg.neg %x : tensor<2x1x4x4xf32>
  %c = tg.concat %a, %b {axis = 1} : (tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = tg.max_pool %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x2x4x4xf32>) -> tensor<2x2x2x2xf32>
  return %d : tensor<2x2x2x2xf32>
}

// -----

// Constants are read-only data of the program (mbuf.constant); for a
// device backend (target=cuda) they get arena space after the plan and a
// kernel that fills it. Role attributes stay on the function.
// CHECK-LABEL: func.func @constants
// CHECK-SAME: (%{{.*}}: !mbuf.view<1x4xf32> {tg.input = "x"}) -> (!mbuf.view<1x4xf32> {tg.output = "y"})
// CHECK: %[[K:.*]] = mbuf.constant dense<2.000000e+00> : tensor<1x4xf32> -> !mbuf.view<1x4xf32>
// CHECK: mbuf.kernel ins(%{{.*}}, %[[K]] : {{.*}})
// CUDA-LABEL: func.func @constants
// CUDA: %[[ARENA:.*]] = mbuf.arena 0 size 64 on device 0
// CUDA: %[[K:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<1x4xf32>
// CUDA-NEXT: mbuf.kernel outs(%[[K]] : !mbuf.view<1x4xf32>) {
// CUDA-NEXT: tg.constant
func.func @constants(%x: tensor<1x4xf32> {tg.input = "x"}) -> (tensor<1x4xf32> {tg.output = "y"}) {
  %k = tg.constant dense<2.0> : tensor<1x4xf32>
  %y = tg.mul %x, %k : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
