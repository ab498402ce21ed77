// RUN: not memopt-opt %s -allow-unregistered-dialect -tg-schedule='strategies=given,bogus' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not memopt-opt %s -allow-unregistered-dialect -tg-schedule='in-place=maybe' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not memopt-opt %s -allow-unregistered-dialect -tg-schedule='target=tpu' 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not memopt-opt %s -allow-unregistered-dialect -tg-plan-memory='target=tpu' 2>&1 | FileCheck %s --check-prefix=PLAN-TARGET
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect -tg-schedule

// TARGET: tg-schedule: unknown target 'tpu': expected cpu or cuda
// PLAN-TARGET: tg-plan-memory: unknown target 'tpu': expected cpu or cuda
// STRATEGY: tg-schedule: unknown strategy 'bogus'; expected given, free-first or frees-asap
// BOOL: in-place

// expected-error @+1 {{tg-schedule: expected a function with one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  "test.br"()[^next] : () -> ()
^next:
  return %x : tensor<4xf32>
}
