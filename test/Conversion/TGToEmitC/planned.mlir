// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -convert-tg-to-emitc | FileCheck %s

// The pass plans nothing itself: it emits the places of the mbuf IR, here
// written by hand (a workspace at 128, the relu over its input, a second
// arena in pinned host memory, which memopt.arena_bytes, the device
// memory, leaves out).
// CHECK-LABEL: module attributes {memopt.arena_bytes = 256 : i64, memopt.target = #memopt.target<cpu>}
// CHECK: "memopt::rt::Tensor conv_c = memopt::rt::arenaTensor(arenas[0], 64, {1, 1, 4, 4});"
// CHECK: memopt::rt::conv{{.*}}#emitc.opaque<"memopt::rt::arenaWorkspace(arenas[0], 128, {{[0-9]+}})">
// CHECK: "memopt::rt::Tensor relu_r = memopt::rt::arenaTensor(arenas[0], 64, {1, 1, 4, 4});"
// CHECK: "memopt::rt::Tensor out = memopt::rt::bufferTensor(results, 1, {1, 1, 4, 4});"
// CHECK: emitc.global static const @kArenas : !emitc.array<2x!emitc.opaque<"memopt::rt::ArenaSpec">> = #emitc.opaque<"{\0A    {256, memopt::rt::MemorySpace::Device, 0},\0A    {64, memopt::rt::MemorySpace::PinnedHost, 0},\0A}">
// CHECK: /*arenas=*/kArenas, /*numArenas=*/2
func.func @train_step(%x: !mbuf.view<1x1x4x4xf32> {tg.input = "input"},
                      %w: !mbuf.view<1x1x1x1xf32> {tg.param = "w"},
                      %loss: !mbuf.view<f32> {tg.input = "loss"})
    -> (!mbuf.view<f32> {tg.output = "loss"}, !mbuf.view<1x1x4x4xf32> {tg.output = "out"}) {
  %arena = mbuf.arena 0 size 256 on device 0 : !mbuf.arena<device>
  %host = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<pinned_host>
  %c = mbuf.view %arena[64] : !mbuf.arena<device> -> !mbuf.view<1x1x4x4xf32> loc("/c/Conv")
  %ws = mbuf.view %arena[128] : !mbuf.arena<device> -> !mbuf.view<100xi8>
  mbuf.kernel ins(%x, %w : !mbuf.view<1x1x4x4xf32>, !mbuf.view<1x1x1x1xf32>) outs(%c : !mbuf.view<1x1x4x4xf32>) workspace(%ws : !mbuf.view<100xi8>) {
  ^bb0(%a: tensor<1x1x4x4xf32>, %b: tensor<1x1x1x1xf32>):
    %0 = tg.conv %a, %b : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32> loc("/c/Conv")
    mbuf.yield %0 : tensor<1x1x4x4xf32>
  }
  %r = mbuf.view %arena[64] : !mbuf.arena<device> -> !mbuf.view<1x1x4x4xf32>
  mbuf.kernel ins(%c : !mbuf.view<1x1x4x4xf32>) outs(%r : !mbuf.view<1x1x4x4xf32>) attributes {tied_operands = array<i64: 0>} {
  ^bb0(%a: tensor<1x1x4x4xf32>):
    %0 = tg.relu %a : tensor<1x1x4x4xf32> loc("/r/Relu")
    mbuf.yield %0 : tensor<1x1x4x4xf32>
  }
  %out = mbuf.result 1 : !mbuf.view<1x1x4x4xf32>
  mbuf.kernel ins(%r : !mbuf.view<1x1x4x4xf32>) outs(%out : !mbuf.view<1x1x4x4xf32>) {
  ^bb0(%a: tensor<1x1x4x4xf32>):
    %0 = tg.neg %a : tensor<1x1x4x4xf32>
    mbuf.yield %0 : tensor<1x1x4x4xf32>
  }
  return %loss, %out : !mbuf.view<f32>, !mbuf.view<1x1x4x4xf32>
}

// -----

// tg-offload's copies: startCopy with the copy's number, in the step's
// order, which the wait of its token names (waitCopy, then its trace
// event on the copy track).
// CHECK-LABEL: module attributes {memopt.arena_bytes = 64 : i64
// CHECK: call_opaque "memopt::rt::startCopy"(%[[HOST:.*]], %[[X:.*]]) {args = [#emitc.opaque<"0">, 0 : index, 1 : index]}
// CHECK: call_opaque "memopt::rt::waitCopy"() {args = [#emitc.opaque<"0">]}
// CHECK-NEXT: call_opaque "memopt::rt::traceCopy"() {args = [#emitc.opaque<"0">, #emitc.opaque<"\22x\22">, #emitc.opaque<"\22offload\22">]}
// CHECK: call_opaque "memopt::rt::startCopy"(%{{.*}}, %[[HOST]]) {args = [#emitc.opaque<"1">, 0 : index, 1 : index]}
// CHECK: call_opaque "memopt::rt::waitCopy"() {args = [#emitc.opaque<"1">]}
// CHECK-NEXT: call_opaque "memopt::rt::traceCopy"() {args = [#emitc.opaque<"1">, #emitc.opaque<"\22x\22">, #emitc.opaque<"\22prefetch\22">]}
func.func @train_step(%x: !mbuf.view<4xf32> {tg.input = "input"}, %loss: !mbuf.view<f32> {tg.input = "loss"})
    -> (!mbuf.view<f32> {tg.output = "loss"}) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  %host = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<pinned_host>
  %h = mbuf.view %host[0] : !mbuf.arena<pinned_host> -> !mbuf.view<4xf32, pinned_host>
  %t = mbuf.copy_async %x to %h : !mbuf.view<4xf32> -> !mbuf.view<4xf32, pinned_host> loc("/x/Relu")
  mbuf.wait %t
  %d = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<4xf32>
  %u = mbuf.copy_async %h to %d : !mbuf.view<4xf32, pinned_host> -> !mbuf.view<4xf32> loc("/x/Relu")
  mbuf.wait %u
  return %loss : !mbuf.view<f32>
}

// -----

// Program::arenas is indexed by the arena's index.
// expected-error @below {{the arenas must be numbered 0, 1, ... without gaps; arena 0 is missing}}
func.func @train_step(%loss: !mbuf.view<f32> {tg.input = "loss"}) -> (!mbuf.view<f32> {tg.output = "loss"}) {
  %arena = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<device>
  return %loss : !mbuf.view<f32>
}

// -----

// A tg step that tg-plan-memory has not converted.
func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  // expected-error @below {{the backend cannot lower this op; run -tg-plan-memory first}}
  %y = tg.relu %x : tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}
