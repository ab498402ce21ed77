// RUN: not memopt-opt %s -memopt-set-target=target=cpu -tg-partition=stages=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not memopt-opt %s -memopt-set-target=target=cpu -tg-partition='stages=2 microbatches=4 schedule=zigzag' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not memopt-opt %s -split-input-file -tg-partition=stages=2 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -tg-partition=stages=3

// ZERO: tg-partition: stages must be in [1, 64], got 0
// SCHEDULE: error: tg-partition: unknown schedule 'zigzag' (expected gpipe or 1f1b)
// TARGET: error: tg-partition: the module has no memopt.target; run -memopt-set-target=target=cpu

// Three stages need three forward ops.
// expected-error @+1 {{tg-partition: 3 stages need at least 3 forward ops; @two_ops has 2 (use at most 2)}}
func.func @two_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tg.relu %x : tensor<4xf32>
  %s = tg.sigmoid %r : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Constants are not forward ops of their own: they are cloned into every
// stage that reads them.
// expected-error @+1 {{tg-partition: 3 stages need at least 3 forward ops; @constants has 1 (use at most 1)}}
func.func @constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tg.constant dense<2.0> : tensor<4xf32>
  %d = tg.constant dense<3.0> : tensor<4xf32>
  %s = tg.mul %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
