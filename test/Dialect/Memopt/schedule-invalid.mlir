// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#memopt.schedule strategy 'frees-asap' is not among its candidates}}
func.func @unknown() attributes {memopt.schedule = #memopt.schedule<strategy = "frees-asap", simulated_peak_bytes = 10, candidates = {given = 10 : i64}>} {
  return
}

// -----

// expected-error @+1 {{#memopt.schedule simulated_peak_bytes 9 differs from candidate 'given''s 10}}
func.func @other_peak() attributes {memopt.schedule = #memopt.schedule<strategy = "given", simulated_peak_bytes = 9, candidates = {given = 10 : i64}>} {
  return
}

// -----

// expected-error @+1 {{#memopt.schedule candidate 'given' must be an integer number of bytes, got "many"}}
func.func @not_bytes() attributes {memopt.schedule = #memopt.schedule<strategy = "given", simulated_peak_bytes = 9, candidates = {given = "many"}>} {
  return
}

// -----

// expected-error @+1 {{'memopt.schedule' must be a #memopt.schedule<strategy = S, simulated_peak_bytes = B, candidates = {...}>, got {strategy = "given"}}}
func.func @dictionary() attributes {memopt.schedule = {strategy = "given"}} {
  return
}

// -----

// expected-error @+1 {{'memopt.schedule' belongs on a function, not on 'builtin.module'}}
module attributes {memopt.schedule = #memopt.schedule<strategy = "given", simulated_peak_bytes = 10, candidates = {given = 10 : i64}>} {}
