// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4800' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto | FileCheck %s

// A chain conv -> BatchNorm -> ReLU -> conv -> ReLU -> conv. Persistent:
// 2004 bytes; plain arena 2880 (predicted peak 4884). Under 4800 bytes
// recomputing one cheap value meets the budget: the first ReLU's output
// (read by the second conv's filter gradient and by its own backward),
// from the stored first conv output through a BatchNorm clone that
// normalizes with the saved statistics; no convolution is recomputed.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 4800, {{.*}}planned_arena_bytes = 2432, rounds = 1, recomputed_values = 1, recomputed_ops = 2,
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK-NOT: tg.conv {{.*}}memopt.recompute
// CHECK: %[[BNX:[^,]*]], {{.*}} = tg.batch_norm %[[C1]], {{.*}} {memopt.recompute}
// CHECK-NEXT: %[[R1X:.*]] = tg.relu %[[BNX]] {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[R1X]]
// CHECK-NOT: memopt.recompute
// CHECK: return
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
