// RUN: memopt-opt %s -tg-autodiff=loss=graph -split-input-file -verify-diagnostics

// loss=graph needs the model's own loss: a rank-0 first output.

// expected-error @+1 {{'func.func' op loss=graph needs a rank-0 first output (the model's own loss), got 'tensor<2xf32>'}}
func.func @main(%p: tensor<2xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  return %p : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #1 has no tg.output name}}
func.func @main(%p: tensor<f32> {tg.param = "p"}) -> (tensor<f32> {tg.output = "loss"}, tensor<f32>) {
  return %p, %p : tensor<f32>, tensor<f32>
}
