// RUN: memopt-opt %s -verify-diagnostics -tg-autodiff='loss=graph optimizer=sgd scaled-seed=true'

// A scale of 2^16 and more does not fit f16: the loss must be f32.
// expected-error @+1 {{scaled-seed: the loss is not f32 but 'tensor<f16>'; loss scaling seeds the backward with a scale up to 2^24 (compute the loss in f32)}}
func.func @main(%x: tensor<4xf16> {tg.input = "input"},
                %w: tensor<4xf16> {tg.param = "w"})
    -> (tensor<f16> {tg.output = "loss"}) {
  %y = tg.mul %x, %w : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %l = tg.reduce_sum %y {keepdims = false} : (tensor<4xf16>) -> tensor<f16>
  return %l : tensor<f16>
}
