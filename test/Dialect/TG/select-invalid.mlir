// RUN: memopt-opt %s -split-input-file -verify-diagnostics

func.func @shapes(%c: tensor<2x3xf32>, %a: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{'tg.select' op failed to infer returned types}}
  %0 = tg.select %c, %a, %a : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @branch_shapes(%c: tensor<f32>, %a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand shapes 2 and 3 do not broadcast}}
  // expected-error @+1 {{'tg.select' op failed to infer returned types}}
  %0 = tg.select %c, %a, %b : (tensor<f32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @element_types(%c: tensor<2xf32>, %a: tensor<2xbf16>) {
  // expected-error @+2 {{'condition', 'on_true' and 'on_false' must have one element type}}
  // expected-error @+1 {{'tg.select' op failed to infer returned types}}
  %0 = tg.select %c, %a, %a : (tensor<2xf32>, tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return
}

// -----

func.func @result_type(%c: tensor<2xf32>, %a: tensor<2xf32>) {
  // expected-error @+2 {{'tg.select' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<1x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tg.select %c, %a, %a : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @integer(%c: tensor<2xi32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'tg.select' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = tg.select %c, %a, %a : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}
