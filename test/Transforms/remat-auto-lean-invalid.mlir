// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target='target=cpu budget=100000000' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces -tg-remat='strategy=auto lean-workspaces=true'
// RUN: not memopt-opt %s -split-input-file -tg-remat='strategy=sqrt lean-workspaces=true' 2>&1 | FileCheck %s --check-prefix=STRATEGY

// Lean workspaces are cuDNN's: the cpu backend's oneDNN scratchpads are
// sized exactly for the kernel oneDNN picked and cannot shrink.
// STRATEGY: error: tg-remat: lean-workspaces=true needs strategy=auto

// expected-error @+1 {{tg-remat: lean-workspaces=true needs a cuda target: the cpu backend's oneDNN scratchpads are sized exactly and cannot shrink}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w: tensor<2x2x3x3xf32> {tg.param = "conv.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c : tensor<1x2x8x8xf32>
}

// -----

// A step without convolutions on cpu is refused all the same: the flag
// would do nothing there.
// expected-error @+1 {{tg-remat: lean-workspaces=true needs a cuda target}}
func.func @main(%x: tensor<1x2xf32> {tg.input = "input"},
                %w: tensor<2x2xf32> {tg.param = "fc.weight"})
    -> (tensor<1x2xf32> {tg.output = "output"}) {
  %y = tg.matmul %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
