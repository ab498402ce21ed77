// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target='target=cpu budget=4195' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto
// RUN: not memopt-opt %s -split-input-file -memopt-set-target='target=cpu budget=4195' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto offload=true' 2>&1 | FileCheck %s --check-prefix=JOINT
// RUN: not memopt-opt %s -split-input-file -memopt-set-target='target=cpu device="custom,memory=8GiB,fp32=6.5T,bandwidth=336GB/s"' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: not memopt-opt %s -split-input-file -tg-offload=strategy=sometimes 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not memopt-opt %s -split-input-file -tg-remat='strategy=sqrt offload=true' 2>&1 | FileCheck %s --check-prefix=REMAT

// One byte below the smallest budget offloading reaches on the U-Net in
// miniature of offload.mlir (4196; recomputing alone reaches 4324): an
// error that names that budget, from either planner.
// JOINT: error: tg-remat: the step does not fit --budget=4195 bytes: the smallest peak remat=auto with offload reaches is 4196 bytes (--budget=4196)
// LINK: error: tg-offload: device 'custom' has no host link bandwidth; give one (link=12GB/s)
// STRATEGY: tg-offload: unknown strategy 'sometimes'; expected none or auto
// REMAT: tg-remat: offload=true needs strategy=auto (the joint planner); tg-offload offloads on top of the other strategies

// expected-error @+1 {{tg-offload: the step does not fit --budget=4195 bytes: the smallest peak offload=auto reaches is 4196 bytes (--budget=4196; --remat=auto recomputes too)}}
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

// A mark on a value the backward does not read (here: returned).
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w: tensor<2x2x3x3xf32> {tg.param = "w"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  // expected-error @+1 {{tg-offload: result #0 marked by #memopt.offload_results is not a forward tensor in the arena that the backward reads}}
  %c = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>, memopt.offload_results = #memopt.offload_results<results = [0]>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c : tensor<1x2x8x8xf32>
}
