// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of the tg dialect. When result type inference
// fails, the InferTypeOpInterface verifier adds "failed to infer returned
// types" after the message of the inference itself.

//===----------------------------------------------------------------------===//
// Function argument and result roles
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown tg attribute 'tg.weight'}}
func.func @unknown_role(%x: tensor<2xf32> {tg.weight = "w"}) {
  return
}

// -----

// expected-error @+1 {{'tg.input' marks a function argument, not a result}}
func.func @argument_role_on_result(%x: tensor<2xf32>)
    -> (tensor<2xf32> {tg.input = "x"}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'tg.output' marks a function result, not an argument}}
func.func @result_role_on_argument(%x: tensor<2xf32> {tg.output = "y"}) {
  return
}

// -----

// expected-error @+1 {{'tg.param' must be a non-empty string naming an ONNX value}}
func.func @empty_role_name(%x: tensor<2xf32> {tg.param = ""}) {
  return
}

// -----

// expected-error @+1 {{'tg.state' must be a non-empty string naming an ONNX value}}
func.func @role_not_a_string(%x: tensor<2xf32> {tg.state = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'tg.target' marks a function argument, not a result}}
func.func @target_on_result(%x: tensor<2xf32>)
    -> (tensor<2xf32> {tg.target = "target"}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'tg.step' marks a function argument, not a result}}
func.func @step_on_result(%x: tensor<i64>) -> (tensor<i64> {tg.step = "step"}) {
  return %x : tensor<i64>
}

// -----

// expected-error @+1 {{'tg.target' must be a non-empty string naming an ONNX value}}
func.func @empty_target(%x: tensor<2xf32> {tg.target = ""}) {
  return
}

// -----

// expected-error @+1 {{'tg.opt_state' must name '<parameter>.<slot>' with slot momentum_buffer, exp_avg or exp_avg_sq, got 'fc.weight.velocity'}}
func.func @opt_state_unknown_slot(%x: tensor<2xf32> {tg.opt_state = "fc.weight.velocity"}) {
  return
}

// -----

// expected-error @+1 {{'tg.opt_state' must name '<parameter>.<slot>' with slot momentum_buffer, exp_avg or exp_avg_sq, got 'exp_avg'}}
func.func @opt_state_without_param(%x: tensor<2xf32>)
    -> (tensor<2xf32> {tg.opt_state = "exp_avg"}) {
  return %x : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Result type
//===----------------------------------------------------------------------===//

func.func @result_type_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'tg.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @dynamic_input(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'input' must be a statically shaped tensor}}
  %0:2 = tg.dropout %x {ratio = 0.5} : tensor<?x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @binary_element_types(%x: tensor<2xf32>, %y: tensor<2xf16>) {
  // expected-error @+2 {{'lhs' and 'rhs' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.mul %x, %y : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @binary_no_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.sub %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @clip_min_above_max(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tg.clip' op 'min' (6.000000e+00) must not exceed 'max' (0.000000e+00)}}
  %0 = tg.clip %x {min = 6.0, max = 0.0} : tensor<2xf32>
  return
}

// -----

func.func @cast_reshapes(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tg.cast' op changes the element type only, but its result shape 4x2 differs from its input shape 2x4}}
  %0 = tg.cast %x : tensor<2x4xf32> to tensor<4x2xbf16>
  return
}

// -----

func.func @cast_to_integer(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tg.cast' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x4xi32>'}}
  %0 = tg.cast %x : tensor<2x4xf32> to tensor<2x4xi32>
  return
}

// -----

