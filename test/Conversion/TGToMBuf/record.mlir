// RUN: memopt-opt %s -split-input-file -convert-tg-to-mbuf | FileCheck %s

// The conversion places values where the record says, whoever wrote it:
// here two values that tg-plan-memory would put at offset 0 (the neg in
// place over the relu), by hand at 128 and 256 of a larger arena. The record is gone afterwards (the views
// and tied operands state it).
// CHECK-LABEL: func.func @by_hand
// CHECK-NOT: memopt.arena_size
// CHECK: %[[ARENA:.*]] = mbuf.arena 0 size 512 on device 0
// CHECK: %[[A:.*]] = mbuf.view %[[ARENA]][128]
// CHECK: mbuf.kernel ins(%{{.*}}) outs(%[[A]] : {{.*}}) {
// CHECK: tg.relu
// CHECK-NOT: memopt.place
// CHECK: %[[B:.*]] = mbuf.view %[[ARENA]][256]
// CHECK: mbuf.kernel ins(%[[A]] : {{.*}}) outs(%[[B]] : {{.*}}) {
// CHECK: tg.neg
// CHECK-NOT: memopt.place
// CHECK: mbuf.result 0
module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @by_hand(%x: tensor<1x16xf32>) -> tensor<1x16xf32> attributes {memopt.arena_size = 512 : i64} {
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 128>}} : tensor<1x16xf32>
    %b = tg.neg %a {memopt.place = {offsets = array<i64: 256>}} : tensor<1x16xf32>
    %c = tg.sigmoid %b : tensor<1x16xf32>
    return %c : tensor<1x16xf32>
  }
}

// -----

// A workspace at its recorded offset, of the bytes tg-annotate-workspaces
// recorded; an in-place write ties the operand.
// CHECK-LABEL: func.func @workspace_in_place
// CHECK: %[[ARENA:.*]] = mbuf.arena 0 size 256
// CHECK: %[[A:.*]] = mbuf.view %[[ARENA]][0]
// CHECK: %[[B:.*]] = mbuf.view %[[ARENA]][0]
// CHECK: mbuf.kernel ins(%[[A]] : {{.*}}) outs(%[[B]] : {{.*}}) attributes {tied_operands = array<i64: 0>}
// CHECK: %[[WS:.*]] = mbuf.view %[[ARENA]][128] : !mbuf.arena<device> -> !mbuf.view<100xi8>
// CHECK: mbuf.kernel {{.*}} workspace(%[[WS]] : !mbuf.view<100xi8>)
module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @workspace_in_place(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32> attributes {memopt.arena_size = 256 : i64} {
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 0>}} : tensor<1x1x4x4xf32>
    %b = tg.sigmoid %a {memopt.place = {in_place = array<i64: 0>, offsets = array<i64: 0>}} : tensor<1x1x4x4xf32>
    %y = tg.conv %b, %w {memopt.place = {workspace = 128 : i64}, memopt.workspace_bytes = 100 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
    return %y : tensor<1x1x4x4xf32>
  }
}

// -----

// External functions have no body to convert.
// CHECK-LABEL: func.func private @external(tensor<4xf32>)
module attributes {memopt.target = #memopt.target<cpu>} {
  func.func private @external(tensor<4xf32>)
}
