// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// Rank-generic convolutions: N x C and 1 to 3 spatial axes, a weight of the
// input's rank, per-axis attributes of the input's spatial rank (their
// defaults are 2-D: a 1-D or 3-D op states them).

func.func @conv_rank6(%x: tensor<1x1x2x2x2x2xf32>, %w: tensor<1x1x1x1x1x1xf32>) {
  // expected-error @+1 {{operand #0 must be 3D/4D/5D tensor}}
  %0 = tg.conv %x, %w
      : (tensor<1x1x2x2x2x2xf32>, tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x2x2x2x2xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'weight' must have rank 5 (that of 'input'), got rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w
      : (tensor<1x3x8x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return
}

// -----

func.func @conv3d_default_strides(%x: tensor<1x3x8x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{'strides' must have 3 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w
      : (tensor<1x3x8x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return
}

// -----

func.func @conv3d_pads_length(%x: tensor<1x3x8x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{'pads' must have 6 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {strides = array<i64: 1, 1, 1>,
                         dilations = array<i64: 1, 1, 1>,
                         pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x8x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x8x8x8xf32>
  return
}

// -----

func.func @conv3d_depth_window(%x: tensor<1x3x2x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{window of extent 3 does not fit in depth of padded size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {strides = array<i64: 1, 1, 1>,
                         dilations = array<i64: 1, 1, 1>,
                         pads = array<i64: 0, 0, 0, 0, 0, 0>}
      : (tensor<1x3x2x8x8xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x6x6xf32>
  return
}

// -----

func.func @conv1d_result(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+2 {{'tg.conv' op inferred type(s) 'tensor<1x4x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>,
                         pads = array<i64: 0, 0>}
      : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @conv_transpose3d_output_padding(%x: tensor<1x4x4x4x4xf32>, %w: tensor<4x3x2x2x2xf32>) {
  // expected-error @+2 {{'output_padding' must have 3 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {strides = array<i64: 2, 2, 2>,
                                   dilations = array<i64: 1, 1, 1>,
                                   pads = array<i64: 0, 0, 0, 0, 0, 0>}
      : (tensor<1x4x4x4x4xf32>, tensor<4x3x2x2x2xf32>) -> tensor<1x3x8x8x8xf32>
  return
}

// -----

func.func @conv3d_backward_data_shape(%dy: tensor<1x4x6x6x6xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+2 {{'input_shape' must have 5 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_data %dy, %w {strides = array<i64: 1, 1, 1>,
                                        dilations = array<i64: 1, 1, 1>,
                                        pads = array<i64: 0, 0, 0, 0, 0, 0>,
                                        input_shape = array<i64: 1, 3, 8, 8>}
      : (tensor<1x4x6x6x6xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x3x8x8x8xf32>
  return
}

// -----

func.func @conv3d_backward_filter_rank(%dy: tensor<1x4x6x6x6xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'input' must have rank 5 (that of 'grad_output'), got rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_filter %dy, %x {strides = array<i64: 1, 1, 1>,
                                          dilations = array<i64: 1, 1, 1>,
                                          pads = array<i64: 0, 0, 0, 0, 0, 0>,
                                          weight_shape = array<i64: 4, 3, 3, 3, 3>}
      : (tensor<1x4x6x6x6xf32>, tensor<1x3x8x8xf32>) -> tensor<4x3x3x3x3xf32>
  return
}

// -----

func.func @pool3d_kernel_length(%x: tensor<1x2x8x8x8xf32>) {
  // expected-error @+2 {{'kernel' must have 3 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool %x {kernel = array<i64: 2, 2>}
      : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x4x4x4xf32>
  return
}

// -----

func.func @pool3d_depth_pad(%x: tensor<1x2x8x8x8xf32>) {
  // expected-error @+2 {{'pads' must be at most half the kernel size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.avg_pool %x {kernel = array<i64: 2, 2, 2>,
                         strides = array<i64: 2, 2, 2>,
                         pads = array<i64: 2, 0, 0, 0, 0, 0>}
      : (tensor<1x2x8x8x8xf32>) -> tensor<1x2x5x4x4xf32>
  return
}

// -----

func.func @global_pool_rank2(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{operand #0 must be 3D/4D/5D tensor}}
  %0 = tg.global_avg_pool %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @max_pool1d_backward_rank(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+2 {{'input' must have rank 3 (that of 'grad_output'), got rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 2>,
                                       strides = array<i64: 2>,
                                       pads = array<i64: 0, 0>,
                                       dilations = array<i64: 1>}
      : (tensor<2x3x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @resize3d_sizes_length(%x: tensor<1x2x3x4x5xf32>) {
  // expected-error @+2 {{'sizes' must have 3 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 8, 10>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x3x8x10xf32>
  return
}

// -----

func.func @resize3d_scales_disagree(%x: tensor<1x2x3x4x5xf32>) {
  // expected-error @+1 {{'tg.resize' op 'sizes' [6, 8, 10] disagree with 'scales' [2.000000e+00, 3.000000e+00, 2.000000e+00] for input 3x4x5}}
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 6, 8, 10>,
                     scales = array<f64: 2.0, 3.0, 2.0>}
      : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x6x8x10xf32>
  return
}
