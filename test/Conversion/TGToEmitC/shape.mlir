// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPP

// Constants become static arrays; concat passes an array of views; shape
// ops and reductions take their attributes as Dims.

func.func @train_step(%x: tensor<2x3xf32> {tg.input = "input"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<6x2xf32> {tg.output = "out"},
        tensor<2xf32> {tg.output = "sum"}, tensor<4x5xf32> {tg.output = "padded"},
        tensor<2x3xf32> {tg.output = "grad"},
        tensor<2x3xf32> {tg.output = "grad_pad"}) {
  %c = tg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = tg.broadcast %c {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tg.concat %x, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32> loc("/cat/Concat")
  %1 = tg.slice %0 {starts = array<i64: 0, 0>, ends = array<i64: 4, 3>, steps = array<i64: 2, 1>} : (tensor<4x3xf32>) -> tensor<2x3xf32>
  %2 = tg.transpose %1 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = tg.reshape %0 {shape = array<i64: 6, 2>} : (tensor<4x3xf32>) -> tensor<6x2xf32>
  %4 = tg.reduce_mean %2 {axes = array<i64: 0>, keepdims = false} : (tensor<3x2xf32>) -> tensor<2xf32>
  %5 = tg.pad %x {pads = array<i64: 1, 1, 1, 1>, value = 0.5} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %6 = tg.slice_backward %1 {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>, input_shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = tg.pad_backward %5 {pads = array<i64: 1, 1, 1, 1>, mode = #tg<pad_mode edge>, input_shape = array<i64: 2, 3>} : (tensor<4x5xf32>) -> tensor<2x3xf32>
  return %loss, %3, %4, %5, %6, %7 : tensor<f32>, tensor<6x2xf32>, tensor<2xf32>, tensor<4x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK: emitc.global static @constant_data : !emitc.array<3xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK-LABEL: emitc.func @train_step(
// CHECK: verbatim "memopt::rt::Tensor constant(constant_data, {3});"
// CHECK: verbatim "const memopt::rt::ConstTensor concat_cat_inputs[] = {{.*}}" args

// CPP: static float constant_data[3] = {1.000000000e+00f, 2.000000000e+00f, 3.000000000e+00f};
// CPP-LABEL: static void train_step(
// CPP: memopt::rt::Tensor constant(constant_data, {3});
// CPP: memopt::rt::broadcast(constant, broadcast);
// CPP: const memopt::rt::ConstTensor concat_cat_inputs[] = {input, broadcast};
// CPP-NEXT: memopt::rt::concat(concat_cat_inputs, 2, concat_cat, 0);
// CPP: memopt::rt::slice(concat_cat, slice, {0, 0}, {4, 3}, {2, 1});
// CPP: memopt::rt::transpose(slice, transpose, {1, 0});
// CPP: memopt::rt::reshape(concat_cat, out);
// CPP: memopt::rt::reduceMean(transpose, sum, {0}, false);
// CPP: memopt::rt::pad(input, padded, {1, 1, 1, 1}, memopt::rt::PadMode::Constant, 0.5);
// CPP: memopt::rt::sliceBackward(slice, grad, {0, 0}, {2, 3}, {1, 1});
// CPP: memopt::rt::padBackward(padded, grad_pad, {1, 1, 1, 1}, memopt::rt::PadMode::Edge);
