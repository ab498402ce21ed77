// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of the mbuf dialect.

// Two views of the arena live at the same time share bytes: %a is still
// read by the last kernel when %b is written.
func.func @overlapping_live_views(%x: !mbuf.view<2x3xf32>) {
  %arena = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
  // expected-note @below {{the other view}}
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%a : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  // expected-error @below {{'mbuf.view' op bytes [0, 24) of arena 0 overlap bytes [0, 24) of a view that is live at the same time}}
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  mbuf.kernel ins(%a, %b : !mbuf.view<2x3xf32>, !mbuf.view<2x3xf32>) outs(%x : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>, %u: tensor<2x3xf32>):
    %r = tg.add %t, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

// A slice of a concatenation is live from its own first use: a value in its
// bytes after it was written conflicts.
func.func @over_written_slice(%x: !mbuf.view<1x4xf32>) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  %c = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x4xf32>
  // expected-note @below {{the other view}}
  %s0 = mbuf.subview %c[0] : !mbuf.view<2x4xf32> -> !mbuf.view<1x4xf32>
  mbuf.kernel ins(%x : !mbuf.view<1x4xf32>) outs(%s0 : !mbuf.view<1x4xf32>) {
  ^bb0(%t: tensor<1x4xf32>):
    %r = tg.relu %t : tensor<1x4xf32>
    mbuf.yield %r : tensor<1x4xf32>
  }
  // expected-error @below {{bytes [0, 16) of arena 0 overlap bytes [0, 16) of a view that is live at the same time}}
  %t = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<1x4xf32>
  mbuf.kernel ins(%x : !mbuf.view<1x4xf32>) outs(%t : !mbuf.view<1x4xf32>) {
  ^bb0(%a: tensor<1x4xf32>):
    %r = tg.neg %a : tensor<1x4xf32>
    mbuf.yield %r : tensor<1x4xf32>
  }
  mbuf.kernel ins(%s0, %t : !mbuf.view<1x4xf32>, !mbuf.view<1x4xf32>)
      outs(%c : !mbuf.view<2x4xf32>) {
  ^bb0(%a: tensor<1x4xf32>, %b: tensor<1x4xf32>):
    %r = tg.concat %a, %b {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    mbuf.yield %r : tensor<2x4xf32>
  }
  return
}

// -----

// Writing over an input in place needs tied_operands.
func.func @in_place_untied(%x: !mbuf.view<2x3xf32>) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  // expected-note @below {{the other view}}
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%a : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  // expected-error @below {{overlap bytes [0, 24) of a view that is live at the same time}}
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%a : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

// A view read after the kernel that writes over it in place.
func.func @in_place_live_after(%x: !mbuf.view<2x3xf32>) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  // expected-note @below {{the other view}}
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%a : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  // expected-error @below {{overlap}}
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%a : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>)
      attributes {tied_operands = array<i64: 0>} {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  mbuf.kernel ins(%a : !mbuf.view<2x3xf32>) outs(%x : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

// An asynchronous copy keeps its views live until its token is awaited.
func.func @copy_live_until_wait(%x: !mbuf.view<2x3xf32>) {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  %host = mbuf.arena 1 size 64 on device 0 : !mbuf.arena<pinned_host>
  %h = mbuf.view %host[0] : !mbuf.arena<pinned_host> -> !mbuf.view<2x3xf32, pinned_host>
  // expected-note @below {{the other view}}
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  %t = mbuf.copy_async %a to %h : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
  // expected-error @below {{overlap}}
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>) {
  ^bb0(%s: tensor<2x3xf32>):
    %r = tg.relu %s : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  mbuf.wait %t
  return
}

// -----

func.func @copy_never_awaited(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.copy_async' op its token is never awaited}}
  %t = mbuf.copy_async %x to %y : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32>
  return
}

// -----

func.func @copy_shapes(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<3x2xf32>) {
  // expected-error @below {{shapes and element types differ}}
  %t = mbuf.copy_async %x to %y : !mbuf.view<2x3xf32> -> !mbuf.view<3x2xf32>
  mbuf.wait %t
  return
}

// -----

func.func @send_to_self() {
  %arena = mbuf.arena 0 size 64 on device 1 : !mbuf.arena<device>
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  // expected-error @below {{'mbuf.send' op sends to its own device 1}}
  %t = mbuf.send %a to device 1 tag 0 : !mbuf.view<2x3xf32>
  mbuf.wait %t
  return
}

// -----

func.func @recv_from_self() {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  // expected-error @below {{'mbuf.recv' op receives from its own device 0}}
  %t = mbuf.recv %a from device 0 tag 0 : !mbuf.view<2x3xf32>
  mbuf.wait %t
  return
}

// -----

func.func @recv_never_awaited(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.recv' op its token is never awaited}}
  %t = mbuf.recv %x from device 1 tag 0 : !mbuf.view<2x3xf32>
  return
}

// -----

func.func @misaligned_view() {
  %arena = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
  // expected-error @below {{'mbuf.view' op offset 32 is not a multiple of 64 bytes}}
  %a = mbuf.view %arena[32] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  return
}

// -----

func.func @view_past_arena() {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  // expected-error @below {{'mbuf.view' op bytes [64, 88) exceed arena 0 of 64 bytes}}
  %a = mbuf.view %arena[64] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
  return
}

// -----

func.func @view_space() {
  %arena = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  // expected-error @below {{'mbuf.view' op the view's memory space (pinned_host) differs from its arena's (device)}}
  %a = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<2x3xf32, pinned_host>
  return
}

// -----

func.func @arena_twice() {
  %a = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<device>
  // expected-error @below {{'mbuf.arena' op arena 0 is defined twice in the same block}}
  %b = mbuf.arena 0 size 64 on device 0 : !mbuf.arena<pinned_host>
  return
}

// -----

func.func @subview_past_source(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.subview' op bytes [12, 36) exceed the 24 bytes of the source view}}
  %s = mbuf.subview %x[12] : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32>
  return
}

// -----

func.func @subview_element_type(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.subview' op a subview has the element type and memory space of its source}}
  %s = mbuf.subview %x[0] : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf16>
  return
}

// -----

func.func @result_index() -> !mbuf.view<2xf32> {
  // expected-error @below {{'mbuf.result' op the function has no result #1}}
  %r = mbuf.result 1 : !mbuf.view<2xf32>
  return %r : !mbuf.view<2xf32>
}

// -----

func.func @result_type() -> !mbuf.view<2xf32> {
  // expected-error @below {{'mbuf.result' op type '!mbuf.view<3xf32>' differs from the function's result #0, '!mbuf.view<2xf32>'}}
  %r = mbuf.result 0 : !mbuf.view<3xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @below {{'mbuf.constant' op value of type 'tensor<2xf32>' does not fit view '!mbuf.view<3xf32>'}}
  %c = mbuf.constant dense<1.0> : tensor<2xf32> -> !mbuf.view<3xf32>
  return
}

// -----

// expected-error @below {{a view holds f32, f16, bf16, i64 or i8 elements, not 'i32'}}
func.func @view_element_type(%x: !mbuf.view<2xi32>)

// -----

// expected-error @below {{expected a memory space (device or pinned_host), not 'host'}}
func.func @view_space_keyword(%x: !mbuf.view<2xf32, host>)

// -----

func.func @kernel_arguments(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op body argument #0 of type 'tensor<3x2xf32>' does not match input '!mbuf.view<2x3xf32>'}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<3x2xf32>):
    %r = tg.relu %t : tensor<3x2xf32>
    mbuf.yield %r : tensor<3x2xf32>
  }
  return
}

// -----

func.func @kernel_two_ops(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op the body holds exactly one op besides its mbuf.yield}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    %s = tg.relu %r : tensor<2x3xf32>
    mbuf.yield %s : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_yield(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op yields 1 values for 2 outputs}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y, %y : !mbuf.view<2x3xf32>, !mbuf.view<2x3xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_yield_type(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<6xf32>) {
  // expected-error @below {{'mbuf.kernel' op yielded value #0 of type 'tensor<2x3xf32>' does not match output '!mbuf.view<6xf32>'}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<6xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_tied_size(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op 'tied_operands' has 2 entries for 1 inputs}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>)
      attributes {tied_operands = array<i64: 0, 0>} {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_tied_elsewhere(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op input #0 is tied to output #0 but is neither its bytes nor a subview of it}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>)
      attributes {tied_operands = array<i64: 0>} {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_workspace(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32>, %w: !mbuf.view<4xf32>) {
  // expected-error @below {{'mbuf.kernel' op the workspace is a 1-D view of i8, not '!mbuf.view<4xf32>'}}
  mbuf.kernel ins(%x : !mbuf.view<2x3xf32>) outs(%y : !mbuf.view<2x3xf32>) workspace(%w : !mbuf.view<4xf32>) {
  ^bb0(%t: tensor<2x3xf32>):
    %r = tg.relu %t : tensor<2x3xf32>
    mbuf.yield %r : tensor<2x3xf32>
  }
  return
}

// -----

func.func @kernel_nested_mbuf(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.kernel' op the computation of a kernel is an op of a value-semantics dialect, not mbuf.wait}}
  mbuf.kernel outs(%x : !mbuf.view<2x3xf32>) {
    mbuf.wait
    mbuf.yield
  }
  return
}

// -----

func.func @wait_nothing() {
  // expected-error @below {{'mbuf.wait' op waits for no token}}
  mbuf.wait
  return
}

// -----

// Sizes and offsets near INT64_MAX: each is checked without overflow (the
// view below is 2^64 + 4 bytes, 4 in 64-bit arithmetic; before the check
// it fit the 128-byte arena and overlapped %a unnoticed).
// expected-error @below {{a view's size in bytes overflows int64}}
func.func @view_size_overflow(%x: !mbuf.view<4611686018427387905xf32>)

// -----

// expected-error @below {{a view's size in bytes overflows int64}}
func.func @view_size_overflow_in_dims(%x: !mbuf.view<4294967296x4294967296xi8>)

// -----

func.func @view_end_overflow() {
  %arena = mbuf.arena 0 size 128 on device 0 : !mbuf.arena<device>
  // expected-error @below {{'mbuf.view' op bytes [9223372036854775744, 9223372036854775872) exceed arena 0 of 128 bytes}}
  %a = mbuf.view %arena[9223372036854775744] : !mbuf.arena<device> -> !mbuf.view<32xf32>
  %b = mbuf.view %arena[0] : !mbuf.arena<device> -> !mbuf.view<32xf32>
  mbuf.kernel ins(%a : !mbuf.view<32xf32>) outs(%b : !mbuf.view<32xf32>) {
  ^bb0(%t: tensor<32xf32>):
    %r = tg.relu %t : tensor<32xf32>
    mbuf.yield %r : tensor<32xf32>
  }
  return
}

// -----

func.func @subview_end_overflow(%x: !mbuf.view<4xf32>) {
  // expected-error @below {{'mbuf.subview' op bytes [9223372036854775800, 9223372036854775816) exceed the 16 bytes of the source view}}
  %s = mbuf.subview %x[9223372036854775800] : !mbuf.view<4xf32> -> !mbuf.view<4xf32>
  return
}

// -----

// The runtime's tensors have at most kMaxRank (8) dimensions: MONAI's 3-D window
// partition views a token grid as 8.
// expected-error @below {{a view has at most 8 dimensions (the runtime's kMaxRank), not 9}}
func.func @view_rank(%x: !mbuf.view<1x1x1x1x1x1x1x1x1xf32>)

// -----

func.func @arena_index_range() {
  // expected-error @below {{'mbuf.arena' op arena index 2147483647 is out of range: arenas are numbered 0 to 2147483646}}
  %arena = mbuf.arena 2147483647 size 64 on device 0 : !mbuf.arena<device>
  return
}

// -----

func.func @arena_device_range() {
  // expected-error @below {{'mbuf.arena' op device 9223372036854775807 is out of range: devices are numbered 0 to 2147483647}}
  %arena = mbuf.arena 0 size 64 on device 9223372036854775807 : !mbuf.arena<device>
  return
}

// -----

func.func @send_peer_range(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.send' op peer device 2147483648 is out of range: devices are numbered 0 to 2147483647}}
  %t = mbuf.send %x to device 2147483648 tag 0 : !mbuf.view<2x3xf32>
  mbuf.wait %t
  return
}

// -----

func.func @recv_peer_range(%x: !mbuf.view<2x3xf32>) {
  // expected-error @below {{'mbuf.recv' op peer device 4294967296 is out of range: devices are numbered 0 to 2147483647}}
  %t = mbuf.recv %x from device 4294967296 tag 0 : !mbuf.view<2x3xf32>
  mbuf.wait %t
  return
}

// -----

func.func @awaited_twice(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32, pinned_host>) {
  %t = mbuf.copy_async %x to %y : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
  mbuf.wait %t
  // expected-error @below {{'mbuf.wait' op token #0 is awaited a second time: wait for a token once}}
  mbuf.wait %t
  return
}

// -----

func.func @awaited_twice_in_one_wait(%x: !mbuf.view<2x3xf32>, %y: !mbuf.view<2x3xf32, pinned_host>) {
  %t = mbuf.copy_async %x to %y : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
  %u = mbuf.copy_async %y to %x : !mbuf.view<2x3xf32, pinned_host> -> !mbuf.view<2x3xf32>
  // expected-error @below {{'mbuf.wait' op token #2 is awaited a second time: wait for a token once}}
  mbuf.wait %t, %u, %t
  return
}
