// RUN: not memopt-opt %s -split-input-file -tg-remat='strategy=sqrt lean-workspaces=true' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target='target=cpu budget=1000' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces=lean=true -tg-remat='strategy=auto lean-workspaces=true'

// Lean workspaces are a choice of the auto strategy's greedy.
// STRATEGY: error: tg-remat: lean-workspaces=true needs strategy=auto

// A budget below what lean workspaces and recomputation reach together is
// refused like any other, with the smallest budget they reach.
// expected-error @+1 {{tg-remat: the step does not fit --budget=1000 bytes: the smallest peak remat=auto reaches is}}
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w: tensor<2x2x3x3xf32> {tg.param = "conv.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c : tensor<1x2x8x8xf32>
}
