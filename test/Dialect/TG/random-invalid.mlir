// RUN: memopt-opt %s -split-input-file -verify-diagnostics

func.func @bounds() {
  // expected-error @+1 {{'tg.random_uniform' op needs finite bounds with low < high, got [1.000000e+00, 1.000000e+00)}}
  %0 = tg.random_uniform {low = 1.0, high = 1.0, stream = 0} : tensor<2xf32>
  return
}

// -----

func.func @stream() {
  // expected-error @+1 {{'tg.random_uniform' op 'stream' must be non-negative, got -1}}
  %0 = tg.random_uniform {stream = -1} : tensor<2xf32>
  return
}

// -----

func.func @missing_stream() {
  // expected-error @+1 {{'tg.random_uniform' op requires attribute 'stream'}}
  %0 = tg.random_uniform : tensor<2xf32>
  return
}

// -----

func.func @dynamic() {
  // expected-error @+1 {{'tg.random_uniform' op result #0 must be statically shaped tensor}}
  %0 = tg.random_uniform {stream = 0} : tensor<?xf32>
  return
}

// -----

func.func @integer() {
  // expected-error @+1 {{'tg.random_uniform' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = tg.random_uniform {stream = 0} : tensor<2xi32>
  return
}

// -----

func.func @compare_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{'tg.compare' op failed to infer returned types}}
  %0 = tg.compare %a, %b {predicate = #tg<comparison lt>} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @compare_predicate(%a: tensor<2xf32>) {
  // expected-error @+2 {{expected ::memopt::tg::ComparisonPredicate to be one of: lt, le, gt, ge, eq}}
  // expected-error @+1 {{failed to parse}}
  %0 = tg.compare %a, %a {predicate = #tg<comparison ne>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @floor_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{'tg.floor' op}}
  %0 = "tg.floor"(%a) : (tensor<2xf32>) -> tensor<2xbf16>
  return
}
