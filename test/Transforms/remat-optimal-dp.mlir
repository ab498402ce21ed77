// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4800' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4356' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal | FileCheck %s --check-prefix=SMALLEST
// RUN: memopt-opt %s -verify-diagnostics -memopt-set-target='target=cpu budget=4355' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal

// A plain chain, conv -> ReLU four times: the whole step is a chain for
// tg-remat's chain dynamic program (RematChain.cpp). Its six units (three
// ReLUs the backward reads, three convolutions only their ReLU reads, each
// joining its ReLU's link) are all in the chain (chain_units = units), so
// the dynamic program's plan is exact for the rewrite and CBC is not run
// (solves = 0). Persistent 2116 bytes, plain arena 2752: under 4800 bytes
// one link, a conv and its ReLU (4608 + 128 FLOPs, 2.04 us on the cpu
// profile, where each op costs a launch), is the least that fits; the
// links cost the same, and the one the dynamic program takes frees the
// middle ReLU, recomputed right before its first backward reader.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 4800, persistent_bytes = 2116, planned_arena_bytes = 2240, milp = <budget_bytes = 2684, solver = "dp", status = "optimal", objective_seconds = 2.0428125000000002E-6 : f64, bound_seconds = 2.0428125000000002E-6 : f64, gap = 0.000000e+00 : f64, solves = 0, units = 6, stages = 4, chain_units = 6, chain_solves = 1, bin_bytes = 1>, recomputed_values = 1, recomputed_ops = 2, {{.*}}flops_added = 4736,
// CHECK: %[[R1:.*]] = tg.relu %{{.*}} : tensor<1x2x8x8xf32>
// CHECK: %[[C2:.*]] = tg.conv %[[R1]], %[[W2:[^ ]*]] {pads
// CHECK: %[[C2X:.*]] = tg.conv %[[R1]], %[[W2]] {memopt.recompute,
// CHECK-NEXT: %[[R2X:.*]] = tg.relu %[[C2X]] {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[R2X]]
// CHECK-NEXT: tg.relu_backward %{{.*}}, %[[R2X]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// The smallest budget, 4356 bytes (arena 2240), is the dynamic program's
// too.
// SMALLEST-LABEL: func.func @train_step
// SMALLEST-SAME: planned_arena_bytes = 2240,
// SMALLEST-SAME: solver = "dp", {{.*}}solves = 0,

// expected-error @+1 {{tg-remat: the step does not fit --budget=4355 bytes: the smallest peak remat=optimal reaches is 4356 bytes (--budget=4356)}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "w3"},
                %w4: tensor<2x2x3x3xf32> {tg.param = "w4"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tg.relu %c1 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r2 = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r3 = tg.relu %c3 : tensor<1x2x8x8xf32>
  %c4 = tg.conv %r3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c4 : tensor<1x2x8x8xf32>
}
