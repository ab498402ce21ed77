// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#memopt.offload planner must be "tg-offload" or "tg-remat", got "tg-amp"}}
func.func @planner() attributes {memopt.offload = #memopt.offload<planner = "tg-amp", link_bytes_per_second = 1.0 : f64, compute_seconds = 0.0 : f64, stall_seconds = 0.0 : f64>} {
  return
}

// -----

// expected-error @+1 {{#memopt.offload synchronous 2 must be at most values = 1}}
func.func @synchronous() attributes {memopt.offload = #memopt.offload<planner = "tg-offload", values = 1, synchronous = 2, link_bytes_per_second = 1.0 : f64, compute_seconds = 0.0 : f64, stall_seconds = 0.0 : f64>} {
  return
}

// -----

// expected-error @+1 {{#memopt.offload link_bytes_per_second must be positive, got 0.000000e+00}}
func.func @no_link() attributes {memopt.offload = #memopt.offload<planner = "tg-offload", link_bytes_per_second = 0.0 : f64, compute_seconds = 0.0 : f64, stall_seconds = 0.0 : f64>} {
  return
}

// -----

// expected-error @+1 {{'memopt.offload' must be a #memopt.offload<planner = P, ...>, got {values = 1 : i64}}}
func.func @dictionary() attributes {memopt.offload = {values = 1 : i64}} {
  return
}

// -----

func.func @negative_seconds(%x: tensor<4xf32>) {
  // expected-error @+1 {{#memopt.offload_copy seconds must not be negative, got -1.000000e+00}}
  %h = tg.offload_start %x {memopt.offload_copy = #memopt.offload_copy<bytes = 16, seconds = -1.0 : f64>} : tensor<4xf32>
  return
}

// -----

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{#memopt.offload_results must name a result}}
  %r = tg.relu %x {memopt.offload_results = #memopt.offload_results<>} : tensor<4xf32>
  return
}

// -----

func.func @unordered(%x: tensor<4xf32>) {
  // expected-error @+1 {{#memopt.offload_results results must be result numbers in increasing order, got 0 at 1}}
  %r = tg.relu %x {memopt.offload_results = #memopt.offload_results<results = [1, 0]>} : tensor<4xf32>
  return
}

// -----

func.func @both(%x: tensor<4xf32>) {
  // expected-error @+1 {{#memopt.offload_results result #0 is both in results and synchronous}}
  %r = tg.relu %x {memopt.offload_results = #memopt.offload_results<results = [0], synchronous = [0]>} : tensor<4xf32>
  return
}

// -----

func.func @out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'memopt.offload_results' names result #1 of an op with 1 results}}
  %r = tg.relu %x {memopt.offload_results = #memopt.offload_results<synchronous = [1]>} : tensor<4xf32>
  return
}
