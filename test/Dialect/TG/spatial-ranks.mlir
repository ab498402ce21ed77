// RUN: memopt-opt %s | FileCheck %s

// The convolutions and their gradients take 1, 2 or 3 spatial axes (rank 3,
// 4 or 5): one value of strides, dilations and output_padding per spatial
// axis, the pads' begins then ends. Each op parses only with the type that
// its inference computes.

// D: (9 + 1 + 0 - 2 * (3 - 1) - 1) / 2 + 1 = 3; H: (8 + 1 + 1 - 3) / 1 + 1 = 8;
// W: (7 + 0 + 2 - 3) / 3 + 1 = 3.
// CHECK-LABEL: func.func @conv3d
func.func @conv3d(%x: tensor<2x4x9x8x7xf32>, %w: tensor<6x2x3x3x3xf32>,
                  %b: tensor<6xf32>) -> tensor<2x6x3x8x3xf32> {
  // CHECK: tg.conv {{.*}} -> tensor<2x6x3x8x3xf32>
  %0 = tg.conv %x, %w, %b {strides = array<i64: 2, 1, 3>,
                             pads = array<i64: 1, 1, 0, 0, 1, 2>,
                             dilations = array<i64: 2, 1, 1>, groups = 2 : i64}
      : (tensor<2x4x9x8x7xf32>, tensor<6x2x3x3x3xf32>, tensor<6xf32>)
      -> tensor<2x6x3x8x3xf32>
  return %0 : tensor<2x6x3x8x3xf32>
}

// W: (10 + 1 + 1 - 3) / 2 + 1 = 5.
// CHECK-LABEL: func.func @conv1d
func.func @conv1d(%x: tensor<3x2x10xf32>, %w: tensor<5x2x3xf32>)
    -> tensor<3x5x5xf32> {
  // CHECK: tg.conv {{.*}} -> tensor<3x5x5xf32>
  %0 = tg.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 1, 1>,
                         dilations = array<i64: 1>}
      : (tensor<3x2x10xf32>, tensor<5x2x3xf32>) -> tensor<3x5x5xf32>
  return %0 : tensor<3x5x5xf32>
}

// Per axis (D, H, W): (4 - 1) * 2 - 0 - 0 + (2 - 1) + 1 + 1 = 9;
// (3 - 1) * 2 + 1 + 0 + 1 = 6; (5 - 1) * 1 + 2 + 1 = 7.
// CHECK-LABEL: func.func @conv_transpose3d
func.func @conv_transpose3d(%x: tensor<1x4x4x3x5xf32>,
                            %w: tensor<4x3x2x2x3xf32>)
    -> tensor<1x3x9x6x7xf32> {
  // CHECK: tg.conv_transpose {{.*}} -> tensor<1x3x9x6x7xf32>
  %0 = tg.conv_transpose %x, %w {strides = array<i64: 2, 2, 1>,
                                   pads = array<i64: 0, 0, 0, 0, 0, 0>,
                                   dilations = array<i64: 1, 1, 1>,
                                   output_padding = array<i64: 1, 0, 0>}
      : (tensor<1x4x4x3x5xf32>, tensor<4x3x2x2x3xf32>) -> tensor<1x3x9x6x7xf32>
  return %0 : tensor<1x3x9x6x7xf32>
}

