// RUN: memopt-opt %s -split-input-file -convert-tg-to-mbuf -verify-diagnostics

// The record must fit the ops it is on; the mbuf verifier then checks the
// places themselves (alignment, bounds, overlaps).

module attributes {memopt.target = #memopt.target<cpu>} {
  // expected-error @below {{convert-tg-to-mbuf: @unplanned has no memory plan (an i64 'memopt.arena_size' >= 0): run tg-plan-memory first}}
  func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tg.relu %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @not_a_dictionary(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' must be a dictionary, got 0 : i64}}
    %a = tg.relu %x {memopt.place = 0 : i64} : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @offsets_per_result(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' offsets must be an array<i64> of one offset >= 0 (or -1) per result, got array<i64: 0, 64>}}
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 0, 64>}} : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @in_place_operand(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 0>}} : tensor<4xf32>
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' in_place must be an array<i64> of one operand index (or -1) per result, got array<i64: 1>}}
    %b = tg.neg %a {memopt.place = {offsets = array<i64: 0>, in_place = array<i64: 1>}} : tensor<4xf32>
    %c = tg.sigmoid %b : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @sliced_operand(%x: tensor<1x2xf32>) -> tensor<1x4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' sliced must be an array<i64> of operand indices, got array<i64: 2>}}
    %c = tg.concat %x, %x {axis = 1, memopt.place = {offsets = array<i64: 0>, sliced = array<i64: 2>}} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    %d = tg.neg %c : tensor<1x4xf32>
    return %d : tensor<1x4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @workspace_of_nothing(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' places a workspace of an op that has none (no 'memopt.workspace_bytes')}}
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 0>, workspace = 0 : i64}} : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @unknown_entry(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: 'memopt.place' has no entry 'offset'; expected offsets, in_place, sliced or workspace}}
    %a = tg.relu %x {memopt.place = {offset = 0 : i64}} : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @no_place(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{convert-tg-to-mbuf: result #0 of 'tg.relu' has no place in the memory plan}}
    %a = tg.relu %x : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

// The mbuf verifier checks the places the record gave.
module attributes {memopt.target = #memopt.target<cpu>} {
  func.func @beyond_the_arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_size = 64 : i64} {
    // expected-error @below {{'mbuf.view' op bytes [64, 80) exceed arena 0 of 64 bytes}}
    %a = tg.relu %x {memopt.place = {offsets = array<i64: 64>}} : tensor<4xf32>
    %b = tg.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}
