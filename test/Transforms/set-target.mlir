// RUN: memopt-opt %s -memopt-set-target=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: memopt-opt %s -memopt-set-target='target=cpu in-place=false' | FileCheck %s --check-prefix=COPY
// RUN: memopt-opt %s -memopt-set-target=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -memopt-set-target=target=cuda -memopt-set-target=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: not memopt-opt %s -memopt-set-target=target=tpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memopt-opt %s -memopt-set-target 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not memopt-opt %s -memopt-set-target='target=cpu in-place=maybe' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not memopt-opt %s -memopt-set-target='target=cuda in-place=true' 2>&1 | FileCheck %s --check-prefix=CUDA-IN-PLACE
// RUN: not memopt-opt %s -memopt-set-target=target=cpu -memopt-set-target=target=cuda 2>&1 | FileCheck %s --check-prefix=CHANGED
// RUN: memopt-opt %s -memopt-set-target='target=cuda device="rtx2060,memory=6GiB" budget=4294967296' | FileCheck %s --check-prefix=DEVICE
// RUN: memopt-opt %s -memopt-set-target='target=cpu device=cpu' | FileCheck %s --check-prefix=CPU
// RUN: not memopt-opt %s -memopt-set-target='target=cpu device=tpu' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-DEVICE
// RUN: not memopt-opt %s -memopt-set-target='target=cpu device="h100,memory=lots"' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not memopt-opt %s -memopt-set-target='target=cuda device=rtx2060 budget=8589934593' 2>&1 | FileCheck %s --check-prefix=OVER-MEMORY
// RUN: echo '{"name": "mygpu", "memory": "8GiB", "fp32": 6.5e12, "bandwidth": "336GB/s", "link": "12GB/s", "launch": "5us", "lean": 1.5}' > %t.json
// RUN: memopt-opt %s -memopt-set-target="target=cuda device=%t.json" | FileCheck %s --check-prefix=FILE
// RUN: memopt-opt %s -memopt-set-target="target=cuda device=%t.json,memory=4GiB" | FileCheck %s --check-prefix=FILE-OVERRIDE

// CPU: module attributes {memopt.target = #memopt.target<cpu>}
// COPY: module attributes {memopt.target = #memopt.target<cpu, in_place = false>}
// CUDA: module attributes {memopt.target = #memopt.target<cuda>}
// UNKNOWN: memopt-set-target: unknown target 'tpu': expected target=cpu or target=cuda
// MISSING: memopt-set-target: unknown target '': expected target=cpu or target=cuda
// BOOL: memopt-set-target: in-place must be true or false, got 'maybe'
// CUDA-IN-PLACE: memopt-set-target: #memopt.target<cuda> does not allow in_place = true: the CUDA kernels are not checked for in-place writes
// DEVICE: module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"rtx2060", memory = 6442450944>, budget = 4294967296>}
// UNKNOWN-DEVICE: memopt-set-target: device: unknown device 'tpu'; expected NAME[,KEY=VALUE]... with NAME cpu, rtx2060, a100-40g, h100, custom or a FILE.json user profile
// VALUE: memopt-set-target: device: bad value 'lots' for device key 'memory': expected a size such as 8GiB
// OVER-MEMORY: memopt-set-target: the budget of 8589934593 bytes (8.00 GiB) exceeds the memory of device 'rtx2060', 8589934592 bytes (8.00 GiB): give a budget of at most 8589934592 bytes or a device with more memory
// FILE: module attributes {memopt.target = #memopt.target<cuda, device = #memopt.device<"mygpu", memory = 8589934592, fp32 = 6.500000e+12, bandwidth = 3.360000e+11, link = 1.200000e+10, launch = 5.000000e-06, lean = 1.500000e+00>>}
// FILE-OVERRIDE: #memopt.device<"mygpu", memory = 4294967296,
// CHANGED: memopt-set-target: the module already targets #memopt.target<cpu>; earlier passes planned for it, so it cannot become #memopt.target<cuda>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