// The gradients recompute the forward shape at the same rank.
// CHECK-LABEL: func.func @conv3d_gradients
func.func @conv3d_gradients(%dy: tensor<2x6x3x8x3xf32>,
                            %x: tensor<2x4x9x8x7xf32>,
                            %w: tensor<6x2x3x3x3xf32>)
    -> (tensor<2x4x9x8x7xf32>, tensor<6x2x3x3x3xf32>) {
  // CHECK: tg.conv_backward_data {{.*}} -> tensor<2x4x9x8x7xf32>
  %0 = tg.conv_backward_data %dy, %w {strides = array<i64: 2, 1, 3>,
                                        pads = array<i64: 1, 1, 0, 0, 1, 2>,
                                        dilations = array<i64: 2, 1, 1>,
                                        groups = 2 : i64,
                                        input_shape = array<i64: 2, 4, 9, 8, 7>}
      : (tensor<2x6x3x8x3xf32>, tensor<6x2x3x3x3xf32>) -> tensor<2x4x9x8x7xf32>
  // CHECK: tg.conv_backward_filter {{.*}} -> tensor<6x2x3x3x3xf32>
  %1 = tg.conv_backward_filter %dy, %x {strides = array<i64: 2, 1, 3>,
                                          pads = array<i64: 1, 1, 0, 0, 1, 2>,
                                          dilations = array<i64: 2, 1, 1>,
                                          groups = 2 : i64,
                                          weight_shape = array<i64: 6, 2, 3, 3, 3>}
      : (tensor<2x6x3x8x3xf32>, tensor<2x4x9x8x7xf32>) -> tensor<6x2x3x3x3xf32>
  return %0, %1 : tensor<2x4x9x8x7xf32>, tensor<6x2x3x3x3xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d_backward_filter
func.func @conv_transpose1d_backward_filter(%dy: tensor<2x3x9xf32>,
                                            %x: tensor<2x4x4xf32>)
    -> tensor<4x3x3xf32> {
  // (4 - 1) * 2 + (3 - 1) + 1 = 9.
  // CHECK: tg.conv_transpose_backward_filter {{.*}} -> tensor<4x3x3xf32>
  %0 = tg.conv_transpose_backward_filter %dy, %x {
      strides = array<i64: 2>, pads = array<i64: 0, 0>,
      dilations = array<i64: 1>, output_padding = array<i64: 0>,
      weight_shape = array<i64: 4, 3, 3>}
      : (tensor<2x3x9xf32>, tensor<2x4x4xf32>) -> tensor<4x3x3xf32>
  return %0 : tensor<4x3x3xf32>
}

// Pooling over 3 and 1 spatial axes. D: (5 + 1 + 0 - 3) / 2 + 1 = 2,
// rounded up by ceil_mode to 3 (the last window starts inside the input);
// H: (6 - 2) / 2 + 1 = 3; W: (7 + 1 + 1 - 3) / 1 + 1 = 7.
// CHECK-LABEL: func.func @pool3d
func.func @pool3d(%x: tensor<1x2x5x6x7xf32>)
    -> (tensor<1x2x3x3x7xf32>, tensor<1x2x2x3x7xf32>, tensor<1x2x1x1x1xf32>) {
  // CHECK: tg.max_pool {{.*}} -> tensor<1x2x3x3x7xf32>
  %0 = tg.max_pool %x {kernel = array<i64: 3, 2, 3>,
                         strides = array<i64: 2, 2, 1>,
                         pads = array<i64: 1, 0, 1, 0, 0, 1>,
                         dilations = array<i64: 1, 1, 1>, ceil_mode = true}
      : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x3x3x7xf32>
  // CHECK: tg.avg_pool {{.*}} -> tensor<1x2x2x3x7xf32>
  %1 = tg.avg_pool %x {kernel = array<i64: 3, 2, 3>,
                         strides = array<i64: 2, 2, 1>,
                         pads = array<i64: 1, 0, 1, 0, 0, 1>}
      : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x3x7xf32>
  // CHECK: tg.global_avg_pool {{.*}} -> tensor<1x2x1x1x1xf32>
  %2 = tg.global_avg_pool %x : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x1x1x1xf32>
  return %0, %1, %2
      : tensor<1x2x3x3x7xf32>, tensor<1x2x2x3x7xf32>, tensor<1x2x1x1x1xf32>
}

// CHECK-LABEL: func.func @pool1d_gradients
func.func @pool1d_gradients(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x8xf32>)
    -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  // CHECK: tg.max_pool_backward {{.*}} -> tensor<2x3x8xf32>
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 2>,
                                       strides = array<i64: 2>,
                                       pads = array<i64: 0, 0>,
                                       dilations = array<i64: 1>}
      : (tensor<2x3x4xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: tg.avg_pool_backward {{.*}} -> tensor<2x3x8xf32>
  %1 = tg.avg_pool_backward %dy {kernel = array<i64: 2>,
                                   strides = array<i64: 2>,
                                   pads = array<i64: 0, 0>,
                                   input_shape = array<i64: 2, 3, 8>}
      : (tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %0, %1 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// Resize over 3 and 1 spatial axes: one size and scale per spatial axis.
// CHECK-LABEL: func.func @resize3d
func.func @resize3d(%x: tensor<1x2x3x4x5xf32>, %dy: tensor<1x2x6x8x10xf32>)
    -> (tensor<1x2x6x8x10xf32>, tensor<1x2x3x4x5xf32>) {
  // CHECK: tg.resize {{.*}} -> tensor<1x2x6x8x10xf32>
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 6, 8, 10>,
                     scales = array<f64: 2.0, 2.0, 2.0>}
      : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x8x10xf32>
  // CHECK: tg.resize_backward {{.*}} -> tensor<1x2x3x4x5xf32>
  %1 = tg.resize_backward %dy {mode = #tg<resize_mode bilinear>,
                               coordinate_mode = #tg<coordinate_mode half_pixel>,
                               nearest_mode = #tg<nearest_mode floor>,
                               scales = array<f64: 2.0, 2.0, 2.0>,
                               input_shape = array<i64: 1, 2, 3, 4, 5>}
      : (tensor<1x2x6x8x10xf32>) -> tensor<1x2x3x4x5xf32>
  return %0, %1 : tensor<1x2x6x8x10xf32>, tensor<1x2x3x4x5xf32>
}

// CHECK-LABEL: func.func @resize1d
func.func @resize1d(%x: tensor<2x3x5xf32>) -> tensor<2x3x15xf32> {
  // CHECK: tg.resize {{.*}} -> tensor<2x3x15xf32>
  %0 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode asymmetric>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 15>, scales = array<f64: 3.0>}
      : (tensor<2x3x5xf32>) -> tensor<2x3x15xf32>
  return %0 : tensor<2x3x15xf32>
}
