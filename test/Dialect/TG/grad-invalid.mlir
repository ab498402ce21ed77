// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of the backward, loss and optimizer ops. When
// result type inference fails, the InferTypeOpInterface verifier adds
// "failed to infer returned types" after the message of the inference itself.

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

// With stride 1 and no padding, an 8x8 input yields a 6x6 output, not 8x8.
func.func @conv_backward_data_grad_shape(%dy: tensor<1x6x8x8xf32>,
                                           %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x6x8x8, but tg.conv yields 1x6x6x6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_data %dy, %w {input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_backward_data_input_shape_rank(%dy: tensor<1x6x6x6xf32>,
                                                 %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'input_shape' must have 4 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_data %dy, %w {input_shape = array<i64: 4, 8, 8>}
      : (tensor<1x6x6x6xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_backward_data_element_types(%dy: tensor<1x6x6x6xf32>,
                                              %w: tensor<6x4x3x3xf16>) {
  // expected-error @+2 {{'grad_output' and 'weight' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_data %dy, %w {input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x6x6x6xf32>, tensor<6x4x3x3xf16>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// The rules of tg.conv apply to the convolution being differentiated.
func.func @conv_backward_data_groups(%dy: tensor<1x6x6x6xf32>,
                                       %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'groups' (4) must divide the input channels (4) and the output channels (6)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_data %dy, %w {groups = 4 : i64,
                                        input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x6x6x6xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_backward_filter_grad_shape(%dy: tensor<1x6x4x4xf32>,
                                             %x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x6x4x4, but tg.conv yields 1x6x3x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_filter %dy, %x {strides = array<i64: 2, 2>,
                                          weight_shape = array<i64: 6, 4, 3, 3>}
      : (tensor<1x6x4x4xf32>, tensor<1x4x8x8xf32>) -> tensor<6x4x3x3xf32>
  return
}

// -----

func.func @conv_backward_filter_weight_shape(%dy: tensor<1x6x6x6xf32>,
                                               %x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'weight_shape' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_filter %dy, %x {weight_shape = array<i64: 6, 4, 0, 3>}
      : (tensor<1x6x6x6xf32>, tensor<1x4x8x8xf32>) -> tensor<6x4x3x3xf32>
  return
}

// -----

func.func @conv_backward_filter_element_types(%dy: tensor<1x6x6x6xbf16>,
                                                %x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'grad_output' and 'input' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_filter %dy, %x {weight_shape = array<i64: 6, 4, 3, 3>}
      : (tensor<1x6x6x6xbf16>, tensor<1x4x8x8xf32>) -> tensor<6x4x3x3xbf16>
  return
}

// -----

func.func @conv_backward_filter_channels(%dy: tensor<1x6x6x6xf32>,
                                           %x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{weight expects 2 input channels, but 'input' has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_backward_filter %dy, %x {weight_shape = array<i64: 6, 2, 3, 3>}
      : (tensor<1x6x6x6xf32>, tensor<1x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  return
}

// -----

// Without output_padding the transposed convolution yields 9x9, not 10x10.
func.func @conv_transpose_backward_filter_grad_shape(
    %dy: tensor<1x3x10x10xf32>, %x: tensor<1x4x5x5xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x3x10x10, but tg.conv_transpose yields 1x3x9x9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose_backward_filter %dy, %x {
      strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
      weight_shape = array<i64: 4, 3, 3, 3>}
      : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_transpose_backward_filter_output_padding(
    %dy: tensor<1x3x10x10xf32>, %x: tensor<1x4x5x5xf32>) {
  // expected-error @+2 {{'output_padding' must be smaller than the stride or the dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose_backward_filter %dy, %x {
      strides = array<i64: 2, 2>, output_padding = array<i64: 2, 2>,
      weight_shape = array<i64: 4, 3, 3, 3>}
      : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalization gradient
//===----------------------------------------------------------------------===//

func.func @batch_norm_backward_grad_type(%dy: tensor<2x3x4x4xf16>,
                                         %x: tensor<2x3x4x4xf32>,
                                         %s: tensor<3xf32>) {
  // expected-error @+2 {{'grad_output' must have the type of 'input'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = tg.batch_norm_backward %dy, %x, %s, %s, %s
      : (tensor<2x3x4x4xf16>, tensor<2x3x4x4xf32>, tensor<3xf32>,
         tensor<3xf32>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_backward_channels(%x: tensor<2x3x4x4xf32>,
                                        %s: tensor<3xf32>, %i: tensor<4xf32>) {
  // expected-error @+2 {{'saved_inv_std' must have 3 elements (the channels of 'input'), got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = tg.batch_norm_backward %x, %x, %s, %s, %i
      : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>,
         tensor<3xf32>, tensor<4xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_backward_channel_types(%x: tensor<2x3x4x4xf32>,
                                             %s: tensor<3xf32>,
                                             %m: tensor<3xbf16>) {
  // expected-error @+1 {{'tg.batch_norm_backward' op per-channel operands must have one element type}}
  %0:3 = tg.batch_norm_backward %x, %x, %s, %m, %s
      : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>,
         tensor<3xbf16>, tensor<3xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise gradients
//===----------------------------------------------------------------------===//

func.func @activation_backward_types(%dy: tensor<2x3xf32>, %y: tensor<2x3xf16>) {
  // expected-error @+1 {{'tg.relu_backward' op requires the same type for all operands and results}}
  %0 = "tg.relu_backward"(%dy, %y) : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @clip_backward_bounds(%dy: tensor<2xf32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'tg.clip_backward' op 'min' (1.000000e+00) must not exceed 'max' (-1.000000e+00)}}
  %0 = tg.clip_backward %dy, %x {min = 1.0, max = -1.0} : tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling and resizing gradients
//===----------------------------------------------------------------------===//

// Without ceil_mode, (5 - 2) / 2 + 1 rounds down to 2.
func.func @max_pool_backward_grad_shape(%dy: tensor<1x1x3x3xf32>,
                                          %x: tensor<1x1x5x5xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x1x3x3, but tg.max_pool yields 1x1x2x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 2, 2>,
                                       strides = array<i64: 2, 2>}
      : (tensor<1x1x3x3xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  return
}

// -----

func.func @max_pool_backward_element_types(%dy: tensor<1x1x2x2xf16>,
                                             %x: tensor<1x1x5x5xf32>) {
  // expected-error @+2 {{'grad_output' and 'input' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool_backward %dy, %x {kernel = array<i64: 2, 2>,
                                       strides = array<i64: 2, 2>}
      : (tensor<1x1x2x2xf16>, tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  return
}

// -----

// The batch and channels of the pooled input are those of grad_output.
func.func @avg_pool_backward_grad_shape(%dy: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x8x4x4, but tg.avg_pool yields 1x4x4x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.avg_pool_backward %dy {kernel = array<i64: 2, 2>,
                                   strides = array<i64: 2, 2>,
                                   input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x8x4x4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @avg_pool_backward_pads(%dy: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{'pads' must be at most half the kernel size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.avg_pool_backward %dy {kernel = array<i64: 2, 2>,
                                   strides = array<i64: 2, 2>,
                                   pads = array<i64: 2, 2, 2, 2>,
                                   input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @resize_backward_sizes(%dy: tensor<1x8x64x64xf32>) {
  // expected-error @+2 {{'sizes' 32x32 differ from the spatial sizes of 'grad_output' 64x64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode nearest>,
                               coordinate_mode = #tg<coordinate_mode asymmetric>,
                               sizes = array<i64: 32, 32>,
                               scales = array<f64: 1.0, 1.0>,
                               input_shape = array<i64: 1, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  return
}

// -----

func.func @resize_backward_scales(%dy: tensor<1x8x64x64xf32>) {
  // expected-error @+2 {{'scales' must have 2 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode nearest>,
                               coordinate_mode = #tg<coordinate_mode asymmetric>,
                               scales = array<f64: 1.0, 1.0, 2.0, 2.0>,
                               input_shape = array<i64: 1, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  return
}

// -----

func.func @resize_backward_grad_shape(%dy: tensor<1x8x64x64xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x8x64x64, but tg.resize yields 2x8x64x64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode nearest>,
                               coordinate_mode = #tg<coordinate_mode asymmetric>,
                               scales = array<f64: 2.0, 2.0>,
                               input_shape = array<i64: 2, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<2x8x32x32xf32>
  return
}

// -----

func.func @resize_backward_scales_disagree(%dy: tensor<1x8x64x64xf32>) {
  // expected-error @+1 {{'tg.resize_backward' op 'sizes' [64, 64] disagree with 'scales' [3.000000e+00, 2.000000e+00] for input 32x32}}
  %0 = tg.resize_backward %dy {mode = #tg<resize_mode nearest>,
                               coordinate_mode = #tg<coordinate_mode asymmetric>,
                               scales = array<f64: 3.0, 2.0>,
                               input_shape = array<i64: 1, 8, 32, 32>}
      : (tensor<1x8x64x64xf32>) -> tensor<1x8x32x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape gradients
//===----------------------------------------------------------------------===//

func.func @slice_backward_grad_shape(%dy: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x8x4x4, but tg.slice yields 1x8x3x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice_backward %dy {starts = array<i64: 0, 0, 1, 1>,
                              ends = array<i64: 1, 8, 7, 7>,
                              steps = array<i64: 1, 1, 2, 2>,
                              input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @slice_backward_input_rank(%dy: tensor<8x3x3xf32>) {
  // expected-error @+2 {{'input_shape' must have 3 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice_backward %dy {starts = array<i64: 0, 0, 1, 1>,
                              ends = array<i64: 1, 8, 7, 7>,
                              steps = array<i64: 1, 1, 2, 2>,
                              input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @slice_backward_range(%dy: tensor<1x8x3x3xf32>) {
  // expected-error @+2 {{slice [1, 9) of axis 2 is empty or outside [0, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice_backward %dy {starts = array<i64: 0, 0, 1, 1>,
                              ends = array<i64: 1, 8, 9, 7>,
                              steps = array<i64: 1, 1, 3, 2>,
                              input_shape = array<i64: 1, 8, 8, 8>}
      : (tensor<1x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @pad_backward_grad_shape(%dy: tensor<1x2x6x6xf32>) {
  // expected-error @+2 {{'grad_output' has shape 1x2x6x6, but tg.pad yields 1x2x6x7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad_backward %dy {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>,
                            mode = #tg<pad_mode edge>,
                            input_shape = array<i64: 1, 2, 4, 4>}
      : (tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pad_backward_input_rank(%dy: tensor<2x6x7xf32>) {
  // expected-error @+2 {{'input_shape' must have 3 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad_backward %dy {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>,
                            mode = #tg<pad_mode edge>,
                            input_shape = array<i64: 1, 2, 4, 4>}
      : (tensor<2x6x7xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pad_backward_reflect_width(%dy: tensor<1x2x8x4xf32>) {
  // expected-error @+2 {{reflect padding of axis 2 must be smaller than its size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad_backward %dy {pads = array<i64: 0, 0, 4, 0, 0, 0, 0, 0>,
                            mode = #tg<pad_mode reflect>,
                            input_shape = array<i64: 1, 2, 4, 4>}
      : (tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pad_backward_pads_length(%dy: tensor<1x2x6x6xf32>) {
  // expected-error @+2 {{'pads' must have 8 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad_backward %dy {pads = array<i64: 1, 1, 1, 1>,
                            mode = #tg<pad_mode edge>,
                            input_shape = array<i64: 1, 2, 4, 4>}
      : (tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @broadcast_incompatible(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{'input' of shape 3x2 does not broadcast to 'shape' 4x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.broadcast %x {shape = array<i64: 4, 3>}
      : (tensor<3x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Broadcasting never drops an axis.
func.func @broadcast_lower_rank(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{'input' of shape 1x3 does not broadcast to 'shape' 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.broadcast %x {shape = array<i64: 3>}
      : (tensor<1x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_shape(%x: tensor<3xf32>) {
  // expected-error @+2 {{'shape' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.broadcast %x {shape = array<i64: 0, 3>}
      : (tensor<3xf32>) -> tensor<0x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

func.func @loss_operand_types(%p: tensor<4xf32>, %t: tensor<1x4xf32>) {
  // expected-error @+2 {{'prediction' and 'target' must have one type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.mse_loss %p, %t : (tensor<4xf32>, tensor<1x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @loss_backward_grad_rank(%g: tensor<1xf32>, %p: tensor<4xf32>) {
  // expected-error @+2 {{'grad_loss' must have rank 0, got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.l1_loss_backward %g, %p, %p
      : (tensor<1xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss_backward_grad_type(%g: tensor<f16>, %p: tensor<4xf32>) {
  // expected-error @+2 {{'grad_loss' must have the element type of 'prediction'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.bce_loss_backward %g, %p, %p
      : (tensor<f16>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

func.func @sgd_state_types(%p: tensor<4xf32>, %buf: tensor<4xbf16>,
                           %step: tensor<i64>) {
  // expected-error @+1 {{'tg.sgd_update' op failed to verify that 'momentum_buffer' has the type of 'param'}}
  %0:2 = "tg.sgd_update"(%p, %p, %buf, %step)
      <{momentum = 0.9 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<i64>)
      -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_lr(%p: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op 'lr' must be non-negative, got -1.000000e-01}}
  %0 = tg.sgd_update %p, %p {lr = -0.1} : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.sgd_update' op 'momentum' must be non-negative, got -9.000000e-01}}
  %0:2 = tg.sgd_update %p, %p, %p, step %step {momentum = -0.9}
      : tensor<4xf32>
  return
}

// -----

func.func @sgd_weight_decay(%p: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op 'weight_decay' must be non-negative, got -1.000000e-04}}
  %0 = tg.sgd_update %p, %p {weight_decay = -1.0e-4} : tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_without_momentum(%p: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op 'nesterov' requires a positive 'momentum' and zero 'dampening'}}
  %0 = tg.sgd_update %p, %p {nesterov = true} : tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_with_dampening(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.sgd_update' op 'nesterov' requires a positive 'momentum' and zero 'dampening'}}
  %0:2 = tg.sgd_update %p, %p, %p, step %step {momentum = 0.9, dampening = 0.1,
                                               nesterov = true}
      : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_without_buffer(%p: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op with a non-zero 'momentum' takes a 'momentum_buffer' and a 'step'}}
  %0 = tg.sgd_update %p, %p {momentum = 0.9} : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_without_step(%p: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op with a non-zero 'momentum' takes a 'momentum_buffer' and a 'step'}}
  %0:2 = tg.sgd_update %p, %p, %p {momentum = 0.9} : tensor<4xf32>
  return
}

// -----

func.func @sgd_buffer_without_momentum(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.sgd_update' op without 'momentum' takes no 'momentum_buffer' and no 'step'}}
  %0:2 = tg.sgd_update %p, %p, %p, step %step {lr = 0.1} : tensor<4xf32>
  return
}

// -----

func.func @sgd_step_type(%p: tensor<4xf32>, %step: tensor<f32>) {
  // expected-error @+1 {{'tg.sgd_update' op operand #3 must be 0D tensor of 64-bit signless integer values, but got 'tensor<f32>'}}
  %0:2 = "tg.sgd_update"(%p, %p, %p, %step)
      <{momentum = 0.9 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>)
      -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_lr(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op 'lr' must be non-negative, got -1.000000e-03}}
  %0:3 = tg.adam_update %p, %p, %p, %p, step %step {lr = -1.0e-3}
      : tensor<4xf32>
  return
}

// -----

func.func @adam_beta1(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op 'beta1' must be in [0, 1), got 1.000000e+00}}
  %0:3 = tg.adam_update %p, %p, %p, %p, step %step {beta1 = 1.0}
      : tensor<4xf32>
  return
}

// -----

func.func @adam_beta2(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op 'beta2' must be in [0, 1), got -5.000000e-01}}
  %0:3 = tg.adam_update %p, %p, %p, %p, step %step {beta2 = -0.5}
      : tensor<4xf32>
  return
}

// -----

func.func @adam_eps(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op 'eps' must be positive, got 0.000000e+00}}
  %0:3 = tg.adam_update %p, %p, %p, %p, step %step {eps = 0.0}
      : tensor<4xf32>
  return
}

// -----

func.func @adam_weight_decay(%p: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op 'weight_decay' must be non-negative, got -1.000000e-02}}
  %0:3 = tg.adam_update %p, %p, %p, %p, step %step {weight_decay = -1.0e-2,
                                                    decoupled = true}
      : tensor<4xf32>
  return
}

// -----

func.func @adam_state_types(%p: tensor<4xf32>, %v: tensor<4xf16>,
                            %step: tensor<i64>) {
  // expected-error @+1 {{'tg.adam_update' op failed to verify that all of {param, grad, exp_avg, exp_avg_sq} have same type}}
  %0:3 = "tg.adam_update"(%p, %p, %p, %v, %step)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<i64>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
