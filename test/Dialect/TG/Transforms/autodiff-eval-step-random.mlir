// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -split-input-file 2>&1 | FileCheck %s

// Random numbers in evaluation mode: a mask that multiplies the
// activations (a compare or floor of tg.random_uniform numbers, then affine
// ops with constants) becomes its expectation, as PyTorch's model.eval()
// skips drop-path and drop-connect; x * 1 and x / keep * keep fold to x.
// The training step keeps its random ops.

// EfficientNet's drop_connect and old timm's drop_path:
// x / keep * floor(keep + rand), floor(0.8 + U[0, 1)) has expectation 0.8.
// CHECK-NOT: warning
// CHECK-LABEL: func.func @train_step(
// CHECK: tg.random_uniform
// CHECK: tg.floor
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x3xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3xf32> {tg.param = "w"},
// CHECK-NEXT: %[[A:.*]] = tg.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[A]], %[[T]]
// CHECK-NEXT: return %[[LOSS]], %[[A]]
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %keep = tg.constant dense<0.8> : tensor<f32>
  %d = tg.div %a, %keep : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32> loc("rands")
  %r = tg.add %keep, %u : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = tg.floor %r : tensor<4x1xf32>
  %y = tg.mul %d, %m : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Bernoulli(keep) as the importer writes it (a uniform number below keep),
// divided by keep (new timm, MONAI, torchvision's StochasticDepth:
// x * (mask / keep)): the expectation 0.75 / 0.75 is exactly 1.
// CHECK-NOT: warning
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x3xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3xf32> {tg.param = "w"},
// CHECK-NEXT: %[[A:.*]] = tg.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[A]], %[[T]]
// CHECK-NEXT: return %[[LOSS]], %[[A]]
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32> loc("coins")
  %p = tg.constant dense<0.75> : tensor<4x1xf32>
  %m = tg.compare %u, %p {predicate = #tg<comparison lt>} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %keep = tg.constant dense<0.75> : tensor<f32>
  %s = tg.div %m, %keep : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %y = tg.mul %s, %a : (tensor<4x1xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A mask that no division scales (the classic dropout of the 2014 paper,
// or a mask with a comparison the other way: rand > 0.25 keeps 0.75), and
// a mask that broadcasts the activations to a larger shape: the
// expectation stays as a constant factor. Next to a tg.dropout, which
// evaluation mode passes through.
// CHECK-NOT: warning
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<2x4x3xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3xf32> {tg.param = "w"},
// CHECK-NEXT: %[[A:.*]] = tg.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[E:.*]] = tg.constant dense<7.500000e-01> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[Y:.*]] = tg.mul %[[A]], %[[E]] : (tensor<4x3xf32>, tensor<2x1x1xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[Y]], %[[T]]
// CHECK-NEXT: return %[[LOSS]], %[[Y]]
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<2x4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %b, %mask = tg.dropout %a {ratio = 0.5 : f64} : tensor<4x3xf32>
  %u = tg.random_uniform {stream = 0} : tensor<2x1x1xf32> loc("rands")
  %drop = tg.constant dense<0.25> : tensor<f32>
  %m = tg.compare %u, %drop {predicate = #tg<comparison gt>} : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %y = tg.mul %b, %m : (tensor<4x3xf32>, tensor<2x1x1xf32>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// Affine ops on the mask and on the uniform numbers before it: 1 - mask,
// scaled (a mask of U[-1, 1) * 0.5 + 0.5 >= 0.25, keep 0.75), reshaped.
// E = (1 - 0.75) * 4 = 1: x.
// CHECK-NOT: warning
// CHECK-LABEL: func.func @eval_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x3xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3xf32> {tg.param = "w"},
// CHECK-NEXT: %[[A:.*]] = tg.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[A]], %[[T]]
// CHECK-NEXT: return %[[LOSS]], %[[A]]
func.func @main(%x: tensor<4x3xf32> {tg.input = "input"},
                %w: tensor<4x3xf32> {tg.param = "w"})
    -> (tensor<4x3xf32> {tg.output = "output"}) {
  %a = tg.mul %x, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %u = tg.random_uniform {low = -1.0 : f64, stream = 0} : tensor<4xf32> loc("rands")
  %half = tg.constant dense<0.5> : tensor<f32>
  %s = tg.mul %u, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %v = tg.add %s, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %q = tg.constant dense<0.25> : tensor<f32>
  %m = tg.compare %v, %q {predicate = #tg<comparison ge>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %n = tg.sub %one, %m : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %four = tg.constant dense<4.0> : tensor<f32>
  %k = tg.mul %n, %four : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = tg.reshape %k {shape = array<i64: 4, 1>} : (tensor<4xf32>) -> tensor<4x1xf32>
  %y = tg.mul %a, %r : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
