// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc

func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  // expected-error @+1 {{tg.dropout needs the step's random seed: an argument {tg.seed = "seed"} of type tensor<i64>, as tg-autodiff adds it}}
  %y, %mask = tg.dropout %x {ratio = 0.5} : tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}

// -----

func.func @train_step(%loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  // expected-error @+1 {{tg.random_uniform needs the step's random seed: an argument {tg.seed = "seed"} of type tensor<i64>, as tg-autodiff adds it}}
  %u = tg.random_uniform {stream = 0} : tensor<4xf32>
  return %loss, %u : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{the backend supports float32 views of rank <= 8 only (other element types are not supported by this backend yet), not '!mbuf.view<4xf16>'}}
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

// expected-error @+1 {{expected one func.func (the training step) besides an optional @eval_step, found 0}}
module {
}

// -----

func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %seed: tensor<2xi64> {tg.seed = "seed"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}) {
  // expected-error @-3 {{the step's seed must be a view<i64>, not '!mbuf.view<2xi64>'}}
  return %loss : tensor<f32>
}

// -----

func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  %y = tg.relu %x : tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}
// The evaluation function must return a prefix of the step's results.
// expected-error @+1 {{'func.func' op must take the arguments of @train_step and return its first results, forward outputs only (as tg-autodiff{eval-step=true} emits it)}}
func.func @eval_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<4xf32> {tg.output = "out"}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected one func.func (the training step) besides an optional @eval_step, found 2}}
module {
  func.func @train_step(%loss: tensor<f32> {tg.input = "loss"}) -> (tensor<f32> {tg.output = "loss"}) {
    return %loss : tensor<f32>
  }
  func.func @other_step(%loss: tensor<f32> {tg.input = "loss"}) -> (tensor<f32> {tg.output = "loss"}) {
    return %loss : tensor<f32>
  }
}

// -----

// An op whose CPU kernel is f32-only, on bf16 tensors: the error names the
// op and the flag that keeps it in f32.
func.func @train_step(%x: tensor<2x4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "out"}) {
  %h = tg.cast %x : tensor<2x4xf32> to tensor<2x4xbf16>
  // expected-error @+1 {{'tg.softmax' has no bf16/f16 kernel; keep it in f32 with --amp-fp32-ops=softmax}}
  %s = tg.softmax %h {axis = 1} : tensor<2x4xbf16>
  %y = tg.cast %s : tensor<2x4xbf16> to tensor<2x4xf32>
  return %loss, %y : tensor<f32>, tensor<2x4xf32>
}
