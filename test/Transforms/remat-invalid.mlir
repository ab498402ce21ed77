// RUN: not memopt-opt %s -allow-unregistered-dialect -memopt-set-target=target=cpu -tg-remat=strategy=checkmate 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not memopt-opt %s -allow-unregistered-dialect -tg-remat=strategy=sqrt -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect -memopt-set-target=target=cpu -tg-remat=strategy=sqrt

// STRATEGY: tg-remat: unknown strategy 'checkmate'; expected none, sqrt, auto or optimal
// TARGET: tg-remat: the module has no memopt.target

// expected-error @+1 {{tg-remat: expected a function with one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  "test.br"()[^next] : () -> ()
^next:
  return %x : tensor<4xf32>
}

// -----

// A forward-only function (an evaluation step): nothing to recompute, no
// error.
func.func @forward_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tg.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
