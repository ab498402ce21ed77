// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown backend 'gpu': expected cpu or cuda}}
module attributes {memopt.target = #memopt.target<gpu>} {}

// -----

// expected-error @+1 {{#memopt.target<cuda> does not allow in_place = true: the CUDA kernels are not checked for in-place writes}}
module attributes {memopt.target = #memopt.target<cuda, in_place = true>} {}

// -----

// expected-error @+1 {{in_place must be true or false, got 'yes'}}
module attributes {memopt.target = #memopt.target<cpu, in_place = yes>} {}

// -----

// expected-error @+1 {{'memopt.target' must be a #memopt.target<cpu|cuda>, got "cpu"}}
module attributes {memopt.target = "cpu"} {}

// -----

module {
  // expected-error @+1 {{'memopt.target' belongs on the module, not on 'func.func'}}
  func.func @f() attributes {memopt.target = #memopt.target<cpu>} {
    return
  }
}
