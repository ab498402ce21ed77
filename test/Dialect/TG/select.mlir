// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// tg.select: ONNX Where of a comparison, its three operands broadcast
// together (the exported F.softplus, masked_fill with a constant).

// CHECK-LABEL: func.func @softplus
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK: %[[T:.*]] = tg.constant dense<2.000000e+01> : tensor<f32>
// CHECK: %[[M:.*]] = tg.compare %[[X]], %[[T]] {predicate = #tg<comparison gt>}
// CHECK: %[[S:.*]] = tg.softplus %[[X]] : tensor<2x3xf32>
// CHECK: tg.select %[[M]], %[[X]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = tg.constant dense<20.0> : tensor<f32>
  %m = tg.compare %x, %t {predicate = #tg<comparison gt>}
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %s = tg.softplus %x : tensor<2x3xf32>
  %y = tg.select %m, %x, %s
      : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// The result has the broadcast shape of all three operands.
// CHECK-LABEL: func.func @masked_fill
// CHECK: tg.compare %{{.*}}, %{{.*}} {predicate = #tg<comparison eq>} : (tensor<4x1xbf16>, tensor<bf16>) -> tensor<4x1xbf16>
// CHECK: tg.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xbf16>, tensor<bf16>, tensor<3xbf16>) -> tensor<4x3xbf16>
func.func @masked_fill(%mask: tensor<4x1xbf16>, %x: tensor<3xbf16>) -> tensor<4x3xbf16> {
  %zero = tg.constant dense<0.0> : tensor<bf16>
  %m = tg.compare %mask, %zero {predicate = #tg<comparison eq>}
      : (tensor<4x1xbf16>, tensor<bf16>) -> tensor<4x1xbf16>
  %fill = tg.constant dense<-1.0e4> : tensor<bf16>
  %y = tg.select %m, %fill, %x
      : (tensor<4x1xbf16>, tensor<bf16>, tensor<3xbf16>) -> tensor<4x3xbf16>
  return %y : tensor<4x3xbf16>
}
