// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=5500' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=6000' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=ONCE
// RUN: not memopt-opt %s -memopt-set-target='target=cuda budget=4979' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=SMALLEST
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5556' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=CPU-SHARED
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5400' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s --check-prefix=CPU-PRIVATE
// RUN: not memopt-opt %s -memopt-set-target='target=cpu budget=4915' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=CPU-SMALLEST

// Nested recomputation on a chain of five conv -> BatchNorm -> ReLU blocks
// on cuda (no in-place writes; the clones of cheap ops are private).
// Persistent: 2484 bytes; plain arena 6400. Under 5500 bytes the greedy
// recomputes the first four blocks and nests two convs, Rotor-style: the
// second conv's clone is shared (a checkpoint inside the backward), the
// first and the third are recomputed once per clone that needs them. The
// third conv is cloned for the ReLU the fourth conv's filter gradient
// reads (that clone dies with it) and again right before the third
// BatchNorm backward; the first conv three times. With each value
// recomputed at most once the smallest budget was 5748 bytes; nesting
// reaches 4980.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: planned_arena_bytes = 2816,
// CHECK-SAME: nested_values = 2,
// CHECK: tg.conv %arg0, %[[W1:arg2]] {pads
// CHECK: tg.conv %{{.*}}, %[[W3:arg8]] {pads
// CHECK: tg.batch_norm_backward
// CHECK: tg.conv %arg0, %[[W1]] {memopt.recompute
// CHECK: %[[SHARED:.*]] = tg.conv %{{.*}}, %arg5 {memopt.recompute
// CHECK: %[[FIRST:.*]] = tg.conv %{{.*}}, %[[W3]] {memopt.recompute
// CHECK-NEXT: tg.batch_norm %[[FIRST]], {{.*}}{memopt.recompute}
// CHECK-NEXT: %[[RELU:.*]] = tg.relu %{{.*}} {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[RELU]]
// CHECK: tg.batch_norm %[[SHARED]], {{.*}}{memopt.recompute}
// CHECK-NEXT: tg.relu {{.*}}{memopt.recompute}
// CHECK-NEXT: %[[AGAIN:.*]] = tg.conv %{{.*}}, %[[W3]] {memopt.recompute
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[AGAIN]]
// CHECK: tg.batch_norm_backward %{{.*}}, %[[SHARED]]
// CHECK: tg.conv %arg0, %[[W1]] {memopt.recompute
// CHECK: %[[LAST:.*]] = tg.conv %arg0, %[[W1]] {memopt.recompute
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[LAST]]
// CHECK-NOT: memopt.recompute
// CHECK: return

// A larger budget: no value needs a second clone.
// ONCE-LABEL: func.func @train_step
// ONCE-SAME: planned_arena_bytes = 3328,
// ONCE-NOT: nested_values
// ONCE-SAME: flops_added =

// SMALLEST: error: tg-remat: the step does not fit --budget=4979 bytes: the smallest peak remat=auto reaches is 4980 bytes (--budget=4980)

// On cpu, where the plan writes in place, auto shares the clones of cheap
// operands while that fits: at 5556 bytes (the smallest budget shared
// clones reach) 12 clones. Below it auto plans with private clones too,
// as on cuda, and takes that plan (`private_clones`): at 5400 bytes the
// private BatchNorm and ReLU clones make 18 clones for the same six
// values, and the smallest budget is 4916 bytes instead of 5556.
// CPU-SHARED: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5556, persistent_bytes = 2420, planned_arena_bytes = 3136, {{.*}}recomputed_values = 6, recomputed_ops = 12, {{.*}}nested_values = 3, flops_added = 30744,
// CPU-PRIVATE: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 5400, persistent_bytes = 2420, planned_arena_bytes = 2816, {{.*}}recomputed_values = 6, recomputed_ops = 18, {{.*}}nested_values = 2, private_clones = true, flops_added = 33840,
// CPU-SMALLEST: error: tg-remat: the step does not fit --budget=4915 bytes: the smallest peak remat=auto reaches is 4916 bytes (--budget=4916)
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
    %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
    %s1: tensor<2xf32> {tg.param = "bn1.weight"},
    %b1: tensor<2xf32> {tg.param = "bn1.bias"},
    %m1: tensor<2xf32> {tg.state = "bn1.running_mean"},
    %v1: tensor<2xf32> {tg.state = "bn1.running_var"},
    %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
    %s2: tensor<2xf32> {tg.param = "bn2.weight"},
    %b2: tensor<2xf32> {tg.param = "bn2.bias"},
    %m2: tensor<2xf32> {tg.state = "bn2.running_mean"},
    %v2: tensor<2xf32> {tg.state = "bn2.running_var"},
    %w3: tensor<2x2x3x3xf32> {tg.param = "w3"},
    %s3: tensor<2xf32> {tg.param = "bn3.weight"},
    %b3: tensor<2xf32> {tg.param = "bn3.bias"},
    %m3: tensor<2xf32> {tg.state = "bn3.running_mean"},
    %v3: tensor<2xf32> {tg.state = "bn3.running_var"},
    %w4: tensor<2x2x3x3xf32> {tg.param = "w4"},
    %s4: tensor<2xf32> {tg.param = "bn4.weight"},
    %b4: tensor<2xf32> {tg.param = "bn4.bias"},
    %m4: tensor<2xf32> {tg.state = "bn4.running_mean"},
    %v4: tensor<2xf32> {tg.state = "bn4.running_var"},
    %w5: tensor<2x2x3x3xf32> {tg.param = "w5"},
    %s5: tensor<2xf32> {tg.param = "bn5.weight"},
    %b5: tensor<2xf32> {tg.param = "bn5.bias"},
    %m5: tensor<2xf32> {tg.state = "bn5.running_mean"},
    %v5: tensor<2xf32> {tg.state = "bn5.running_var"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n1:5 = tg.batch_norm %c1, %s1, %b1, %m1, %v1 : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = tg.relu %n1#0 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n2:5 = tg.batch_norm %c2, %s2, %b2, %m2, %v2 : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r2 = tg.relu %n2#0 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n3:5 = tg.batch_norm %c3, %s3, %b3, %m3, %v3 : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r3 = tg.relu %n3#0 : tensor<1x2x8x8xf32>
  %c4 = tg.conv %r3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n4:5 = tg.batch_norm %c4, %s4, %b4, %m4, %v4 : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r4 = tg.relu %n4#0 : tensor<1x2x8x8xf32>
  %c5 = tg.conv %r4, %w5 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n5:5 = tg.batch_norm %c5, %s5, %b5, %m5, %v5 : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r5 = tg.relu %n5#0 : tensor<1x2x8x8xf32>
  return %r5 : tensor<1x2x8x8xf32>
}
