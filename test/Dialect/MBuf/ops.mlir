// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file -mlir-print-op-generic | memopt-opt -split-input-file | FileCheck %s

// A planned step: arguments and results are views of the caller's buffers,
// temporaries are views of an arena, and each kernel writes its outputs.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[X:.*]]: !mbuf.view<2x3xf32> {tg.input = "x"})
// CHECK-SAME: -> (!mbuf.view<2x3xf32> {tg.output = "y"})
// CHECK: %[[ARENA:.*]] = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
// CHECK: %[[A:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
// CHECK: mbuf.kernel ins(%[[X]] : !mbuf.view<2x3xf32>) outs(%[[A]] : !mbuf.view<2x3xf32>) {
// CHECK-NEXT: ^bb0(%[[T:.*]]: tensor<2x3xf32>):
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[T]]
// CHECK-NEXT: mbuf.yield %[[R]] : tensor<2x3xf32>
// CHECK: %[[B:.*]] = mbuf.view %[[ARENA]][0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
// CHECK: mbuf.kernel ins(%[[A]] : !mbuf.view<2x3xf32>) outs(%[[B]] : !mbuf.view<2x3xf32>) attributes {tied_operands = array<i64: 0>}
// CHECK: %[[Y:.*]] = mbuf.result 0 : !mbuf.view<2x3xf32>
// CHECK: workspace(%{{.*}} : !mbuf.view<64xi8>)
// CHECK: return %[[Y]] : !mbuf.view<2x3xf32>
func.func @train_step(%x: !mbuf.view<2x3xf32> {tg.input = "x"})
    -> (!mbuf.view<2x3xf32> {tg.output = "y"}) {
  %arena = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%a : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  // Written in place over %a, which dies here.
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%a : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>)
      attributes {tied_operands = array<i64: 0>} {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.sigmoid %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  %y = mbuf.result 0 : !mbuf.view<2x3xf32>
  %w = mbuf.view %arena[64] : !mbuf.arena<device> -> !mbuf.view<64xi8>
  mbuf.kernel ins(%b : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>)
      workspace(%w : !mbuf.view<64xi8>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return %y : !mbuf.view<2x3xf32>
}

// -----

// A concatenation whose first operand was computed in its slice of the
// result: a subview, tied to the output.

// CHECK-LABEL: func.func @sliced_concat
// CHECK: %[[C:.*]] = mbuf.view %{{.*}}[0] : !mbuf.arena<device> -> !mbuf.view<2x4xf32>
// CHECK: %[[S:.*]] = mbuf.subview %[[C]][0] : !mbuf.view<2x4xf32> -> !mbuf.view<1x4xf32>
// CHECK: mbuf.kernel ins(%[[S]], %{{.*}} : !mbuf.view<1x4xf32>, !mbuf.view<1x4xf32>) outs(%[[C]] : !mbuf.view<2x4xf32>) attributes {tied_operands = array<i64: 0, -1>}
func.func @sliced_concat(%x: !mbuf.view<1x4xf32> {tg.input = "x"})
    -> (!mbuf.view<2x4xf32> {tg.output = "y"}) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  %c = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x4xf32>
  %s = mbuf.subview %c[0] : !mbuf.view<2x4xf32> -> !mbuf.view<1x4xf32>
  mbuf.kernel ins(%x : !mbuf.view<1x4xf32>) outs(%s : !mbuf.view<1x4xf32>) {
  ^bb0(%t: tensor<1x4xf32>):
    %r = tg.relu %t : tensor<1x4xf32>
    mbuf.yield %r : tensor<1x4xf32>
  }
  mbuf.kernel ins(%s, %x : !mbuf.view<1x4xf32>, !mbuf.view<1x4xf32>)
      outs(%c : !mbuf.view<2x4xf32>)
      attributes {tied_operands = array<i64: 0, -1>} {
  ^bb0(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>):
    %r = tg.concat %a, %b {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    mbuf.yield %r : tensor<2x4xf32>
  }
  return %c : !mbuf.view<2x4xf32>
}

// -----

// The second slice's operand is written in place over a value computed in
// that slice's bytes after the first slice was written (a U-Net stem
// computed after the decoder's upsampling): the slice's bytes are live from
// its own first use, not from the first slice's.

// CHECK-LABEL: func.func @slice_written_over_in_place
func.func @slice_written_over_in_place(%x: !mbuf.view<1x16xf32> {tg.input = "x"})
    -> (!mbuf.view<2x16xf32> {tg.output = "y"}) {
  %arena = mbuf.arena 0 size 256 on device 0 : !mbuf.arena<device>
  %c = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x16xf32>
  %s0 = mbuf.subview %c[0] : !mbuf.view<2x16xf32> -> !mbuf.view<1x16xf32>
  mbuf.kernel ins(%x : !mbuf.view<1x16xf32>) outs(%s0 : !mbuf.view<1x16xf32>) {
  ^bb0(%t: tensor<1x16xf32>):
    %r = tg.relu %t : tensor<1x16xf32>
    mbuf.yield %r : tensor<1x16xf32>
  }
  %t = mbuf.view %arena[64] : !mbuf.arena<device> -> !mbuf.view<1x16xf32>
  mbuf.kernel ins(%x : !mbuf.view<1x16xf32>) outs(%t : !mbuf.view<1x16xf32>) {
  ^bb0(%a: tensor<1x16xf32>):
    %r = tg.neg %a : tensor<1x16xf32>
    mbuf.yield %r : tensor<1x16xf32>
  }
  %s1 = mbuf.subview %c[64] : !mbuf.view<2x16xf32> -> !mbuf.view<1x16xf32>
  mbuf.kernel ins(%t : !mbuf.view<1x16xf32>) outs(%s1 : !mbuf.view<1x16xf32>)
      attributes {tied_operands = array<i64: 0>} {
  ^bb0(%a: tensor<1x16xf32>):
    %r = tg.relu %a : tensor<1x16xf32>
    mbuf.yield %r : tensor<1x16xf32>
  }
  mbuf.kernel ins(%s0, %s1 : !mbuf.view<1x16xf32>, !mbuf.view<1x16xf32>)
      outs(%c : !mbuf.view<2x16xf32>)
      attributes {tied_operands = array<i64: 0, 0>} {
  ^bb0(%a: tensor<1x16xf32>, %b: tensor<1x16xf32>):
    %r = tg.concat %a, %b {axis = 0 : i64} : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<2x16xf32>
    mbuf.yield %r : tensor<2x16xf32>
  }
  return %c : !mbuf.view<2x16xf32>
}

// -----

// Offload and prefetch through pinned host memory, a send and a receive
// between two devices, and constants.

// CHECK-LABEL: func.func @transfers
// CHECK: %[[HOST:.*]] = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<pinned_host>
// CHECK: %[[H:.*]] = mbuf.view %[[HOST]][0] : !mbuf.arena<pinned_host> -> !mbuf.view<2x3xf32, pinned_host>
// CHECK: %[[T0:.*]] = mbuf.copy_async %{{.*}} to %[[H]] : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
// CHECK: mbuf.wait %[[T0]]
// CHECK: %[[T1:.*]] = mbuf.send %{{.*}} to device 1 tag 7 : !mbuf.view<2x3xf32>
// CHECK: %[[T2:.*]] = mbuf.recv %{{.*}} from device 1 tag 8 : !mbuf.view<2x3xf32>
// CHECK: mbuf.wait %[[T1]], %[[T2]]
// CHECK: mbuf.constant dense<1.000000e+00> : tensor<2x3xbf16> -> !mbuf.view<2x3xbf16>
func.func @transfers(%x: !mbuf.view<2x3xf32> {tg.input = "x"}) {
  %arena = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
  %host = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<pinned_host>
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  %h = mbuf.view %host[0] : !mbuf.arena<pinned_host> -> !mbuf.view<2x3xf32, pinned_host>
  %t0 = mbuf.copy_async %x to %h : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
  mbuf.wait %t0
  %t1 = mbuf.send %x to device 1 tag 7 : !mbuf.view<2x3xf32>
  %t2 = mbuf.recv %a from device 1 tag 8 : !mbuf.view<2x3xf32>
  mbuf.wait %t1, %t2
  %c = mbuf.constant dense<1.0> : tensor<2x3xbf16> -> !mbuf.view<2x3xbf16>
  return
}
