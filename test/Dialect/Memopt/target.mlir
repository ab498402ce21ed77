// RUN: memopt-opt %s -split-input-file | FileCheck %s
// RUN: memopt-opt %s -split-input-file | memopt-opt -split-input-file | FileCheck %s

// in_place is printed only when it is not the backend's default.
// CHECK: module attributes {memopt.target = #memopt.target<cpu>}
module attributes {memopt.target = #memopt.target<cpu, in_place = true>} {}

// -----

// CHECK: module attributes {memopt.target = #memopt.target<cpu, in_place = false>}
module attributes {memopt.target = #memopt.target<cpu, in_place = false>} {}

// -----

// CHECK: module attributes {memopt.target = #memopt.target<cuda>}
module attributes {memopt.target = #memopt.target<cuda, in_place = false>} {}

// -----

// The device and the budget; a built-in device prints only what differs.
// CHECK: module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"rtx2060", memory = 6442450944, lean = 3.000000e+00>, budget = 4294967296>}
module attributes {memopt.target = #memopt.target<cuda, budget = 4294967296, device = #memopt.device<"rtx2060", memory = 6442450944, fp32 = 6.45e12, lean = 3>>} {}

// -----

// The backend's default device is not printed.
// CHECK: module attributes {memopt.target = #memopt.target<cuda>}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"a100-40g">>} {}

// -----

// CHECK: module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"a100-40g">>}
module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"a100-40g">>} {}

// -----

// A device of any other name gives its numbers; the zeros are not printed.
// CHECK: module attributes {memopt.target = #memopt.target<cpu, in_place = false, device = #memopt.device<"mygpu", memory = 8589934592, fp32 = 6.500000e+12, bandwidth = 3.360000e+11, launch = 5.000000e-06>>}
module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"mygpu", memory = 8589934592, fp32 = 6.5e12, tf32 = 0, bandwidth = 3.36e11, launch = 5.0e-6>, in_place = false>} {}
