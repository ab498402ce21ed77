// RUN: memopt-opt %s -tg-autodiff -split-input-file -verify-diagnostics

// Every diagnostic of tg-autodiff. Nothing is differentiated silently
// wrong: a gradient that the rules do not support is an error at its op.

// expected-error @+1 {{tg-autodiff needs the forward function @main (as memopt-translate --import-onnx produces)}}
module {
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{tg-autodiff: the module already has a @train_step}}
module {
  func.func @main(%p: tensor<2xf32> {tg.param = "p"})
      -> (tensor<2xf32> {tg.output = "y"}) {
    return %p : tensor<2xf32>
  }
  func.func @train_step() {
    return
  }
}

// -----

// expected-error @+1 {{'func.func' op must have a single block for autodiff}}
func.func private @main(%p: tensor<2xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"})

// -----

// expected-error @+1 {{'func.func' op result #0 has no tg.output name}}
func.func @main(%p: tensor<2xf32> {tg.param = "p"}) -> tensor<2xf32> {
  return %p : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 must be a statically shaped float tensor, got 'tensor<?xf32>'}}
func.func @main(%p: tensor<?xf32> {tg.param = "p"})
    -> (tensor<?xf32> {tg.output = "y"}) {
  return %p : tensor<?xf32>
}

// -----

// expected-error @+1 {{'func.func' op has no output to take the loss of}}
func.func @main(%p: tensor<2xf32> {tg.param = "p"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has no tg.input, tg.param or tg.state role; autodiff needs the role of every argument of the forward function}}
func.func @main(%p: tensor<2xf32> {tg.param = "p"}, %q: tensor<2xf32>)
    -> (tensor<2xf32> {tg.output = "y"}) {
  return %p : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op loss=mse takes the loss of a single output, but the function has 2 outputs; for outputs at decreasing resolutions pass deep-supervision=nnunet, halving or W0,W1,... (one loss per output against the target downsampled to its shape), otherwise export the model with the one output to train}}
func.func @main(%p: tensor<2xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "a"}, tensor<2xf32> {tg.output = "b"}) {
  return %p, %p : tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op computes a loss that depends on no parameter; there is nothing to train}}
func.func @main(%x: tensor<2xf32> {tg.input = "x"}, %p: tensor<2xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  %0 = tg.relu %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @main(%p: tensor<2x2x1x1xf32> {tg.param = "p"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %m: tensor<2xf32> {tg.state = "bn.running_mean"},
                %v: tensor<2xf32> {tg.state = "bn.running_var"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  // expected-error @+1 {{'tg.batch_norm' op has a gradient through its running or batch statistics, which autodiff does not support}}
  %0:5 = tg.batch_norm %p, %s, %b, %m, %v
      : (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %0#3 : tensor<2xf32>
}

// -----

func.func @main(%x: tensor<1x2x2x2xf32> {tg.input = "x"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %m: tensor<2xf32> {tg.param = "bn.mean"},
                %v: tensor<2xf32> {tg.state = "bn.var"})
    -> (tensor<1x2x2x2xf32> {tg.output = "y"}) {
  // expected-error @+1 {{'tg.batch_norm_inference' op the gradient with respect to given statistics ('mean', 'var') is not supported by autodiff}}
  %0 = tg.batch_norm_inference %x, %s, %b, %m, %v
      : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @main(%x: tensor<1x2x2x2xbf16> {tg.input = "x"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %m: tensor<2xf32> {tg.state = "bn.mean"},
                %v: tensor<2xf32> {tg.state = "bn.var"})
    -> (tensor<1x2x2x2xbf16> {tg.output = "y"}) {
  // expected-error @+1 {{'tg.batch_norm_inference' op autodiff needs per-channel operands of the input's element type}}
  %0 = tg.batch_norm_inference %x, %s, %b, %m, %v
      : (tensor<1x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> tensor<1x2x2x2xbf16>
  return %0 : tensor<1x2x2x2xbf16>
}

// -----

func.func @main(%p: tensor<2x2x1x1xf32> {tg.param = "p"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %m: tensor<2xf32> {tg.state = "bn.running_mean"},
                %v: tensor<2xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x2x1x1xf32> {tg.output = "y"}) {
  %0:5 = tg.batch_norm %p, %s, %b, %m, %v
      : (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  // expected-error @+1 {{'tg.batch_norm' op updates the running statistic 'bn.running_mean' that another batch normalization updates too}}
  %1:5 = tg.batch_norm %0#0, %s, %b, %m, %v
      : (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %1#0 : tensor<2x2x1x1xf32>
}

// -----

func.func @main(%p: tensor<2xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  // expected-error @+1 {{'tg.relu_backward' op has no gradient rule; autodiff cannot differentiate through it}}
  %0 = tg.relu_backward %p, %p : tensor<2xf32>
  return %0 : tensor<2xf32>
}

