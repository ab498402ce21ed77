// RUN: not memopt-opt %s -memopt-set-target=target=cpu -tg-microbatch=microbatches=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not memopt-opt %s -memopt-set-target=target=cpu -tg-microbatch='microbatches=2 schedule=zigzag' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not memopt-opt %s -split-input-file -tg-microbatch=microbatches=2 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cpu -tg-microbatch=microbatches=2

// ZERO: tg-microbatch: microbatches must be in [1, 256], got 0
// SCHEDULE: tg-microbatch: unknown schedule 'zigzag' (expected gpipe or 1f1b)
// TARGET: error: tg-microbatch: the module has no memopt.target; run -memopt-set-target=target=cpu

// A result computed from the batch must be a gradient (read by an
// update), a loss, a batch output or a running statistic: anything else
// has no defined combination of its microbatches.
func.func @state_from_batch(%x: tensor<2x4xf32> {tg.input = "input"})
    -> (tensor<2x4xf32> {tg.state = "s"}) {
  // expected-error @+1 {{tg-microbatch: result #0 of @state_from_batch is neither a gradient, a loss, a batch output nor a running statistic: its microbatches cannot be combined}}
  %r = tg.relu %x : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// What reads an optimizer update runs once, after the microbatches: it
// cannot send to another stage, which receives per microbatch.
func.func @step_stage0(%x: tensor<4xf32> {tg.input = "input"},
                       %w: tensor<4xf32> {tg.param = "w"})
    -> (tensor<4xf32> {tg.param = "w"})
    attributes {memopt.stage = #memopt.stage<index = 0, stages = 2, of = "step">} {
  %g = tg.relu %x : tensor<4xf32>
  %new = tg.sgd_update %w, %g : tensor<4xf32>
  // expected-error @+1 {{'tg.send' op tg-microbatch: a transfer after the optimizer updates cannot run once per step}}
  tg.send %new to stage 1 tag 0 : tensor<4xf32>
  return %new : tensor<4xf32>
}
