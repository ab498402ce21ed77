// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// Round trip and shape inference of tg.gather and tg.gather_backward: the
// output shape is input.shape[:axis] + indices.shape + input.shape[axis+1:].

// CHECK-LABEL: func.func @gather_table
// CHECK-SAME: (%[[T:.*]]: tensor<9x2xf32>)
func.func @gather_table(%t: tensor<9x2xf32>) -> tensor<4x4x2xf32> {
  // CHECK: %[[G:.*]] = tg.gather %[[T]] {axis = 0 : i64, indices = dense<{{\[}}[0, 1, 3, 4], [8, 8, 0, 2], [1, 1, 1, 1], [7, 6, 5, 4]]> : tensor<4x4xi64>} : (tensor<9x2xf32>) -> tensor<4x4x2xf32>
  %0 = tg.gather %t {axis = 0 : i64,
                     indices = dense<[[0, 1, 3, 4], [8, 8, 0, 2],
                                      [1, 1, 1, 1], [7, 6, 5, 4]]>
                         : tensor<4x4xi64>}
      : (tensor<9x2xf32>) -> tensor<4x4x2xf32>
  // CHECK: return %[[G]]
  return %0 : tensor<4x4x2xf32>
}

// CHECK-LABEL: func.func @gather_inner_axis
func.func @gather_inner_axis(%x: tensor<2x5x3xbf16>) {
  // CHECK: tg.gather {{.*}} : (tensor<2x5x3xbf16>) -> tensor<2x2x3xbf16>
  %0 = tg.gather %x {axis = 1 : i64, indices = dense<[4, 0]> : tensor<2xi64>}
      : (tensor<2x5x3xbf16>) -> tensor<2x2x3xbf16>
  // A rank-0 index drops the axis.
  // CHECK: tg.gather {{.*}} : (tensor<2x5x3xbf16>) -> tensor<2x3xbf16>
  %1 = tg.gather %x {axis = 1 : i64, indices = dense<2> : tensor<i64>}
      : (tensor<2x5x3xbf16>) -> tensor<2x3xbf16>
  // CHECK: tg.gather {{.*}} : (tensor<2x5x3xbf16>) -> tensor<2x5x1x2xbf16>
  %2 = tg.gather %x {axis = 2 : i64, indices = dense<[[0, 2]]> : tensor<1x2xi64>}
      : (tensor<2x5x3xbf16>) -> tensor<2x5x1x2xbf16>
  return
}

// CHECK-LABEL: func.func @gather_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<2x2x3xf32>)
func.func @gather_backward(%dy: tensor<2x2x3xf32>) -> tensor<2x5x3xf32> {
  // CHECK: %[[G:.*]] = tg.gather_backward %[[DY]] {axis = 1 : i64, indices = dense<[4, 1]> : tensor<2xi64>, input_shape = array<i64: 2, 5, 3>} : (tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  %0 = tg.gather_backward %dy {axis = 1 : i64,
                               indices = dense<[4, 1]> : tensor<2xi64>,
                               input_shape = array<i64: 2, 5, 3>}
      : (tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  // CHECK: return %[[G]]
  return %0 : tensor<2x5x3xf32>
}
