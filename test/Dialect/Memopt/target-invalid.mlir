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

// -----

// expected-error @+1 {{the budget of 8589934593 bytes (8.00 GiB) exceeds the memory of device 'rtx2060', 8589934592 bytes (8.00 GiB): give a budget of at most 8589934592 bytes or a device with more memory}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"rtx2060">, budget = 8589934593>} {}

// -----

// expected-error @+1 {{budget must be a positive number of bytes; leave it out for none}}
module attributes {memopt.target = #memopt.target<cpu, budget = 0>} {}

// -----

// expected-error @+1 {{unknown target key 'memory': expected in_place, device or budget}}
module attributes {memopt.target = #memopt.target<cpu, memory = 5>} {}

// -----

// expected-error @+1 {{target key 'budget' given twice}}
module attributes {memopt.target = #memopt.target<cpu, budget = 5, budget = 6>} {}

// -----

// expected-error @+1 {{device 'h100': memory must be positive, got 0}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", memory = 0>>} {}

// -----

// expected-error @+1 {{device 'h100': fp32 must be a positive number, got 0}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", fp32 = 0>>} {}

// -----

// expected-error @+1 {{device 'h100': link must be a finite number >= 0, got -1}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", link = -1.0>>} {}

// -----

// expected-error @+1 {{device 'h100': lean must be a factor from 1 to 1e6, got 0.5}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", lean = 0.5>>} {}

// -----

// expected-error @+1 {{unknown device key 'colour': expected memory, fp32, tf32, bf16, fp16, bandwidth, link, launch or lean}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", colour = 1>>} {}

// -----

// expected-error @+1 {{device key 'memory' given twice}}
module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"h100", memory = 1, memory = 2>>} {}

// -----

// expected-error @+1 {{#memopt.device<"mygpu"> is not a built-in profile (cpu, rtx2060, a100-40g, h100): give memory, fp32 and bandwidth}}
module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"mygpu", memory = 1024>>} {}

// -----

// expected-error @+1 {{#memopt.device needs a name}}
module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"", memory = 1, fp32 = 1, bandwidth = 1>>} {}

// -----

// expected-error @+1 {{device key 'fp32' expects a number, got "fast"}}
module attributes {memopt.target = #memopt.target<cpu, device = #memopt.device<"h100", fp32 = "fast">>} {}
