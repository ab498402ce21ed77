// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#memopt.microbatch in_flight 3 must be in [0, microbatches] with microbatches >= 1, got microbatches = 2}}
func.func @too_many_in_flight() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 3, order = "F0 F1">} {
  return
}

// -----

// expected-error @+1 {{#memopt.microbatch in_flight 0 must be in [0, microbatches] with microbatches >= 1, got microbatches = 0}}
func.func @no_microbatch() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 0, in_flight = 0, order = "">} {
  return
}

// -----

// expected-error @+1 {{#memopt.microbatch schedule must be "gpipe" or "1f1b", got "zigzag"}}
func.func @zigzag() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 2, order = "F0 F1 B0 B1", schedule = "zigzag">} {
  return
}

// -----

// expected-error @+1 {{'memopt.microbatch' must be a #memopt.microbatch<microbatches = M, in_flight = K, order = O, ...>, got {microbatches = 2 : i64}}}
func.func @dictionary() attributes {memopt.microbatch = {microbatches = 2 : i64}} {
  return
}
