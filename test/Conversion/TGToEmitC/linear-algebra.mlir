// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

func.func @train_step(%a: tensor<2x3xf32> {tg.input = "a"},
                      %b: tensor<3x4xf32> {tg.param = "b"},
                      %c: tensor<4xf32> {tg.param = "c"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "mm"},
        tensor<2x4xf32> {tg.output = "fc"}, tensor<2x4xf32> {tg.output = "fc_nobias"}) {
  %0 = tg.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = tg.gemm %a, %b, %c {alpha = 0.5, beta = 2.0} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("/fc/Gemm")
  %2 = tg.gemm %a, %b {trans_a = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %loss, %0, %1, %2 : tensor<f32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::matmul(a, b, mm);
// CHECK: memopt::rt::gemm(a, b, c, fc, 0.5, 2.0, false, false);
// CHECK: memopt::rt::gemm(a, b, {}, fc_nobias, 1.0, 1.0, false, false);
