// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#memopt.remat strategy must be "sqrt", "auto" or "optimal", got "none"}}
func.func @none() attributes {memopt.remat = #memopt.remat<strategy = "none", recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+1 {{#memopt.remat segment_ops belongs to strategy "sqrt", not "auto"}}
func.func @segments() attributes {memopt.remat = #memopt.remat<strategy = "auto", segment_ops = 3, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+1 {{#memopt.remat rounds, overshoot and exchanges belong to strategy "auto", not "optimal"}}
func.func @rounds() attributes {memopt.remat = #memopt.remat<strategy = "optimal", rounds = 2, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+1 {{#memopt.remat milp belongs to strategy "optimal", not "auto"}}
func.func @milp() attributes {memopt.remat = #memopt.remat<strategy = "auto", milp = #memopt.remat_milp<budget_bytes = 1, solver = "dp", status = "optimal", objective_seconds = 0.0 : f64, bound_seconds = 0.0 : f64, gap = 0.0 : f64, solves = 0, units = 1, stages = 1, chain_units = 1, chain_solves = 1, bin_bytes = 1>, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+2 {{#memopt.remat_milp solver must be "none", "dp", "milp" or "auto", got "cplex"}}
// expected-error @+1 {{failed to parse Memopt_RematAttr parameter 'milp' which is to be a `::memopt::RematMilpAttr`}}
func.func @solver() attributes {memopt.remat = #memopt.remat<strategy = "optimal", milp = #memopt.remat_milp<budget_bytes = 1, solver = "cplex", status = "optimal", objective_seconds = 0.0 : f64, bound_seconds = 0.0 : f64, gap = 0.0 : f64, solves = 1, units = 1, stages = 1, chain_units = 1, chain_solves = 0, bin_bytes = 1>, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+2 {{#memopt.remat_milp gap must be in [0, 1], got -5.000000e-01}}
// expected-error @+1 {{failed to parse Memopt_RematAttr parameter 'milp' which is to be a `::memopt::RematMilpAttr`}}
func.func @gap() attributes {memopt.remat = #memopt.remat<strategy = "optimal", milp = #memopt.remat_milp<budget_bytes = 1, solver = "milp", status = "optimal", objective_seconds = 0.0 : f64, bound_seconds = 0.0 : f64, gap = -0.5 : f64, solves = 1, units = 1, stages = 1, chain_units = 1, chain_solves = 0, bin_bytes = 1>, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
  return
}

// -----

// expected-error @+1 {{'memopt.remat' belongs on a function, not on 'builtin.module'}}
module attributes {memopt.remat = #memopt.remat<strategy = "sqrt", segment_ops = 1, recomputed_values = 0, recomputed_ops = 0, stored_values = 0, flops_added = 0, seconds_added = 0.0 : f64, simulated_peak_bytes_before = 0, simulated_peak_bytes_after = 0>} {
}

// -----

// expected-error @+1 {{'memopt.remat' must be a #memopt.remat<strategy = S, ...>, got {strategy = "sqrt"}}}
func.func @dictionary() attributes {memopt.remat = {strategy = "sqrt"}} {
  return
}
