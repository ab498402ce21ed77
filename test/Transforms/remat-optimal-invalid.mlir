// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target='target=cpu budget=4323' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal
// RUN: not memopt-opt %s -split-input-file -memopt-set-target='target=cpu device="cpu,memory=2000"' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=optimal 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not memopt-opt %s -split-input-file -tg-remat='strategy=optimal time-limit=0' 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: not memopt-opt %s -split-input-file -tg-remat='strategy=optimal time-limit=-1' 2>&1 | FileCheck %s --check-prefix=TIME-NEGATIVE

// One byte below the smallest budget optimal reaches (4324 bytes for the
// miniature U-Net: remat-optimal-unet.mlir, 4372 for the chain:
// remat-optimal-chain.mlir) is an error that names it.
// DEVICE: error: tg-remat: the step does not fit the --device memory of 2000 bytes: the smallest peak remat=optimal reaches is 4324 bytes (--budget=4324)
// DEVICE: error: tg-remat: the step does not fit the --device memory of 2000 bytes: the smallest peak remat=optimal reaches is 4372 bytes (--budget=4372)
// TIME: tg-remat: time-limit must be a positive number of seconds, got 0
// TIME-NEGATIVE: tg-remat: time-limit must be a positive number of seconds, got -1

// expected-error @+1 {{tg-remat: the step does not fit --budget=4323 bytes: the smallest peak remat=optimal reaches is 4324 bytes (--budget=4324)}}
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

// -----

// The chain's smallest is above the U-Net's.
// expected-error @+1 {{tg-remat: the step does not fit --budget=4323 bytes: the smallest peak remat=optimal reaches is 4372 bytes (--budget=4372)}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "w3"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r2 = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}
