// RUN: memopt-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @fused
// CHECK: tg.fused_elementwise %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: tg.yield %{{.*}} : tensor<2x4xf32>
func.func @fused(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = tg.fused_elementwise %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>):
    %0 = tg.add %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = tg.leaky_relu %0 {alpha = 0.2} : tensor<2x4xf32>
    tg.yield %1 : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

func.func @not_elementwise(%a: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %y = tg.fused_elementwise %a : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  ^bb0(%x: tensor<1x1x4x4xf32>):
    // expected-error @+1 {{'tg.resize' op cannot be part of a tg.fused_elementwise body (not a same-shape elementwise op)}}
    %0 = tg.resize %x {mode = #tg<resize_mode nearest>, scales = array<f64: 1.0, 1.0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
    tg.yield %0 : tensor<1x1x4x4xf32>
  }
  return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @broadcast(%a: tensor<4xf32>, %b: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tg.fused_elementwise' op inputs and body arguments must have the output type 'tensor<4xf32>' (no broadcasting)}}
  %y = tg.fused_elementwise %a, %b : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %s: tensor<1xf32>):
    %0 = tg.add %x, %s : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    tg.yield %0 : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tg.fused_elementwise' op has 1 inputs but its body 2 arguments}}
  %y = tg.fused_elementwise %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %s: tensor<4xf32>):
    %0 = tg.add %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tg.yield %0 : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
