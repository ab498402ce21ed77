// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-loss-scale

// An update without a loss seeded with 1.0 (no loss backward): nothing to
// scale.
// expected-error @+1 {{tg-loss-scale: the step's loss has no gradient seed of 1.0 (an mse, l1, bce, ce or dice loss's backward) and no tg.loss_scale argument: build the step with tg-autodiff's scaled-seed, which scales any loss}}
func.func @train_step(%p: tensor<4xf32> {tg.param = "p"}, %g: tensor<4xf32> {tg.input = "g"})
    -> (tensor<4xf32> {tg.param = "p"}) {
  %new = tg.sgd_update %p, %g {lr = 0.1} : tensor<4xf32>
  return %new : tensor<4xf32>
}

// -----

// A step seeded with its loss scale that also seeds a loss with 1.0.
// expected-error @+1 {{tg-loss-scale: the step has a tg.loss_scale argument and also a loss backward seeded with 1.0; seed every loss with the scale (tg-autodiff scaled-seed) or none}}
func.func @train_step(%p: tensor<4xf32> {tg.param = "p"}, %x: tensor<4xf32> {tg.input = "x"},
                      %t: tensor<4xf32> {tg.target = "t"}, %s: tensor<f32> {tg.loss_scale = "loss_scale"})
    -> (tensor<4xf32> {tg.param = "p"}) {
  %one = tg.constant dense<1.0> : tensor<f32>
  %g = tg.mse_loss_backward %one, %x, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %new = tg.sgd_update %p, %g {lr = 0.1} : tensor<4xf32>
  return %new : tensor<4xf32>
}

// -----

// A step scaled already.
// expected-error @+1 {{tg-loss-scale: the step's updates are scaled already (tg.skip_nonfinite)}}
func.func @train_step(%p: tensor<4xf32> {tg.param = "p"}, %x: tensor<4xf32> {tg.input = "x"},
                      %t: tensor<4xf32> {tg.target = "t"}, %s: tensor<f32> {tg.loss_scale = "loss_scale"})
    -> (tensor<4xf32> {tg.param = "p"}) {
  %g = tg.mse_loss_backward %s, %x, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %new = tg.sgd_update %p, %g {lr = 0.1, tg.skip_nonfinite} : tensor<4xf32>
  return %new : tensor<4xf32>
}
