// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file | memopt-opt -split-input-file | FileCheck %s

// CHECK: func.func @stage() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 2, order = "F0 F1 B0 F2 B1 F3 B2 B3", schedule = "1f1b", peak_bytes_gpipe = 655838464, peak_bytes_1f1b = 391577088>}
func.func @stage() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 4, in_flight = 2, order = "F0 F1 B0 F2 B1 F3 B2 B3", schedule = "1f1b", peak_bytes_gpipe = 655838464, peak_bytes_1f1b = 391577088>} {
  return
}

// -----

// One process: no schedule, no peaks (not printed).
// CHECK: func.func @accumulate() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1">}
func.func @accumulate() attributes {memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1", peak_bytes_gpipe = 0>} {
  return
}
