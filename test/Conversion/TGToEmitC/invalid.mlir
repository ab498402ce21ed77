// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-plan-memory='query-workspaces=false' -convert-tg-to-emitc

func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  // expected-error @+1 {{tg.dropout is not supported by the CPU backend yet (the step has no random seed)}}
  %y, %mask = tg.dropout %x {ratio = 0.5} : tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{the CPU backend supports static float32 tensors of rank <= 6 only, not 'tensor<4xf16>'}}
func.func @train_step(%x: tensor<4xf16> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf16> {tg.output = "out"}) {
  %y = tg.relu %x : tensor<4xf16>
  return %loss, %y : tensor<f32>, tensor<4xf16>
}

// -----

// expected-error @+1 {{the step has no rank-0 output (the loss)}}
func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}) -> (tensor<4xf32> {tg.output = "out"}) {
  %y = tg.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected one func.func (the training step), found 0}}
module {
}
