// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file | memopt-opt -split-input-file | FileCheck %s

// Only index and stages are required; the defaults are not printed.
// CHECK: func.func @minimal() attributes {memopt.stage = #memopt.stage<index = 1, stages = 2>}
func.func @minimal() attributes {memopt.stage = #memopt.stage<index = 1, stages = 2, forward_begin = 0, send_bytes = 0>} {
  return
}

// -----

// CHECK: func.func @full() attributes {memopt.stage = #memopt.stage<index = 0, stages = 3, of = "train_step", forward_end = 7, persistent_bytes = 4096, simulated_peak_bytes = 9216, seconds = 1.000000e-05 : f64, send_bytes = 1024>}
func.func @full() attributes {memopt.stage = #memopt.stage<index = 0, stages = 3, of = "train_step", forward_begin = 0, forward_end = 7, persistent_bytes = 4096, simulated_peak_bytes = 9216, seconds = 1.0e-5 : f64, send_bytes = 1024>} {
  return
}
