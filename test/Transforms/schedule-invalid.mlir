// RUN: not memopt-opt %s -allow-unregistered-dialect -memopt-set-target=target=cpu -tg-schedule='strategies=given,bogus' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect -memopt-set-target=target=cpu -tg-schedule

// STRATEGY: tg-schedule: unknown strategy 'bogus'; expected given, free-first or frees-asap

// expected-error @+1 {{tg-schedule: expected a function with one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  "test.br"()[^next] : () -> ()
^next:
  return %x : tensor<4xf32>
}
