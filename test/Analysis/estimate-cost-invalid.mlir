// RUN: memopt-opt %s -verify-diagnostics -tg-estimate-cost=device=tpu
// RUN: not memopt-opt %s -tg-estimate-cost='device="h100,memory=lots"' 2>&1 | FileCheck %s --check-prefix=VALUE

// An unknown device is an error on the function that names the accepted
// forms.
// expected-error @+1 {{tg-estimate-cost: unknown device 'tpu'; expected NAME[,KEY=VALUE]... with NAME cpu, rtx2060, a100-40g, h100 or custom}}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tg.relu %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// VALUE: error: tg-estimate-cost: bad value 'lots' for device key 'memory': expected a size such as 8GiB
