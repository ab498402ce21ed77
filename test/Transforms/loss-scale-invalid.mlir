// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-loss-scale

// An update without a loss seeded with 1.0 (no loss backward): nothing to
// scale.
// expected-error @+1 {{tg-loss-scale: the step's loss has no gradient seed of 1.0 (an mse, l1, bce, ce or dice loss's backward); loss scaling supports those losses}}
func.func @train_step(%p: tensor<4xf32> {tg.param = "p"}, %g: tensor<4xf32> {tg.input = "g"})
    -> (tensor<4xf32> {tg.param = "p"}) {
  %new = tg.sgd_update %p, %g {lr = 0.1} : tensor<4xf32>
  return %new : tensor<4xf32>
}

// -----

// A step that already has a loss scale.
// expected-error @+1 {{tg-loss-scale: the step already has a loss scale argument}}
func.func @train_step(%p: tensor<4xf32> {tg.param = "p"}, %x: tensor<4xf32> {tg.input = "x"},
                      %t: tensor<4xf32> {tg.target = "t"}, %s: tensor<f32> {tg.loss_scale = "loss_scale"})
    -> (tensor<4xf32> {tg.param = "p"}) {
  %one = tg.constant dense<1.0> : tensor<f32>
  %g = tg.mse_loss_backward %one, %x, %t : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %new = tg.sgd_update %p, %g {lr = 0.1} : tensor<4xf32>
  return %new : tensor<4xf32>
}
