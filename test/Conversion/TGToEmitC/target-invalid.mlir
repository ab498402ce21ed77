// RUN: memopt-opt %s -verify-diagnostics -convert-tg-to-emitc

// The runtime the step calls is the module's #memopt.target.
// expected-error @+1 {{convert-tg-to-emitc: the module has no memopt.target; run -memopt-set-target=target=cpu (or target=cuda) first, or the memopt-training-pipeline, which sets it}}
module {
  func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
      -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
    %y = tg.relu %x : tensor<4xf32>
    return %loss, %y : tensor<f32>, tensor<4xf32>
  }
}
