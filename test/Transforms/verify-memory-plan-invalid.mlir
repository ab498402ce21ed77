// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-verify-memory-plan

// Two buffers live at the same time share bytes.
func.func @overlap(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> attributes {memopt.arena_bytes = 8256 : i64} {
  // expected-note @+1 {{the other buffer's op}}
  %a = tg.relu %x {memopt.offsets = array<i64: 0>} : tensor<1x1x32x32xf32>
  // expected-error @+1 {{memory plan: result #0 of 'tg.sigmoid' at arena bytes [64, 4160) overlaps result #0 of 'tg.relu' at arena bytes [0, 4096), which is live at the same time}}
  %b = tg.sigmoid %a {memopt.offsets = array<i64: 64>} : tensor<1x1x32x32xf32>
  %c = tg.add %a, %b {memopt.offsets = array<i64: 4160>} : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %d = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, memopt.offsets = array<i64: -1>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %d : tensor<1x1x16x16xf32>
}

// -----

// A workspace overlaps a value its op reads.
func.func @workspace(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32> attributes {memopt.arena_bytes = 128 : i64} {
  // expected-note @+1 {{the other buffer's op}}
  %a = tg.relu %x {memopt.offsets = array<i64: 0>} : tensor<1x1x4x4xf32>
  // expected-error @+1 {{memory plan: the workspace of 'tg.conv2d' at arena bytes [0, 64) overlaps result #0 of 'tg.relu' at arena bytes [0, 64), which is live at the same time}}
  %b = tg.conv2d %a, %w {memopt.offsets = array<i64: 64>, memopt.workspace = array<i64: 0, 16>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %c = tg.neg %b {memopt.offsets = array<i64: -1>} : tensor<1x1x4x4xf32>
  return %c : tensor<1x1x4x4xf32>
}

// -----

func.func @misaligned(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_bytes = 128 : i64} {
  // expected-error @+1 {{memory plan: result #0 of 'tg.relu' at arena bytes [32, 96) is not aligned to 64 bytes}}
  %a = tg.relu %x {memopt.offsets = array<i64: 32>} : tensor<4xf32>
  %b = tg.neg %a {memopt.offsets = array<i64: -1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @outside(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_bytes = 64 : i64} {
  // expected-error @+1 {{memory plan: result #0 of 'tg.relu' at arena bytes [64, 128) exceeds the arena of 64 bytes}}
  %a = tg.relu %x {memopt.offsets = array<i64: 64>} : tensor<4xf32>
  %b = tg.neg %a {memopt.offsets = array<i64: -1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// In place over an operand that a later op still reads.
func.func @operand_live(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_bytes = 128 : i64} {
  %a = tg.relu %x {memopt.offsets = array<i64: 0>} : tensor<4xf32>
  // expected-error @+1 {{memory plan: result #0 is written over operand #0, which must be at the same offset and die here}}
  %b = tg.sigmoid %a {memopt.offsets = array<i64: 0>, memopt.in_place = array<i64: 0>} : tensor<4xf32>
  %c = tg.add %a, %b {memopt.offsets = array<i64: -1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Max pooling reads a window per output element: never in place.
func.func @not_in_place(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> attributes {memopt.arena_bytes = 64 : i64} {
  %a = tg.relu %x {memopt.offsets = array<i64: 0>} : tensor<1x1x2x2xf32>
  // expected-error @+1 {{memory plan: result #0 cannot be written over operand #0 in place}}
  %b = tg.max_pool2d %a {kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, memopt.offsets = array<i64: 0>, memopt.in_place = array<i64: 0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %c = tg.neg %b {memopt.offsets = array<i64: -1>} : tensor<1x1x2x2xf32>
  return %c : tensor<1x1x2x2xf32>
}

// -----

// expected-error @+1 {{memory plan: the function has no 'memopt.arena_bytes'; run -tg-plan-memory first}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tg.relu %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @malformed(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_bytes = 64 : i64} {
  // expected-error @+1 {{memory plan: expected 'memopt.offsets' to be an array<i64> of 1 entries; run -tg-plan-memory}}
  %a = tg.relu %x {memopt.offsets = array<i64: 0, 0>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A temporary must live somewhere.
func.func @homeless(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arena_bytes = 64 : i64} {
  // expected-error @+1 {{memory plan: result #0 has no arena offset, but it is neither a constant nor a step result computed in its buffer}}
  %a = tg.relu %x {memopt.offsets = array<i64: -1>} : tensor<4xf32>
  %b = tg.neg %a {memopt.offsets = array<i64: -1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// A sliced concat operand must sit in its slice of the result.
func.func @slice_elsewhere(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> attributes {memopt.arena_bytes = 512 : i64} {
  %a = tg.relu %x {memopt.offsets = array<i64: 256>} : tensor<1x2x4x4xf32>
  %b = tg.neg %x {memopt.offsets = array<i64: 128>} : tensor<1x2x4x4xf32>
  // expected-error @+1 {{memory plan: operand #0 must be at arena offset 0, its slice of the result}}
  %c = tg.concat %a, %b {axis = 1, memopt.offsets = array<i64: 0>, memopt.sliced_operands = array<i64: 0, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = tg.neg %c {memopt.offsets = array<i64: -1>} : tensor<1x4x4x4xf32>
  return %d : tensor<1x4x4x4xf32>
}

// -----

// A sliced operand is part of the concat's result while that is live: it
// cannot be overwritten in place.
func.func @overwrite_slice(%x: tensor<1x2x4x4xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x2x4x4xf32>) attributes {memopt.arena_bytes = 256 : i64} {
  %a = tg.relu %x {memopt.offsets = array<i64: 0>} : tensor<1x2x4x4xf32>
  %b = tg.neg %x {memopt.offsets = array<i64: 128>} : tensor<1x2x4x4xf32>
  // expected-note @+1 {{the other buffer's op}}
  %c = tg.concat %a, %b {axis = 1, memopt.offsets = array<i64: 0>, memopt.sliced_operands = array<i64: 0, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-error @+1 {{memory plan: result #0 of 'tg.sigmoid' at arena bytes [0, 128) overlaps result #0 of 'tg.concat' at arena bytes [0, 256), which is live at the same time}}
  %e = tg.sigmoid %a {memopt.offsets = array<i64: 0>, memopt.in_place = array<i64: 0>} : tensor<1x2x4x4xf32>
  %g = tg.max_pool2d %c {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, memopt.offsets = array<i64: -1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %h = tg.neg %e {memopt.offsets = array<i64: -1>} : tensor<1x2x4x4xf32>
  return %g, %h : tensor<1x4x2x2xf32>, tensor<1x2x4x4xf32>
}
