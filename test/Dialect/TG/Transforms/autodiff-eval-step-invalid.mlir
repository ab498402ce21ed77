// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -split-input-file -verify-diagnostics

// Evaluation mode computes no dropout mask (nor batch statistics) for a
// forward op to read: such a model has no evaluation function.
func.func @main(%x: tensor<2x4xf32> {tg.input = "input"},
                %w: tensor<2x4xf32> {tg.param = "w"})
    -> (tensor<2x4xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1, %mask = tg.dropout %0 {ratio = 0.5 : f64} : tensor<2x4xf32>
  // expected-error @+1 {{'tg.add' op reads the mask of tg.dropout, which evaluation mode does not compute}}
  %2 = tg.add %1, %mask : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{tg-autodiff: the module already has a @eval_step}}
module {
  func.func @main(%p: tensor<2xf32> {tg.param = "p"})
      -> (tensor<2xf32> {tg.output = "y"}) {
    return %p : tensor<2xf32>
  }
  func.func @eval_step() {
    return
  }
}
