// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of tg.gather and tg.gather_backward.

func.func @gather_index_above(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{index 4 at position 1 of 'indices' is outside [0, 4) (axis 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 0 : i64, indices = dense<[0, 4]> : tensor<2xi64>}
      : (tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_negative_index(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{index -1 at position 0 of 'indices' is outside [0, 3) (axis 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 1 : i64, indices = dense<[-1]> : tensor<1xi64>}
      : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'axis' 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 2 : i64, indices = dense<[0]> : tensor<1xi64>}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_rank0(%x: tensor<f32>) {
  // expected-error @+2 {{'input' must have rank >= 1 to gather along an axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 0 : i64, indices = dense<[0]> : tensor<1xi64>}
      : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

func.func @gather_empty(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'indices' must hold at least one index}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 0 : i64, indices = dense<> : tensor<0xi64>}
      : (tensor<4x3xf32>) -> tensor<0x3xf32>
  return
}

// -----

func.func @gather_i32_indices(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{attribute 'indices' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = tg.gather %x {axis = 0 : i64, indices = dense<[0]> : tensor<1xi32>}
      : (tensor<4x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @gather_result_type(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'tg.gather' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather %x {axis = 0 : i64, indices = dense<[0, 1]> : tensor<2xi64>}
      : (tensor<4x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_backward_grad_shape(%dy: tensor<3x3xf32>) {
  // expected-error @+2 {{'grad_output' has shape 3x3, but tg.gather yields 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather_backward %dy {axis = 0 : i64,
                               indices = dense<[1, 1]> : tensor<2xi64>,
                               input_shape = array<i64: 4, 3>}
      : (tensor<3x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_backward_index(%dy: tensor<2x3xf32>) {
  // expected-error @+2 {{index 9 at position 0 of 'indices' is outside [0, 4) (axis 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather_backward %dy {axis = 0 : i64,
                               indices = dense<[9, 1]> : tensor<2xi64>,
                               input_shape = array<i64: 4, 3>}
      : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_backward_input_shape(%dy: tensor<2x3xf32>) {
  // expected-error @+2 {{'input_shape' must be >= 1 in every element}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.gather_backward %dy {axis = 0 : i64,
                               indices = dense<[0, 1]> : tensor<2xi64>,
                               input_shape = array<i64: 4, 0>}
      : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}
