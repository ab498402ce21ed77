// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of the ops of segmentation networks. When
// result type inference fails, the InferTypeOpInterface verifier adds
// "failed to infer returned types" after the message of the inference itself.

func.func @instance_norm_scale_length(%x: tensor<2x4x3x3xf32>,
                                      %s: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'scale' must have 4 elements (the channels of 'input'), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %m, %i = tg.instance_norm %x, %s, %b
      : (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<4xf32>)
      -> (tensor<2x4x3x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+2 {{'input' must have rank >= 3 (N x C x D1 x ...), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %m, %i = tg.instance_norm %x, %s, %s
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @instance_norm_epsilon(%x: tensor<2x4x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'epsilon' must be positive, got 0}}
  %y, %m, %i = tg.instance_norm %x, %s, %s {epsilon = 0.0}
      : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @instance_norm_backward_stats(%x: tensor<2x4x3xf32>,
                                        %s: tensor<4xf32>,
                                        %m: tensor<4xf32>) {
  // expected-error @+2 {{'saved_mean' and 'saved_inv_std' must have type 2x4 (N x C of 'input', the element type of 'scale')}}
  // expected-error @+1 {{failed to infer returned types}}
  %dx, %ds, %db = tg.instance_norm_backward %x, %x, %s, %m, %m
      : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' must be in [0, 2) for a tensor of rank 2, got 2}}
  %0 = tg.softmax %x {axis = 2} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_backward_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'axis' must be in [0, 2) for a tensor of rank 2, got -1}}
  %0 = tg.log_softmax_backward %x, %x {axis = -1} : tensor<2x3xf32>
  return
}

// -----

func.func @prelu_slope(%x: tensor<2x4x3x3xf32>, %a: tensor<5x1x1xf32>) {
  // expected-error @+2 {{'slope' of shape 5x1x1 does not broadcast to 'input' of shape 2x4x3x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.prelu %x, %a : (tensor<2x4x3x3xf32>, tensor<5x1x1xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

// The slope broadcasts one way: it may not grow the input.
func.func @prelu_slope_grows_input(%x: tensor<4x1x1xf32>, %a: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'slope' of shape 2x4x3x3 does not broadcast to 'input' of shape 4x1x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.prelu %x, %a : (tensor<4x1x1xf32>, tensor<2x4x3x3xf32>) -> tensor<4x1x1xf32>
  return
}

// -----

func.func @cross_entropy_target(%z: tensor<2x3x4x4xf32>, %t: tensor<2x3x4x4xf32>) {
  // expected-error @+2 {{'target' must be a class map of shape 2x4x4 (the logits' shape without axis 1), got 2x3x4x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.cross_entropy_loss %z, %t : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_rank(%z: tensor<3xf32>, %t: tensor<3xf32>) {
  // expected-error @+2 {{'logits' must have rank >= 2 (N x C x ...)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.cross_entropy_loss %z, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @dice_one_channel_class_map(%z: tensor<2x1x4x4xf32>, %t: tensor<2x4x4xf32>) {
  // expected-error @+2 {{with one channel 'target' must be a mask of the logits' type 2x1x4x4, got 2x4x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.dice_loss %z, %t : (tensor<2x1x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @dice_epsilon(%z: tensor<2x3x4x4xf32>, %t: tensor<2x4x4xf32>) {
  // expected-error @+1 {{'epsilon' must be non-negative, got -1}}
  %0 = tg.dice_loss %z, %t {epsilon = -1.0} : (tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @dice_backward_grad_loss(%g: tensor<f16>, %z: tensor<2x3x4x4xf32>, %t: tensor<2x4x4xf32>) {
  // expected-error @+2 {{'grad_loss' must have the element type of 'logits'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.dice_loss_backward %g, %z, %t : (tensor<f16>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x3x4x4xf32>
  return
}
