// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4000' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s

// A chain conv -> BatchNorm -> ReLU -> conv. Persistent: 1860 bytes;
// plain arena 2368 (predicted peak 4228). Under 4000 bytes one
// recomputation meets the budget: the first conv's output, which only the
// BatchNorm backward reads, recomputed from the input right before it
// (arena 1856, predicted peak 3716, the smallest auto reaches here).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 4000, persistent_bytes = 1860, planned_arena_bytes = 1856, rounds = 1, recomputed_values = 1, recomputed_ops = 1, {{.*}}flops_added = 4608,
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK: %[[C1X:.*]] = tg.conv %[[X]], %[[W1]] {memopt.recompute,
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[C1X]]
// CHECK-NOT: memopt.recompute
// CHECK: return
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}
