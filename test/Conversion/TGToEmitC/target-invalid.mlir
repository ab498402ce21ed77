// RUN: memopt-opt %s -verify-diagnostics -convert-tg-to-emitc='target=tpu'

// expected-error @+1 {{unknown target 'tpu': expected cpu or cuda}}
module {
  func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
      -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
    %y = tg.relu %x : tensor<4xf32>
    return %loss, %y : tensor<f32>, tensor<4xf32>
  }
}
