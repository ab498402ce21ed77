// RUN: memopt-opt %s -tg-amp | FileCheck %s

// tg.select follows its operands: the exported softplus of a low
// convolution's output compares in bf16, computes the softplus branch in
// f32 (the table's softplus entry) and selects in bf16, the f32 branch cast
// down (the 0/1 condition converts exactly).
// CHECK-LABEL: func.func @main(
// CHECK: %[[C:.*]] = tg.conv {{.*}} -> tensor<1x4x4x4xbf16>
// CHECK: %[[M:.*]] = tg.compare %[[C]], %{{.*}} {predicate = #tg<comparison gt>} : (tensor<1x4x4x4xbf16>, tensor<bf16>) -> tensor<1x4x4x4xbf16>
// CHECK: %[[S:.*]] = tg.softplus %{{.*}} : tensor<1x4x4x4xf32>
// CHECK: %[[SL:.*]] = tg.cast %[[S]] : tensor<1x4x4x4xf32> to tensor<1x4x4x4xbf16>
// CHECK: tg.select %[[M]], %[[C]], %[[SL]] : (tensor<1x4x4x4xbf16>, tensor<1x4x4x4xbf16>, tensor<1x4x4x4xbf16>) -> tensor<1x4x4x4xbf16>
func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "input"},
                %w: tensor<4x2x1x1xf32> {tg.param = "conv.weight"})
    -> (tensor<1x4x4x4xf32> {tg.output = "output"}) {
  %c = tg.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  %t = tg.constant dense<20.0> : tensor<f32>
  %m = tg.compare %c, %t {predicate = #tg<comparison gt>}
      : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %s = tg.softplus %c : tensor<1x4x4x4xf32>
  %y = tg.select %m, %c, %s
      : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
