// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-schedule
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-plan-memory
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -convert-tg-to-mbuf
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -tg-annotate-workspaces

// The memory passes plan for the module's #memopt.target; without one they
// name the fix rather than guess a backend.
// expected-error-re @+1 {{{{tg-schedule|tg-plan-memory|tg-annotate-workspaces|convert-tg-to-mbuf}}: the module has no memopt.target; run -memopt-set-target=target=cpu (or target=cuda) first, or the memopt-training-pipeline, which sets it}}
func.func @no_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
