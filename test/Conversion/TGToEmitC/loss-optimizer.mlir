// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// Losses, their gradients and the optimizer updates. An update writes its
// result buffers directly (in place when the trainer passes the argument's
// buffer), except when a later op still reads the old value: then it goes
// to the arena and is copied at the end. The updates disagree on the
// learning rate, so each keeps its own and the binary refuses --lr
// (Program::learningRate is null).

func.func @train_step(%p: tensor<4xf32> {tg.input = "prediction"},
                      %t: tensor<4xf32> {tg.target = "target"},
                      %w: tensor<4xf32> {tg.param = "w"},
                      %v: tensor<4xf32> {tg.param = "v"},
                      %u: tensor<4xf32> {tg.param = "u"},
                      %m: tensor<4xf32> {tg.opt_state = "w.exp_avg"},
                      %s: tensor<4xf32> {tg.opt_state = "w.exp_avg_sq"},
                      %step: tensor<i64> {tg.step = "step"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<f32> {tg.output = "l1"},
        tensor<f32> {tg.output = "bce"}, tensor<4xf32> {tg.output = "after"},
        tensor<4xf32> {tg.param = "w"}, tensor<4xf32> {tg.param = "v"},
        tensor<4xf32> {tg.param = "u"},
        tensor<4xf32> {tg.opt_state = "w.exp_avg"}, tensor<4xf32> {tg.opt_state = "w.exp_avg_sq"}) {
  %loss = tg.mse_loss %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %l1 = tg.l1_loss %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %bce = tg.bce_loss %p, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %seed = tg.constant dense<1.0> : tensor<f32>
  %g = tg.mse_loss_backward %seed, %p, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g1 = tg.l1_loss_backward %seed, %p, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g2 = tg.bce_loss_backward %seed, %p, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %nw, %nm, %ns = tg.adam_update %w, %g, %m, %s, step %step {lr = 1.0e-3, decoupled = true, weight_decay = 0.01} : tensor<4xf32>
  %nv = tg.sgd_update %v, %g1 {lr = 0.5} : tensor<4xf32>
  %nu = tg.sgd_update %u, %g2 {lr = 0.5} : tensor<4xf32>
  %after = tg.mul %u, %g2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %l1, %bce, %after, %nw, %nv, %nu, %nm, %ns : tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-NOT: learning_rate
// CHECK-LABEL: static void train_step(
// CHECK: const int64_t step = memopt::rt::bufferInt64(args, 7);
// CHECK: memopt::rt::mseLoss(prediction, target, loss);
// CHECK: memopt::rt::l1Loss(prediction, target, l1);
// CHECK: memopt::rt::bceLoss(prediction, target, bce);
// CHECK: memopt::rt::Tensor constant(constant_data, {});
// CHECK: memopt::rt::mseLossBackward(constant, prediction, target, mse_loss_grad);
// CHECK: memopt::rt::l1LossBackward(constant, prediction, target, l1_loss_grad);
// CHECK: memopt::rt::bceLossBackward(constant, prediction, target, bce_loss_grad);
// CHECK: memopt::rt::Tensor new_w = memopt::rt::bufferTensor(results, 4, {4});
// CHECK-NEXT: memopt::rt::Tensor new_w_exp_avg = memopt::rt::bufferTensor(results, 7, {4});
// CHECK-NEXT: memopt::rt::Tensor new_w_exp_avg_sq = memopt::rt::bufferTensor(results, 8, {4});
// CHECK-NEXT: memopt::rt::adamUpdate(w, mse_loss_grad, w_exp_avg, w_exp_avg_sq, step, new_w, new_w_exp_avg, new_w_exp_avg_sq, 0.001, 0.9, 0.999, 1e-08, 0.01, true);
// CHECK-NEXT: memopt::rt::traceKernel("new_w", "adam_update");
// CHECK-NEXT: memopt::rt::Tensor new_v = memopt::rt::bufferTensor(results, 5, {4});
// CHECK-NEXT: memopt::rt::sgdUpdate(v, l1_loss_grad, {}, 1, new_v, {}, 0.5, 0.0, 0.0, 0.0, false);
// CHECK-NEXT: memopt::rt::traceKernel("new_v", "sgd_update");
// `u` is read by tg.mul after its update: the new value waits in the arena.
// CHECK-NEXT: memopt::rt::Tensor sgd_update = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {4});
// CHECK-NEXT: memopt::rt::sgdUpdate(u, bce_loss_grad, {}, 1, sgd_update, {}, 0.5, 0.0, 0.0, 0.0, false);
// CHECK-NEXT: memopt::rt::traceKernel("sgd_update", "sgd_update");
// CHECK: memopt::rt::mul(u, bce_loss_grad, after);
// CHECK-NEXT: memopt::rt::traceKernel("after", "mul");
// CHECK-NEXT: memopt::rt::Tensor new_u = memopt::rt::bufferTensor(results, 6, {4});
// CHECK-NEXT: memopt::rt::reshape(sgd_update, new_u);
// CHECK-NEXT: memopt::rt::traceKernel("new_u", "copy");
// CHECK-NEXT: return;
// CHECK: /*learningRate=*/nullptr,
