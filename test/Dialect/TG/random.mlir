// RUN: memopt-opt %s | memopt-opt | FileCheck %s
// RUN: memopt-opt %s -cse | FileCheck %s --check-prefix=CSE

// tg.random_uniform, tg.compare and tg.floor: drop-path and drop-connect
// masks. Distinct random ops have distinct streams, so that CSE merges only
// ops that draw the same numbers.

// CHECK-LABEL: func.func @drop_path
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4x4xf32>
// CHECK: %[[U:.*]] = tg.random_uniform {stream = 0 : i64} : tensor<2x1x1x1xf32>
// CHECK: %[[P:.*]] = tg.constant dense<8.000000e-01> : tensor<f32>
// CHECK: %[[M:.*]] = tg.compare %[[U]], %[[P]] {predicate = #tg<comparison lt>} : (tensor<2x1x1x1xf32>, tensor<f32>) -> tensor<2x1x1x1xf32>
// CHECK: tg.mul %[[X]], %[[M]]
func.func @drop_path(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %u = tg.random_uniform {stream = 0} : tensor<2x1x1x1xf32>
  %p = tg.constant dense<0.8> : tensor<f32>
  %m = tg.compare %u, %p {predicate = #tg<comparison lt>}
      : (tensor<2x1x1x1xf32>, tensor<f32>) -> tensor<2x1x1x1xf32>
  %y = tg.mul %x, %m : (tensor<2x3x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// CHECK-LABEL: func.func @drop_connect
// CHECK: %[[U:.*]] = tg.random_uniform {high = 2.000000e+00 : f64, low = -1.000000e+00 : f64, stream = 3 : i64} : tensor<2x1x1x1xbf16>
// CHECK: %[[F:.*]] = tg.floor %[[U]] : tensor<2x1x1x1xbf16>
// CHECK: tg.compare %[[F]], %[[F]] {predicate = #tg<comparison ge>}
func.func @drop_connect() -> tensor<2x1x1x1xbf16> {
  %u = tg.random_uniform {low = -1.0, high = 2.0, stream = 3} : tensor<2x1x1x1xbf16>
  %f = tg.floor %u : tensor<2x1x1x1xbf16>
  %c = tg.compare %f, %f {predicate = #tg<comparison ge>}
      : (tensor<2x1x1x1xbf16>, tensor<2x1x1x1xbf16>) -> tensor<2x1x1x1xbf16>
  return %c : tensor<2x1x1x1xbf16>
}

// Two streams stay two ops; the same stream (a remat clone, say) draws the
// same numbers and is one op after CSE.
// CSE-LABEL: func.func @streams
// CSE: %[[A:.*]] = tg.random_uniform {stream = 0 : i64}
// CSE-NEXT: %[[B:.*]] = tg.random_uniform {stream = 1 : i64}
// CSE-NEXT: %[[S:.*]] = tg.add %[[A]], %[[B]]
// CSE-NEXT: tg.add %[[S]], %[[A]]
func.func @streams() -> tensor<4xf32> {
  %a = tg.random_uniform {stream = 0} : tensor<4xf32>
  %b = tg.random_uniform {stream = 1} : tensor<4xf32>
  %c = tg.random_uniform {stream = 0} : tensor<4xf32>
  %s = tg.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = tg.add %s, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
