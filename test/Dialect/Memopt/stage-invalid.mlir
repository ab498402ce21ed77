// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#memopt.stage index 2 must be in [0, stages) with stages >= 1, got stages = 2}}
func.func @index_beyond() attributes {memopt.stage = #memopt.stage<index = 2, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#memopt.stage index -1 must be in [0, stages) with stages >= 1, got stages = 2}}
func.func @negative_index() attributes {memopt.stage = #memopt.stage<index = -1, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#memopt.stage forward ops [5, 3) must be a range of positions, begin <= end}}
func.func @backward_range() attributes {memopt.stage = #memopt.stage<index = 0, stages = 2, forward_begin = 5, forward_end = 3>} {
  return
}

// -----

// expected-error @+1 {{struct is missing required parameter: stages}}
func.func @no_stages() attributes {memopt.stage = #memopt.stage<index = 0>} {
  return
}

// -----

// expected-error @+1 {{'memopt.stage' must be a #memopt.stage<index = I, stages = N, ...>, got {index = 0 : i64, stages = 2 : i64}}}
func.func @dictionary() attributes {memopt.stage = {index = 0 : i64, stages = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{'memopt.stage' belongs on a function, not on 'builtin.module'}}
module attributes {memopt.stage = #memopt.stage<index = 0, stages = 2>} {}
