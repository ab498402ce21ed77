// RUN: memopt-opt %s -verify-diagnostics -memopt-set-target='target=cpu budget=4323' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto
// RUN: not memopt-opt %s -memopt-set-target='target=cpu device="cpu,memory=2000"' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=DEVICE

// One byte below the smallest budget auto reaches on the U-Net in
// miniature of remat-auto.mlir: an error that names that budget.
// DEVICE: error: tg-remat: the step does not fit the --device memory of 2000 bytes: the smallest peak remat=auto reaches is 4324 bytes (--budget=4324)

// expected-error @+1 {{tg-remat: the step does not fit --budget=4323 bytes: the smallest peak remat=auto reaches is 4324 bytes (--budget=4324)}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %skip = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
