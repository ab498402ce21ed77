// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file | memopt-opt -split-input-file | FileCheck %s

// tg-offload's own plan (zero counts are not printed).
// CHECK: func.func @own() attributes {memopt.offload = #memopt.offload<planner = "tg-offload", budget_bytes = 5100, persistent_bytes = 2148, planned_arena_bytes = 2944, rounds = 3, values = 1, d2h_bytes = 512, h2d_bytes = 512, host_bytes = 512, link_bytes_per_second = 5.120000e+10 : f64, compute_seconds = 3.000000e-05 : f64, stall_seconds = 0.000000e+00 : f64>}
func.func @own() attributes {memopt.offload = #memopt.offload<planner = "tg-offload", budget_bytes = 5100, persistent_bytes = 2148, planned_arena_bytes = 2944, rounds = 3, values = 1, synchronous = 0, d2h_bytes = 512, h2d_bytes = 512, host_bytes = 512, link_bytes_per_second = 5.12e+10 : f64, compute_seconds = 3.0e-05 : f64, stall_seconds = 0.0 : f64>} {
  return
}

// -----

// tg-remat's joint plan: no budget of its own.
// CHECK: func.func @joint() attributes {memopt.offload = #memopt.offload<planner = "tg-remat", values = 4, synchronous = 1, d2h_bytes = 1216, h2d_bytes = 1216, host_bytes = 1216, link_bytes_per_second = 5.120000e+10 : f64, compute_seconds = 3.000000e-05 : f64, stall_seconds = 1.000000e-03 : f64>}
func.func @joint() attributes {memopt.offload = #memopt.offload<planner = "tg-remat", values = 4, synchronous = 1, d2h_bytes = 1216, h2d_bytes = 1216, host_bytes = 1216, link_bytes_per_second = 5.12e+10 : f64, compute_seconds = 3.0e-05 : f64, stall_seconds = 1.0e-03 : f64>} {
  return
}

// -----

// CHECK-LABEL: func.func @copies
// CHECK: tg.relu %{{.*}} {memopt.offload_results = #memopt.offload_results<results = [0]>}
// CHECK: tg.batch_norm {{.*}}{memopt.offload_results = #memopt.offload_results<results = [0], synchronous = [4]>}
// CHECK: tg.offload_start %{{.*}} {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 1.000000e-08 : f64>}
// CHECK: tg.offload_start %{{.*}} {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 5.120000e-04 : f64, synchronous = true>}
func.func @copies(%x: tensor<1x2x8x8xf32>, %s: tensor<2xf32>) {
  %r = tg.relu %x {memopt.offload_results = #memopt.offload_results<results = [0]>} : tensor<1x2x8x8xf32>
  %y:5 = tg.batch_norm %r, %s, %s, %s, %s {memopt.offload_results = #memopt.offload_results<results = [0], synchronous = [4]>} : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %h0 = tg.offload_start %r {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 1.0e-08 : f64>} : tensor<1x2x8x8xf32>
  tg.offload_wait %r, %h0 : tensor<1x2x8x8xf32>
  %h1 = tg.offload_start %y#0 {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 5.12e-04 : f64, synchronous = true>} : tensor<1x2x8x8xf32>
  tg.offload_wait %y#0, %h1 : tensor<1x2x8x8xf32>
  %d0 = tg.prefetch_start %h0 : tensor<1x2x8x8xf32>
  tg.prefetch_wait %d0 : tensor<1x2x8x8xf32>
  %d1 = tg.prefetch_start %h1 : tensor<1x2x8x8xf32>
  tg.prefetch_wait %d1 : tensor<1x2x8x8xf32>
  return
}
