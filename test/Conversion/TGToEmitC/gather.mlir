// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPP

// The indices of tg.gather and tg.gather_backward become static int64
// arrays of the generated file that the kernels read with their count.

func.func @train_step(%t: tensor<9x2xf32> {tg.input = "table"},
                      %dy: tensor<2x3x2xf32> {tg.input = "dy"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x2x2xf32> {tg.output = "bias"},
        tensor<2x5x2xf32> {tg.output = "grad"}) {
  %0 = tg.gather %t {axis = 0 : i64, indices = dense<[[0, 8], [8, 3]]> : tensor<2x2xi64>}
      : (tensor<9x2xf32>) -> tensor<2x2x2xf32> loc("/rel/Gather")
  %low = tg.cast %dy : tensor<2x3x2xf32> to tensor<2x3x2xbf16>
  %1 = tg.gather_backward %low {axis = 1 : i64, indices = dense<[4, 0, 4]> : tensor<3xi64>,
                               input_shape = array<i64: 2, 5, 2>}
      : (tensor<2x3x2xbf16>) -> tensor<2x5x2xbf16>
  %2 = tg.cast %1 : tensor<2x5x2xbf16> to tensor<2x5x2xf32>
  return %loss, %0, %2 : tensor<f32>, tensor<2x2x2xf32>, tensor<2x5x2xf32>
}

// CHECK-DAG: emitc.global static @bias_indices : !emitc.array<4xi64> = dense<[0, 8, 8, 3]>
// CHECK-DAG: emitc.global static @gather_grad_indices : !emitc.array<3xi64> = dense<[4, 0, 4]>
// CHECK-LABEL: emitc.func @train_step(

// CPP: static int64_t bias_indices[4] = {0, 8, 8, 3};
// CPP: static int64_t gather_grad_indices[3] = {4, 0, 4};
// CPP: memopt::rt::gather(table, bias, 0, bias_indices, 4);
// CPP: memopt::rt::Tensor gather_grad = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {2, 5, 2}, memopt::rt::ElementType::BF16);
// CPP: memopt::rt::gatherBackward(cast, gather_grad, 1, gather_grad_indices, 3);
