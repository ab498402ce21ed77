// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-schedule
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-plan-memory
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -convert-tg-to-mbuf
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-annotate-workspaces
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-estimate-cost
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-remat=strategy=sqrt

// The memory passes plan for the module's #memopt.target and price on its
// device; without one they name the fix rather than guess a backend.
// expected-error-re @+1 {{{{tg-schedule|tg-plan-memory|tg-annotate-workspaces|tg-estimate-cost|tg-remat|convert-tg-to-mbuf}}: the module has no memopt.target; run -memopt-set-target=target=cpu (or target=cuda) first, or the memopt-training-pipeline, which sets it}}
func.func @no_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
