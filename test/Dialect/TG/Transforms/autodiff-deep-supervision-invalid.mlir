// RUN: memopt-opt %s -tg-autodiff='loss=ce deep-supervision=halving' -split-input-file -verify-diagnostics
// RUN: not memopt-opt %s -split-input-file -tg-autodiff='loss=mse deep-supervision=1,0.5' 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not memopt-opt %s -split-input-file -tg-autodiff='loss=mse deep-supervision=nnunet' 2>&1 | FileCheck %s --check-prefix=NNUNET-ONE
// RUN: not memopt-opt %s -split-input-file -tg-autodiff='loss=graph deep-supervision=halving' 2>&1 | FileCheck %s --check-prefix=GRAPH
// RUN: not memopt-opt %s -split-input-file -tg-autodiff='loss=mse deep-supervision=0.5,x' 2>&1 | FileCheck %s --check-prefix=SYNTAX

// Deep supervision downsamples the one target (output #0's shape) by an
// integer factor per spatial axis: an output that does not divide it, or
// that differs in rank, batch or channels, is an error at its producer.
// COUNT: deep-supervision gives 2 weights, but the model has 3 outputs: give one per output, full resolution first
// NNUNET-ONE: deep-supervision=nnunet leaves out the lowest-resolution output and needs at least 2 outputs, but the model has 1
// GRAPH: 'func.func' op deep-supervision weighs one loss per output, but loss=graph takes the model's own loss; use a loss of the outputs (mse, l1, bce, ce, dice, ce+dice, ms-ssim, ms-ssim+l1)
// SYNTAX: deep-supervision must be nnunet, halving or the weights W0,W1,... of the outputs (non-negative numbers), got '0.5,x'

func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %p: tensor<1x3x1x1xf32> {tg.param = "p"})
    -> (tensor<2x3x8x8xf32> {tg.output = "out0"},
        tensor<2x3x3x3xf32> {tg.output = "out1"},
        tensor<2x3x4x4xf32> {tg.output = "out2"}) {
  %0 = tg.mul %x, %p : (tensor<2x3x8x8xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  // expected-error @+1 {{output #1 ('tensor<2x3x3x3xf32>') has the spatial shape 3x3, which does not divide output #0's 8x8 (the target's); deep supervision downsamples the target by an integer factor per axis}}
  %1 = tg.avg_pool %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x3xf32>
  %2 = tg.avg_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %0, %1, %2 : tensor<2x3x8x8xf32>, tensor<2x3x3x3xf32>, tensor<2x3x4x4xf32>
}

// -----

func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %p: tensor<1x3x1x1xf32> {tg.param = "p"})
    -> (tensor<2x3x8x8xf32> {tg.output = "out0"},
        tensor<2x2x4x4xf32> {tg.output = "out1"},
        tensor<2x3x4x4xf32> {tg.output = "out2"}) {
  %0 = tg.mul %x, %p : (tensor<2x3x8x8xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  %1 = tg.avg_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-error @+1 {{output #1 ('tensor<2x2x4x4xf32>') has N x C = 2 x 2, but output #0 has 2 x 3; deep supervision needs the same batch and channels at every resolution}}
  %2 = tg.slice %1 {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 2, 2, 4, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<2x3x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %0, %2, %1 : tensor<2x3x8x8xf32>, tensor<2x2x4x4xf32>, tensor<2x3x4x4xf32>
}

// -----

func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %p: tensor<1x3x1x1xf32> {tg.param = "p"})
    -> (tensor<2x3x8x8xf32> {tg.output = "out0"},
        tensor<2x3xf32> {tg.output = "out1"},
        tensor<2x3x4x4xf32> {tg.output = "out2"}) {
  %0 = tg.mul %x, %p : (tensor<2x3x8x8xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  // expected-error @+1 {{output #1 ('tensor<2x3xf32>') has rank 2, but deep supervision needs N x C x spatial outputs of output #0's rank 4}}
  %1 = tg.reduce_mean %0 {axes = array<i64: 2, 3>, keepdims = false} : (tensor<2x3x8x8xf32>) -> tensor<2x3xf32>
  %2 = tg.avg_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %0, %1, %2 : tensor<2x3x8x8xf32>, tensor<2x3xf32>, tensor<2x3x4x4xf32>
}

// -----

// Every output of non-zero weight takes the loss: ce needs 2 classes on each.
// expected-error @+1 {{'func.func' op loss=ce needs at least 2 classes on axis 1 of the output, got 'tensor<2x1x8x8xf32>'; use loss=bce or loss=dice for one channel}}
func.func @main(%x: tensor<2x1x8x8xf32> {tg.input = "input"},
                %p: tensor<1x1x1x1xf32> {tg.param = "p"})
    -> (tensor<2x1x8x8xf32> {tg.output = "out0"}) {
  %0 = tg.mul %x, %p : (tensor<2x1x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<2x1x8x8xf32>
  return %0 : tensor<2x1x8x8xf32>
}
