// RUN: memopt-opt %s -memopt-set-target='target=cpu device=a100-40g' -tg-autodiff='optimizer=sgd momentum=0.9' -canonicalize -tg-estimate-cost | FileCheck %s

// The phase of each op of a training step comes from the graph's structure:
// what the loss and the forward outputs depend on is forward, the optimizer
// updates are the optimizer, everything else (the gradients) is backward.
// The function's totals split the FLOPs by phase.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.cost = {backward_flops = 30 : i64, bytes = 472 : i64, device = "a100-40g", forward_flops = 30 : i64, optimizer_flops = 45 : i64, recompute_flops = 0 : i64
// CHECK: tg.gemm {{.*}}memopt.cost = {bytes = 56 : i64, flops = 18 : i64, phase = "forward"
// CHECK: tg.relu {{.*}}phase = "forward"
// CHECK: tg.mse_loss {{.*}}phase = "forward"
// CHECK: tg.mse_loss_backward {{.*}}phase = "backward"
// CHECK: tg.relu_backward {{.*}}phase = "backward"
// CHECK: tg.gemm {{.*}}phase = "backward"
// CHECK: tg.reduce_sum {{.*}}phase = "backward"
// Data movement costs its bytes only.
// CHECK: tg.reshape {{.*}}memopt.cost = {bytes = 24 : i64, flops = 0 : i64, phase = "backward"
// SGD with momentum: 5 FLOPs per parameter element.
// CHECK: tg.sgd_update {{.*}}memopt.cost = {bytes = 128 : i64, flops = 30 : i64, phase = "optimizer"
// CHECK: tg.sgd_update {{.*}}memopt.cost = {bytes = 68 : i64, flops = 15 : i64, phase = "optimizer"
func.func @main(%x: tensor<1x2xf32> {tg.input = "x"},
                %w: tensor<3x2xf32> {tg.param = "fc.weight"},
                %b: tensor<3xf32> {tg.param = "fc.bias"})
    -> (tensor<1x3xf32> {tg.output = "y"}) {
  %0 = tg.gemm %x, %w, %b {trans_b = true}
      : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %1 = tg.relu %0 : tensor<1x3xf32>
  return %1 : tensor<1x3xf32>
}
