// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4800' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4372' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s --check-prefix=SMALLEST
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4884' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s --check-prefix=PLAIN
// One byte below the smallest budget: the error names it.
// RUN: memopt-opt %s -verify-diagnostics -memopt-set-target='target=cpu budget=4371' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal

// The chain of remat-auto-cheap.mlir: conv -> BatchNorm -> ReLU -> conv ->
// ReLU -> conv. Persistent: 2004 bytes; plain arena 2880 (predicted peak
// 4884). Under 4800 bytes auto recomputes the first ReLU through a
// BatchNorm clone (two cheap ops, 2.04 us predicted on the cpu profile,
// where each op costs a launch); the least time that fits is the first
// conv's output alone (1.02 us), recomputed from the input right before
// the BatchNorm backward, its only later reader. The step is a chain
// for the dynamic program: its four units all nest (chain_units =
// units; a unit that only the next one reads joins its link), so the
// dynamic program solves it exactly (bytes in bins of 1 byte: the largest
// need, 2880 - 2796 bytes, is below 256 bins) and CBC is not run:
// solver = "dp", solves = 0, gap 0.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 4800, persistent_bytes = 2004, planned_arena_bytes = 2368, milp = <budget_bytes = 2796, solver = "dp", status = "optimal", objective_seconds = 1.0228125E-6 : f64, bound_seconds = 1.0228125E-6 : f64, gap = 0.000000e+00 : f64, solves = 0, units = 4, stages = {{[0-9]+}}, chain_units = 4, chain_solves = 1, bin_bytes = 1>, recomputed_values = 1, recomputed_ops = 1, {{.*}}flops_added = 4608, seconds_added = 1.0228125E-6 : f64
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK: %[[C1X:.*]] = tg.conv %[[X]], %[[W1]] {memopt.recompute,
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[C1X]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// The smallest budget here: 4372 bytes, below the 4436 that auto's
// greedy reaches (remat-auto-invalid.mlir).
// SMALLEST-LABEL: func.func @train_step
// SMALLEST-SAME: strategy = "optimal"
// SMALLEST-SAME: planned_arena_bytes = 2368,
// SMALLEST-SAME: solver = "dp"

// At the plain predicted peak nothing is recomputed (no program solved).
// PLAIN-LABEL: func.func @train_step
// PLAIN-SAME: memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 4884, {{.*}}milp = <{{.*}}solver = "none", {{.*}}solves = 0, {{.*}}chain_solves = 0, {{.*}}flops_added = 0,
// PLAIN-NOT: memopt.recompute

// expected-error @+1 {{tg-remat: the step does not fit --budget=4371 bytes: the smallest peak remat=optimal reaches is 4372 bytes (--budget=4372)}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "w3"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r2 = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
