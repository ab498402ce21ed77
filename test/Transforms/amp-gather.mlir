// RUN: memopt-opt %s -tg-amp | FileCheck %s
// RUN: memopt-opt %s -tg-amp -tg-autodiff | FileCheck %s --check-prefix=GRAD

// tg.gather follows its input: a gather of a low convolution's output runs
// in bf16 (and so does its gradient, which sums in f32 inside the kernel);
// a gather of an f32 parameter (a bias table) stays f32.
// CHECK-LABEL: func.func @main(
// CHECK: %[[C:.*]] = tg.conv {{.*}} -> tensor<1x4x4x4xbf16>
// CHECK: tg.gather %[[C]] {axis = 1 : i64, indices = dense<[3, 0, 3]> : tensor<3xi64>} : (tensor<1x4x4x4xbf16>) -> tensor<1x3x4x4xbf16>
// CHECK: tg.gather %{{.*}} {axis = 0 : i64, indices = dense<[1, 0, 1]> : tensor<3xi64>} : (tensor<2x4x4xf32>) -> tensor<3x4x4xf32>
// GRAD-DAG: tg.gather_backward {{.*}} : (tensor<1x3x4x4xbf16>) -> tensor<1x4x4x4xbf16>
// GRAD-DAG: tg.gather_backward {{.*}} : (tensor<3x4x4xf32>) -> tensor<2x4x4xf32>
func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "input"},
                %w: tensor<4x2x1x1xf32> {tg.param = "conv.weight"},
                %table: tensor<2x4x4xf32> {tg.param = "table"})
    -> (tensor<1x3x4x4xf32> {tg.output = "output"}) {
  %c = tg.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  %g = tg.gather %c {axis = 1 : i64, indices = dense<[3, 0, 3]> : tensor<3xi64>}
      : (tensor<1x4x4x4xf32>) -> tensor<1x3x4x4xf32>
  %b = tg.gather %table {axis = 0 : i64, indices = dense<[1, 0, 1]> : tensor<3xi64>}
      : (tensor<2x4x4xf32>) -> tensor<3x4x4xf32>
  %s = tg.add %g, %b : (tensor<1x3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %s : tensor<1x3x4x4xf32>
}
