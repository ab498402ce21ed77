// RUN: memopt-opt %s -memopt-set-target=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: memopt-opt %s -memopt-set-target='target=cpu in-place=false' | FileCheck %s --check-prefix=COPY
// RUN: memopt-opt %s -memopt-set-target=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -memopt-set-target=target=cuda -memopt-set-target=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: not memopt-opt %s -memopt-set-target=target=tpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memopt-opt %s -memopt-set-target 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not memopt-opt %s -memopt-set-target='target=cpu in-place=maybe' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not memopt-opt %s -memopt-set-target='target=cuda in-place=true' 2>&1 | FileCheck %s --check-prefix=CUDA-IN-PLACE
// RUN: not memopt-opt %s -memopt-set-target=target=cpu -memopt-set-target=target=cuda 2>&1 | FileCheck %s --check-prefix=CHANGED

// CPU: module attributes {memopt.target = #memopt.target<cpu>}
// COPY: module attributes {memopt.target = #memopt.target<cpu, in_place = false>}
// CUDA: module attributes {memopt.target = #memopt.target<cuda>}
// UNKNOWN: memopt-set-target: unknown target 'tpu': expected target=cpu or target=cuda
// MISSING: memopt-set-target: unknown target '': expected target=cpu or target=cuda
// BOOL: memopt-set-target: in-place must be true or false, got 'maybe'
// CUDA-IN-PLACE: memopt-set-target: #memopt.target<cuda> does not allow in_place = true: the CUDA kernels are not checked for in-place writes
// CHANGED: memopt-set-target: the module already targets #memopt.target<cpu>; earlier passes planned for it, so it cannot become #memopt.target<cuda>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
