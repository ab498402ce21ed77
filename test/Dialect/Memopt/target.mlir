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