func.func @dropout_ratio(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tg.dropout' op 'ratio' must be in [0, 1), got 1.000000e+00}}
  %0:2 = tg.dropout %x {ratio = 1.0} : tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

func.func @conv_strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'strides' must have 2 elements, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {strides = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'pads' must have 4 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {pads = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_dilations_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'dilations' must have 2 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {dilations = array<i64: 1, 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'strides' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {strides = array<i64: 1, 0>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'pads' must be >= 0 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {pads = array<i64: 0, -1, 0, 0>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x5xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'dilations' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {dilations = array<i64: 0, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{'groups' (4) must divide the input channels (4) and the output channels (6)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w {groups = 4 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{weight expects 2 input channels, but 'input' has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                          %b: tensor<3xf32>) {
  // expected-error @+2 {{'bias' must have 4 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w, %b
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
      -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+2 {{'input', 'weight' and 'bias' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias_element_type(%x: tensor<1x3x8x8xf32>,
                                  %w: tensor<4x3x3x3xf32>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{'input', 'weight' and 'bias' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w, %b
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xbf16>)
      -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x3x4x8xf32>, %w: tensor<4x3x5x5xf32>) {
  // expected-error @+2 {{window of extent 5 does not fit in height of padded size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv %x, %w
      : (tensor<1x3x4x8xf32>, tensor<4x3x5x5xf32>) -> tensor<1x4x1x4xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_length(%x: tensor<1x4x5x5xf32>,
                                                %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'output_padding' must have 2 elements, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {output_padding = array<i64: 0>}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_negative_output_padding(%x: tensor<1x4x5x5xf32>,
                                                  %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'output_padding' must be >= 0 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {output_padding = array<i64: 0, -1>}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x6xf32>
  return
}

// -----

func.func @conv_transpose_weight_channels(%x: tensor<1x4x5x5xf32>,
                                          %w: tensor<2x3x3x3xf32>) {
  // expected-error @+2 {{weight expects 2 input channels, but 'input' has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w
      : (tensor<1x4x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'groups' (3) must divide the input channels (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {groups = 3 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x9x7x7xf32>
  return
}

// -----

func.func @conv_transpose_bias_size(%x: tensor<1x4x5x5xf32>,
                                    %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'bias' must have 6 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w, %b {groups = 2 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
      -> tensor<1x6x7x7xf32>
  return
}

// -----

func.func @conv_transpose_element_types(%x: tensor<1x4x5x5xbf16>,
                                        %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'input', 'weight' and 'bias' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w
      : (tensor<1x4x5x5xbf16>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xbf16>
  return
}

// -----

func.func @conv_transpose_output_padding_too_large(%x: tensor<1x4x5x5xf32>,
                                                   %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'output_padding' must be smaller than the stride or the dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {strides = array<i64: 2, 2>,
                                   output_padding = array<i64: 2, 0>}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x13x11xf32>
  return
}

// -----

func.func @conv_transpose_empty_output(%x: tensor<1x4x1x1xf32>,
                                       %w: tensor<4x3x1x1xf32>) {
  // expected-error @+2 {{transposed convolution yields an empty output}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.conv_transpose %x, %w {pads = array<i64: 1, 0, 0, 0>}
      : (tensor<1x4x1x1xf32>, tensor<4x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

func.func @batch_norm_rank(%x: tensor<6xf32>, %s: tensor<6xf32>) {
  // expected-error @+2 {{'input' must have rank >= 2 (N x C x ...)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:5 = tg.batch_norm %x, %s, %s, %s, %s
      : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
         tensor<6xf32>)
      -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
          tensor<6xf32>)
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>,
                               %v: tensor<4xf32>) {
  // expected-error @+2 {{'running_var' must have 3 elements (the channels of 'input'), got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:5 = tg.batch_norm %x, %s, %s, %s, %v
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<4xf32>)
      -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_one_value_per_channel(%x: tensor<1x3x1x1xf32>,
                                            %s: tensor<3xf32>) {
  // expected-error @+2 {{training-mode batch normalization needs more than one value per channel}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:5 = tg.batch_norm %x, %s, %s, %s, %s
      : (tensor<1x3x1x1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>)
      -> (tensor<1x3x1x1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'tg.batch_norm' op 'epsilon' must be positive, got 0.000000e+00}}
  %0:5 = tg.batch_norm %x, %s, %s, %s, %s {epsilon = 0.0}
      : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>)
      -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_channel_types(%x: tensor<2x3xbf16>, %s: tensor<3xf32>,
                                    %m: tensor<3xbf16>) {
  // expected-error @+1 {{'tg.batch_norm' op per-channel operands must have one element type}}
  %0:5 = tg.batch_norm %x, %s, %s, %m, %s
      : (tensor<2x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>,
         tensor<3xf32>)
      -> (tensor<2x3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>,
          tensor<3xbf16>)
  return
}

// -----

func.func @batch_norm_momentum(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'tg.batch_norm' op 'momentum' must be in [0, 1], got 1.500000e+00}}
  %0:5 = tg.batch_norm %x, %s, %s, %s, %s {momentum = 1.5}
      : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>)
      -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_inference_channels(%x: tensor<1x3x4x4xf32>,
                                         %s: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{'bias' must have 3 elements (the channels of 'input'), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.batch_norm_inference %x, %s, %b, %s, %s
      : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>,
         tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_inference_epsilon(%x: tensor<1x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'tg.batch_norm_inference' op 'epsilon' must be positive, got -1.000000e+00}}
  %0 = tg.batch_norm_inference %x, %s, %s, %s, %s {epsilon = -1.0}
      : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @batch_norm_inference_channel_types(%x: tensor<1x3xf32>,
                                              %s: tensor<3xf32>,
                                              %v: tensor<3xf16>) {
  // expected-error @+1 {{'tg.batch_norm_inference' op per-channel operands must have one element type}}
  %0 = tg.batch_norm_inference %x, %s, %s, %s, %v
      : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf16>) -> tensor<1x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

func.func @pool_kernel_length(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'kernel' must have 2 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool %x {kernel = array<i64: 2, 2, 2>}
      : (tensor<1x2x8x8xf32>) -> tensor<1x2x7x7xf32>
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'kernel' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.avg_pool %x {kernel = array<i64: 0, 2>}
      : (tensor<1x2x8x8xf32>) -> tensor<1x2x9x7xf32>
  return
}

// -----

func.func @pool_pads_over_half_kernel(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'pads' must be at most half the kernel size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.max_pool %x {kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 2>}
      : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x8xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<1x2x8x2xf32>) {
  // expected-error @+2 {{window of extent 3 does not fit in width of padded size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.avg_pool %x {kernel = array<i64: 3, 3>}
      : (tensor<1x2x8x2xf32>) -> tensor<1x2x6x1xf32>
  return
}

// -----

func.func @resize_sizes_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{'sizes' must have 2 elements, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode asymmetric>,
                     sizes = array<i64: 1, 2, 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @resize_zero_size(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{'sizes' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode asymmetric>,
                     sizes = array<i64: 0, 8>, scales = array<f64: 0.1, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x8xf32>
  return
}

// -----

func.func @resize_scales_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{'scales' must have 2 elements, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @resize_scales_not_positive(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+2 {{'scales' must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 0.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @resize_sizes_disagree_with_scales(%x: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{'tg.resize' op 'sizes' [8, 8] disagree with 'scales' [2.000000e+00, 2.000000e+00] for input 4x6}}
  %0 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x6xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

func.func @concat_no_input() {
  // expected-error @+2 {{needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.concat {axis = 0 : i64} : () -> tensor<1xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'axis' 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.concat %x, %x {axis = 2 : i64}
      : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_types(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>) {
  // expected-error @+2 {{all inputs must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.concat %x, %y {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_ranks(%x: tensor<2x3xf32>, %y: tensor<2x3x1xf32>) {
  // expected-error @+2 {{all inputs must have rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.concat %x, %y {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_other_dimension(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>) {
  // expected-error @+2 {{inputs differ in dimension 0 (2 vs 4), which is not the concatenation axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.concat %x, %y {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_starts_length(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'starts' must have 2 elements, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice %x {starts = array<i64: 0>, ends = array<i64: 4, 10>,
                    steps = array<i64: 1, 1>}
      : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_ends_length(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'ends' must have 2 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 10, 1>,
                    steps = array<i64: 1, 1>}
      : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_steps_length(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'steps' must have 2 elements, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 10>,
                    steps = array<i64>}
      : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'steps' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 10>,
                    steps = array<i64: 1, 0>}
      : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{slice [2, 11) of axis 1 is empty or outside [0, 10)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.slice %x {starts = array<i64: 0, 2>, ends = array<i64: 4, 11>,
                    steps = array<i64: 1, 1>}
      : (tensor<4x10xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @pad_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'pads' must have 4 elements, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad %x {pads = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'pads' must be >= 0 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad %x {pads = array<i64: 0, 0, -1, 0>}
      : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @pad_reflect_too_wide(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reflect padding of axis 0 must be smaller than its size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.pad %x {pads = array<i64: 0, 0, 2, 0>, mode = #tg<pad_mode reflect>}
      : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @reshape_zero_dimension(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'shape' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.reshape %x {shape = array<i64: -1, 6>}
      : (tensor<2x3xf32>) -> tensor<1x6xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'shape' holds 8 elements but 'input' holds 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.reshape %x {shape = array<i64: 2, 4>}
      : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'perm' must have 2 elements, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.transpose %x {perm = array<i64: 1, 0, 2>}
      : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'perm' must be a permutation of [0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.transpose %x {perm = array<i64: 1, 1, 0>}
      : (tensor<2x3x4xf32>) -> tensor<3x3x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra and reductions
//===----------------------------------------------------------------------===//

func.func @matmul_rank(%x: tensor<3xf32>, %y: tensor<3x2xf32>) {
  // expected-error @+2 {{operands must have rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.matmul %x, %y : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_element_types(%x: tensor<2x3xf16>, %y: tensor<3x2xf32>) {
  // expected-error @+2 {{'lhs' and 'rhs' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.matmul %x, %y : (tensor<2x3xf16>, tensor<3x2xf32>) -> tensor<2x2xf16>
  return
}

// -----

func.func @matmul_contraction(%x: tensor<2x3xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+2 {{contraction sizes differ: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.matmul %x, %y : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @matmul_batch(%x: tensor<2x2x3xf32>, %y: tensor<3x3x2xf32>) {
  // expected-error @+2 {{batch dimensions do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.matmul %x, %y
      : (tensor<2x2x3xf32>, tensor<3x3x2xf32>) -> tensor<3x2x2xf32>
  return
}

// -----

func.func @gemm_rank_a(%a: tensor<1x2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'a' must have rank 2, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b : (tensor<1x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_rank_b(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'b' must have rank 2, got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @gemm_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xbf16>) {
  // expected-error @+2 {{'a' and 'b' must have one element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b : (tensor<2x3xf32>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{contraction sizes differ: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b {trans_b = true}
      : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm_c_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>,
                        %c: tensor<3x4xf32>) {
  // expected-error @+2 {{'c' must broadcast to 2x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b, %c
      : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_c_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>,
                               %c: tensor<4xf16>) {
  // expected-error @+2 {{'c' must have the element type of 'a' and 'b'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gemm %a, %b, %c
      : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.reduce_sum %x {axes = array<i64: 2>}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axes_unsorted(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'axes' must be sorted and distinct}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.reduce_mean %x {axes = array<i64: 1, 0>}
      : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @send_to_itself(%x: tensor<2xf32>)
    attributes {memopt.stage = #memopt.stage<index = 1, stages = 2>} {
  // expected-error @+1 {{'tg.send' op peer stage 1 must be another of the 2 stages than this function's 1}}
  tg.send %x to stage 1 tag 0 : tensor<2xf32>
  return
}

// -----

func.func @recv_beyond_the_stages()
    attributes {memopt.stage = #memopt.stage<index = 0, stages = 2>} {
  // expected-error @+1 {{'tg.recv' op peer stage 2 must be another of the 2 stages than this function's 0}}
  %0 = tg.recv from stage 2 tag 0 forward : tensor<2xf32>
  return
}

// -----

// expected-error @+1 {{'memopt.stage' must be a #memopt.stage<index = I, stages = N, ...>, got {stages = 2 : i64}}}
func.func @stage_as_dictionary(%x: tensor<2xf32>)
    attributes {memopt.stage = {stages = 2 : i64}} {
  tg.send %x to stage 1 tag 0 : tensor<2xf32>
  return
}

// -----

func.func @negative_tag(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tg.send' op attribute 'tag' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  tg.send %x to stage 1 tag -1 : tensor<2xf32>
  return
}

// -----

func.func @all_reduce_one_replica(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tg.all_reduce' op attribute 'replicas' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2}}
  %m = tg.all_reduce %x over 1 : tensor<2xf32>
  return %m : tensor<2xf32>
}

// -----

func.func @all_reduce_bf16(%x: tensor<2xbf16>) -> tensor<2xbf16> {
  // expected-error @+1 {{'tg.all_reduce' op reduces float32 tensors only, not 'tensor<2xbf16>'}}
  %m = tg.all_reduce %x over 2 : tensor<2xbf16>
  return %m : tensor<2xbf16>
}

// -----

func.func @shard_wrong_part(%x: tensor<5x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'tg.shard' op a part of 'tensor<5x3xf32>' over 4 replicas is tensor<4xf32>, not 'tensor<5xf32>'}}
  %p = tg.shard %x over 4 : tensor<5x3xf32> -> tensor<5xf32>
  return %p : tensor<5xf32>
}

// -----

func.func @gather_2d_part(%p: tensor<2x2xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'tg.all_gather' op a part of 'tensor<5x3xf32>' over 4 replicas is tensor<4xf32>, not 'tensor<2x2xf32>'}}
  %w = tg.all_gather %p over 4 : tensor<2x2xf32> -> tensor<5x3xf32>
  return %w : tensor<5x3xf32>
}

// -----

func.func @shard_f16(%x: tensor<4xf16>) -> tensor<2xf16> {
  // expected-error @+1 {{'tg.shard' op shards float32 tensors only}}
  %p = tg.shard %x over 2 : tensor<4xf16> -> tensor<2xf16>
  return %p : tensor<2xf16>
}
