// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -split-input-file 2>/dev/null | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// Random numbers used otherwise than as a mask that multiplies the
// activations have no evaluation mode memopt could stand by (PyTorch's
// model.eval() may skip them, keep them or do something else): the
// training step is built, @eval_step is not, the module says why
// (tg.eval_refusal, which the trainer prints when asked for --val-data),
// and a warning names the random op's ONNX node.

// Additive noise.
// WARN: warning: loc("noise"): no evaluation step, the training binary will refuse --val-data: node 'noise' draws random numbers that the model uses other than as a dropout or drop-path mask multiplying the activations (read by tg.add together with the activations), so memopt cannot evaluate it as PyTorch's model.eval() does: export the evaluation model without the random module, or train without --val-data
// CHECK: module attributes {tg.eval_refusal = "node 'noise' draws random numbers that the model uses other than as a dropout or drop-path mask multiplying the activations (read by tg.add together with the activations), so memopt cannot evaluate it as PyTorch's model.eval() does: export the evaluation model without the random module, or train without --val-data"}
// CHECK: func.func @train_step
// CHECK: tg.random_uniform
// CHECK: tg.sgd_update
// CHECK-NOT: @eval_step
// CHECK: {{^}}// {{-----}}
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {low = -0.1 : f64, high = 0.1 : f64, stream = 0} : tensor<4x3xf32> loc("noise")
  %y = tg.add %a, %u : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Uniform numbers themselves as a factor: their mean, 0.5, is no
// evaluation mode.
// WARN: warning: loc("scale"): no evaluation step, the training binary will refuse --val-data: node 'scale' draws random numbers that the model uses other than as a dropout or drop-path mask multiplying the activations (multiplying by the uniform numbers themselves)
// CHECK: module attributes {tg.eval_refusal = "node 'scale'
// CHECK-NOT: @eval_step
// CHECK: {{^}}// {{-----}}
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32> loc("scale")
  %y = tg.mul %a, %u : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A mask through an op that is not affine in it (its square here): no
// exact expectation to stand by.
// WARN: warning: loc("rands"): {{.*}} (multiplying by a function of them that is not affine in one 0/1 mask)
// CHECK: module attributes {tg.eval_refusal = "node 'rands'
// CHECK-NOT: @eval_step
// CHECK: {{^}}// {{-----}}
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32> loc("rands")
  %keep = tg.constant dense<0.8> : tensor<f32>
  %m = tg.compare %u, %keep {predicate = #tg<comparison lt>} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = tg.mul %m, %m : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = tg.mul %a, %s : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Bernoulli of a run-time probability (a uniform number below an
// activation): the comparison reads data.
// WARN: warning: loc("coins"): {{.*}} (read by tg.compare together with the activations)
// CHECK: module attributes {tg.eval_refusal = "node 'coins'
// CHECK-NOT: @eval_step
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x3xf32> loc("coins")
  %m = tg.compare %u, %a {predicate = #tg<comparison lt>} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = tg.mul %a, %m : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
