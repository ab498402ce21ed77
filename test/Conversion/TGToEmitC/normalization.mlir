// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPP

// Batch norm. Its running statistics update the state arguments, but here
// tg.batch_norm_inference reads the old ones after it: computing them in the
// result buffers (which the trainer may alias with the arguments) would be
// wrong, so they go to the arena and are copied at the end of the step.

func.func @train_step(%x: tensor<2x4x3x3xf32> {tg.input = "input"},
                      %g: tensor<4xf32> {tg.param = "bn.weight"},
                      %b: tensor<4xf32> {tg.param = "bn.bias"},
                      %rm: tensor<4xf32> {tg.state = "bn.running_mean"},
                      %rv: tensor<4xf32> {tg.state = "bn.running_var"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4x3x3xf32> {tg.output = "eval"},
        tensor<2x4x3x3xf32> {tg.output = "dx"}, tensor<4xf32> {tg.output = "dscale"},
        tensor<4xf32> {tg.state = "bn.running_mean"}, tensor<4xf32> {tg.state = "bn.running_var"}) {
  %y, %nm, %nv, %mean, %istd = tg.batch_norm %x, %g, %b, %rm, %rv {epsilon = 1.0e-5, momentum = 0.1} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) loc("/bn1/BatchNormalization")
  %e = tg.batch_norm_inference %y, %g, %b, %rm, %rv {epsilon = 1.0e-3} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32> loc("/bn2/BatchNormalization")
  %dx, %ds, %db = tg.batch_norm_backward %y, %x, %g, %mean, %istd : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) loc("/bn1/BatchNormalization")
  return %loss, %e, %dx, %ds, %nm, %nv : tensor<f32>, tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: emitc.func @train_step(
// CHECK: call_opaque "memopt::rt::batchNorm"({{.*}}) {args = [0 : index, 1 : index, 2 : index, 3 : index, 4 : index, 5 : index, 6 : index, 7 : index, 8 : index, 9 : index, #emitc.opaque<"1e-05">, #emitc.opaque<"0.1">]}

// CPP-LABEL: static void train_step(
// CPP: memopt::rt::Tensor bn_bn1 = memopt::rt::arenaTensor(arenas[0], 0, {2, 4, 3, 3});
// CPP-NEXT: memopt::rt::Tensor bn_running_mean_bn1 = memopt::rt::arenaTensor(arenas[0], 320, {4});
// CPP-NEXT: memopt::rt::Tensor bn_running_var_bn1 = memopt::rt::arenaTensor(arenas[0], 384, {4});
// CPP-NEXT: memopt::rt::Tensor bn_mean_bn1 = memopt::rt::arenaTensor(arenas[0], 448, {4});
// CPP-NEXT: memopt::rt::Tensor bn_inv_std_bn1 = memopt::rt::arenaTensor(arenas[0], 512, {4});
// CPP-NEXT: memopt::rt::batchNorm(input, bn_weight, bn_bias, bn_running_mean, bn_running_var, bn_bn1, bn_running_mean_bn1, bn_running_var_bn1, bn_mean_bn1, bn_inv_std_bn1, 1e-05, 0.1);
// CPP-NEXT: memopt::rt::traceKernel("bn_bn1", "batch_norm");
// CPP-NEXT: memopt::rt::Tensor eval = memopt::rt::bufferTensor(results, 1, {2, 4, 3, 3});
// CPP-NEXT: memopt::rt::batchNormInference(bn_bn1, bn_weight, bn_bias, bn_running_mean, bn_running_var, eval, 0.001);
// CPP-NEXT: memopt::rt::traceKernel("eval", "batch_norm_inference");
// CPP-NEXT: memopt::rt::Tensor dx = memopt::rt::bufferTensor(results, 2, {2, 4, 3, 3});
// CPP-NEXT: memopt::rt::Tensor dscale = memopt::rt::bufferTensor(results, 3, {4});
// CPP-NEXT: memopt::rt::Tensor bn_grad_bias_bn1 = memopt::rt::arenaTensor(arenas[0], 576, {4});
// CPP-NEXT: memopt::rt::batchNormBackward(bn_bn1, input, bn_weight, bn_mean_bn1, bn_inv_std_bn1, dx, dscale, bn_grad_bias_bn1);
// CPP: memopt::rt::Tensor new_bn_running_mean = memopt::rt::bufferTensor(results, 4, {4});
// CPP-NEXT: memopt::rt::reshape(bn_running_mean_bn1, new_bn_running_mean);
// CPP-NEXT: memopt::rt::traceKernel("new_bn_running_mean", "copy");
// CPP-NEXT: memopt::rt::Tensor new_bn_running_var = memopt::rt::bufferTensor(results, 5, {4});
// CPP-NEXT: memopt::rt::reshape(bn_running_var_bn1, new_bn_running_var);
// CPP-NEXT: memopt::rt::traceKernel("new_bn_running_var", "copy");
// CPP-NEXT: return;
