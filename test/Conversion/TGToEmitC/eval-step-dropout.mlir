// RUN: split-file %s %t
// RUN: memopt-opt %t/dropout.mlir -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %t/constants.mlir -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CONST

//--- dropout.mlir

// A step with dropout and its evaluation function. Each dropout draws from
// its own random stream of the step's seed (the trainer derives the seed
// from --seed and the step number); backward multiplies by the saved mask.
// @eval_step becomes the C++ eval_step (batch norm on the running
// statistics, no dropout) and Program::evalStep; both share one arena.

// CHECK-LABEL: static void train_step(
// CHECK: const int64_t seed = memopt::rt::bufferInt64(args, 7);
// CHECK: memopt::rt::dropout(bn, dropout, dropout_mask, 0.25, memopt::rt::streamSeed(seed, 0));
// CHECK: memopt::rt::dropout(relu, output, dropout_mask_2, 0.5, memopt::rt::streamSeed(seed, 1));
// CHECK: memopt::rt::mul(mse_loss_grad_loss, dropout_mask_2, mul);
// CHECK: memopt::rt::mul({{.*}}, dropout_mask, mul_2);
// CHECK-LABEL: static void eval_step(
// CHECK-NOT: dropout
// CHECK: memopt::rt::batchNormInference(conv, bn_weight, bn_bias, bn_running_mean, bn_running_var, bn, 1e-05);
// CHECK-NOT: dropout
// CHECK: memopt::rt::mseLoss(output, target, loss);
// CHECK-NEXT: memopt::rt::traceKernel("loss", "mse_loss");
// CHECK-NEXT: return;
// CHECK: {"seed", memopt::rt::Role::Seed, memopt::rt::ElementType::I64, 0, {}},
// CHECK: /*step=*/train_step,
// CHECK-NEXT: /*learningRate=*/&learning_rate,
// CHECK-NEXT: /*evalStep=*/eval_step,
func.func @main(%x: tensor<2x3x4x4xf32> {tg.input = "input"},
                %w: tensor<4x3x1x1xf32> {tg.param = "conv.weight"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %rm: tensor<4xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x4x4xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w : (tensor<2x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x4x4xf32>
  %1:5 = tg.batch_norm %0, %s, %b, %rm, %rv
      : (tensor<2x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %2, %m1 = tg.dropout %1#0 {ratio = 0.25 : f64} : tensor<2x4x4x4xf32>
  %3 = tg.relu %2 : tensor<2x4x4x4xf32>
  %4, %m2 = tg.dropout %3 {ratio = 0.5 : f64} : tensor<2x4x4x4xf32>
  return %4 : tensor<2x4x4x4xf32>
}

//--- constants.mlir

// The constants of both functions are file-scope arrays with distinct
// names; the views, locals of each function, keep their names.
// CONST: static float constant_data[1] = {2.000000000e+00f};
// CONST-LABEL: static void train_step(
// CONST: memopt::rt::Tensor constant(constant_data, {});
// CONST: static float constant_data_2[1] = {2.000000000e+00f};
// CONST-LABEL: static void eval_step(
// CONST: memopt::rt::Tensor constant(constant_data_2, {});
func.func @main(%x: tensor<2x4xf32> {tg.input = "input"},
                %w: tensor<2x4xf32> {tg.param = "w"})
    -> (tensor<2x4xf32> {tg.output = "output"}) {
  %c = tg.constant dense<2.0> : tensor<f32>
  %0 = tg.mul %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tg.mul %0, %c : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
