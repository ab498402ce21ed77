// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file | memopt-opt -split-input-file | FileCheck %s

// CHECK: func.func @sqrt() attributes {memopt.remat = #memopt.remat<strategy = "sqrt", segment_ops = 3, recomputed_values = 2, recomputed_ops = 3, stored_values = 3, flops_added = 4864, seconds_added = 3.000000e-06 : f64, simulated_peak_bytes_before = 2752, simulated_peak_bytes_after = 2240>}
func.func @sqrt() attributes {memopt.remat = #memopt.remat<strategy = "sqrt", segment_ops = 3, recomputed_values = 2, recomputed_ops = 3, stored_values = 3, flops_added = 4864, seconds_added = 3.0e-06 : f64, simulated_peak_bytes_before = 2752, simulated_peak_bytes_after = 2240>} {
  return
}

// -----

// Zero counts and false flags are not printed.
// CHECK: func.func @auto() attributes {memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5350000, persistent_bytes = 540248, planned_arena_bytes = 4802112, rounds = 55, overshoot = true, exchanges = 1, recomputed_values = 16, recomputed_ops = 45, stored_values = 65, nested_values = 1, cuts = 1, flops_added = 7631392, seconds_added = 2.000000e-04 : f64, simulated_peak_bytes_before = 5555776, simulated_peak_bytes_after = 4970368, offloaded_values = 2, offloaded_bytes = 1024>}
func.func @auto() attributes {memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5350000, persistent_bytes = 540248, planned_arena_bytes = 4802112, rounds = 55, overshoot = true, exchanges = 1, recomputed_values = 16, recomputed_ops = 45, stored_values = 65, nested_values = 1, private_clones = false, cuts = 1, flops_added = 7631392, seconds_added = 2.0e-04 : f64, simulated_peak_bytes_before = 5555776, simulated_peak_bytes_after = 4970368, lean_workspaces = 0, offloaded_values = 2, offloaded_bytes = 1024>} {
  return
}

// -----

// CHECK: func.func @optimal() attributes {memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 4800, persistent_bytes = 2116, planned_arena_bytes = 2240, milp = <budget_bytes = 2684, solver = "dp", status = "optimal", objective_seconds = 2.000000e-06 : f64, bound_seconds = 2.000000e-06 : f64, gap = 0.000000e+00 : f64, solves = 0, units = 6, stages = 4, chain_units = 6, chain_solves = 1, bin_bytes = 1>, recomputed_values = 1, recomputed_ops = 2, stored_values = 3, private_clones = true, flops_added = 4736, seconds_added = 2.000000e-06 : f64, simulated_peak_bytes_before = 2752, simulated_peak_bytes_after = 2432>}
func.func @optimal() attributes {memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 4800, persistent_bytes = 2116, planned_arena_bytes = 2240, milp = #memopt.remat_milp<budget_bytes = 2684, solver = "dp", status = "optimal", objective_seconds = 2.0e-06 : f64, bound_seconds = 2.0e-06 : f64, gap = 0.0 : f64, solves = 0, units = 6, stages = 4, chain_units = 6, chain_solves = 1, bin_bytes = 1>, recomputed_values = 1, recomputed_ops = 2, stored_values = 3, private_clones = true, flops_added = 4736, seconds_added = 2.0e-06 : f64, simulated_peak_bytes_before = 2752, simulated_peak_bytes_after = 2432>} {
  return
}
