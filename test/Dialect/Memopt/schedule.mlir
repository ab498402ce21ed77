// RUN: memopt-opt %s | FileCheck %s
// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// CHECK: func.func @f() attributes {memopt.schedule = #memopt.schedule<strategy = "free-first", simulated_peak_bytes = 6144, candidates = {"free-first" = 6144 : i64, given = 9216 : i64}>}
func.func @f() attributes {memopt.schedule = #memopt.schedule<strategy = "free-first", simulated_peak_bytes = 6144, candidates = {given = 9216 : i64, "free-first" = 6144 : i64}>} {
  return
}
