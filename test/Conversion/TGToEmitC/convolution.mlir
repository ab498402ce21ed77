// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPP
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=WORKSPACE

// Convolutions and their gradients become one call each; the optional bias
// is `{}` when absent; the workspace is the plan's (none without
// tg-annotate-workspaces).

func.func @train_step(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                      %w: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
                      %b: tensor<4xf32> {tg.param = "conv.bias"},
                      %wt: tensor<4x2x2x2xf32> {tg.param = "up.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x2x8x8xf32> {tg.output = "up"},
        tensor<2x3x8x8xf32> {tg.output = "dx"}, tensor<4x3x3x3xf32> {tg.output = "dw"},
        tensor<4x2x2x2xf32> {tg.output = "dwt"}) {
  %y = tg.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32> loc("/encoder/layer1/layer1.0/conv1/Conv")
  %up = tg.conv_transpose %y, %wt {strides = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<4x2x2x2xf32>) -> tensor<2x2x8x8xf32> loc("/up/ConvTranspose")
  %dx = tg.conv_backward_data %y, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, input_shape = array<i64: 2, 3, 8, 8>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> loc("/encoder/layer1/layer1.0/conv1/Conv")
  %dw = tg.conv_backward_filter %y, %x {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, weight_shape = array<i64: 4, 3, 3, 3>} : (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> loc("/encoder/layer1/layer1.0/conv1/Conv")
  %dwt = tg.conv_transpose_backward_filter %up, %y {strides = array<i64: 2, 2>, weight_shape = array<i64: 4, 2, 2, 2>} : (tensor<2x2x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x2x2x2xf32> loc("/up/ConvTranspose")
  return %loss, %up, %dx, %dw, %dwt : tensor<f32>, tensor<2x2x8x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4x2x2x2xf32>
}

// CHECK-LABEL: emitc.func @train_step(
// CHECK: %[[X:.*]] = literal "input"
// CHECK: %[[W:.*]] = literal "conv_weight"
// CHECK: %[[B:.*]] = literal "conv_bias"
// CHECK: %[[WT:.*]] = literal "up_weight"
// CHECK: verbatim "memopt::rt::Tensor conv_encoder_layer1_0_conv1 = memopt::rt::arenaTensor(arenas[0], 0, {2, 4, 4, 4});"
// The view's declaration, then the kernel's name of the view it writes.
// CHECK: literal "conv_encoder_layer1_0_conv1"
// CHECK: %[[Y:.*]] = literal "conv_encoder_layer1_0_conv1"
// CHECK: call_opaque "memopt::rt::conv"(%[[X]], %[[W]], %[[B]], %[[Y]]) {args = [0 : index, 1 : index, 2 : index, 3 : index, #emitc.opaque<"{2, 2}">, #emitc.opaque<"{1, 1, 1, 1}">, #emitc.opaque<"{1, 1}">, #emitc.opaque<"1">, #emitc.opaque<"nullptr">]}

// CPP-LABEL: static void train_step(
// CPP: memopt::rt::conv(input, conv_weight, conv_bias, conv_encoder_layer1_0_conv1, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, nullptr);
// CPP-NEXT: memopt::rt::traceKernel("conv_encoder_layer1_0_conv1", "conv");
// CPP-NEXT: memopt::rt::Tensor up = memopt::rt::bufferTensor(results, 1, {2, 2, 8, 8});
// CPP-NEXT: memopt::rt::convTranspose(conv_encoder_layer1_0_conv1, up_weight, {}, up, {2, 2}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1, nullptr);
// CPP-NEXT: memopt::rt::traceKernel("up", "conv_transpose");
// CPP-NEXT: memopt::rt::Tensor dx = memopt::rt::bufferTensor(results, 2, {2, 3, 8, 8});
// CPP-NEXT: memopt::rt::convBackwardData(conv_encoder_layer1_0_conv1, conv_weight, dx, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, nullptr);
// CPP-NEXT: memopt::rt::traceKernel("dx", "conv_backward_data");
// CPP-NEXT: memopt::rt::Tensor dw = memopt::rt::bufferTensor(results, 3, {4, 3, 3, 3});
// CPP-NEXT: memopt::rt::convBackwardFilter(conv_encoder_layer1_0_conv1, input, dw, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1, nullptr);
// CPP-NEXT: memopt::rt::traceKernel("dw", "conv_backward_filter");
// CPP-NEXT: memopt::rt::Tensor dwt = memopt::rt::bufferTensor(results, 4, {4, 2, 2, 2});
// CPP-NEXT: memopt::rt::convTransposeBackwardFilter(up, conv_encoder_layer1_0_conv1, dwt, {2, 2}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1, nullptr);
// CPP-NEXT: memopt::rt::traceKernel("dwt", "conv_transpose_backward_filter");
// The loss argument is returned as it is: a copy (none at run time when
// the trainer passes the same buffer).
// CPP-NEXT: memopt::rt::Tensor loss_2 = memopt::rt::bufferTensor(results, 0, {});
// CPP-NEXT: memopt::rt::reshape(loss, loss_2);
// CPP-NEXT: memopt::rt::traceKernel("loss_2", "copy");

// With queried workspaces every convolution gets an arena region.
// WORKSPACE: memopt::rt::conv(input, {{.*}}, memopt::rt::arenaWorkspace(arenas[0], {{[0-9]+}}, {{[0-9]+}}));
