// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// Elementwise ops and activation gradients: operands, result, attributes.

func.func @train_step(%x: tensor<2x3xf32> {tg.input = "input"},
                      %y: tensor<3xf32> {tg.input = "bias"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x3xf32> {tg.output = "out"}) {
  %0 = tg.relu %x : tensor<2x3xf32> loc("/act/Relu")
  %1 = tg.add %0, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("/add/Add")
  %2 = tg.leaky_relu %1 {alpha = 0.2} : tensor<2x3xf32>
  %3 = tg.clip %2 {min = 0.0, max = 6.0} : tensor<2x3xf32>
  %4 = tg.sigmoid %3 : tensor<2x3xf32>
  %5 = tg.relu_backward %4, %0 : tensor<2x3xf32> loc("/act/Relu")
  %6 = tg.leaky_relu_backward %5, %1 {alpha = 0.2} : tensor<2x3xf32>
  %7 = tg.clip_backward %6, %2 {min = 0.0, max = 6.0} : tensor<2x3xf32>
  %8 = tg.div %7, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %loss, %8 : tensor<f32>, tensor<2x3xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::relu(input, relu_act);
// CHECK: memopt::rt::add(relu_act, bias, add_add);
// CHECK: memopt::rt::leakyRelu(add_add, leaky_relu, 0.2);
// CHECK: memopt::rt::clip(leaky_relu, clip, 0.0, 6.0);
// CHECK: memopt::rt::sigmoid(clip, sigmoid);
// CHECK: memopt::rt::reluBackward(sigmoid, relu_act, relu_grad_act);
// CHECK: memopt::rt::leakyReluBackward(relu_grad_act, add_add, leaky_relu_grad, 0.2);
// CHECK: memopt::rt::clipBackward(leaky_relu_grad, leaky_relu, clip_grad, 0.0, 6.0);
// CHECK: memopt::rt::Tensor out = memopt::rt::bufferTensor(results, 1, {2, 3});
// CHECK-NEXT: memopt::rt::div(clip_grad, input, out);
