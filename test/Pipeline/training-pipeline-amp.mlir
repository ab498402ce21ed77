// RUN: memopt-opt %s -tg-amp -tg-autodiff='optimizer=sgd' | FileCheck %s --check-prefix=STEP
// RUN: memopt-opt %s --memopt-training-pipeline='amp=bf16 optimizer=sgd plan-only=true' | FileCheck %s --check-prefix=PLAN
// RUN: memopt-opt %s --memopt-training-pipeline='amp=bf16 amp-fp32-ops=conv optimizer=sgd plan-only=true' | FileCheck %s --check-prefix=FP32
// RUN: memopt-opt %s --memopt-training-pipeline='amp=none optimizer=sgd plan-only=true' | FileCheck %s --check-prefix=FP32
// RUN: not memopt-opt %s --memopt-training-pipeline='amp=fp8' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not memopt-opt %s --memopt-training-pipeline='amp=bf16 amp-low-ops=tg.conv4d' 2>&1 | FileCheck %s --check-prefix=TABLE

// tg-amp before tg-autodiff: the backward ops run in their forward op's
// type, the weight gradient returns to f32 through the cast's gradient
// before the (f32) update, and BatchNorm's parameter gradients are f32.
// STEP-LABEL: func.func @train_step(
// STEP: %[[XL:.*]] = tg.cast %{{.*}} : tensor<2x3x8x8xf32> to tensor<2x3x8x8xbf16>
// STEP-NEXT: %[[WL:.*]] = tg.cast %[[W:[^ ]*]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3xbf16>
// STEP: %[[OUT:.*]] = tg.cast %{{.*}} : tensor<2x4x8x8xbf16> to tensor<2x4x8x8xf32>
// STEP-NEXT: tg.mse_loss %[[OUT]], %{{.*}} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<f32>
// STEP: %[[DY:.*]] = tg.mse_loss_backward {{.*}} -> tensor<2x4x8x8xf32>
// STEP-NEXT: %[[DYL:.*]] = tg.cast %[[DY]] : tensor<2x4x8x8xf32> to tensor<2x4x8x8xbf16>
// STEP-NEXT: tg.relu_backward %[[DYL]], %{{.*}} : tensor<2x4x8x8xbf16>
// STEP-NEXT: %{{.*}}, %[[DS:.*]], %[[DB:.*]] = tg.batch_norm_backward {{.*}} -> (tensor<2x4x8x8xbf16>, tensor<4xf32>, tensor<4xf32>)
// STEP-NEXT: %[[DC:.*]] = tg.add
// STEP-NEXT: %[[DWL:.*]] = tg.conv_backward_filter %[[DC]], %[[XL]] {{.*}} -> tensor<4x3x3x3xbf16>
// STEP-NEXT: %[[DW:.*]] = tg.cast %[[DWL]] : tensor<4x3x3x3xbf16> to tensor<4x3x3x3xf32>
// STEP-NEXT: tg.sgd_update %[[W]], %[[DW]] : tensor<4x3x3x3xf32>
// STEP-NEXT: tg.sgd_update %{{.*}}, %[[DS]] : tensor<4xf32>
// STEP-NEXT: tg.sgd_update %{{.*}}, %[[DB]] : tensor<4xf32>

// The plan holds the bf16 activations at 2 bytes an element and sizes the
// convolutions' workspaces for bf16 as oneDNN asks for them on the CPU the
// tests pin (lit.cfg.py caps oneDNN at AVX2, where the bf16 convolution
// converts through f32 and wants 9024 bytes for the forward against f32's
// 4992; on AVX-512 CPUs with bf16 it wants less): 24256 bytes of arena
// against the f32 step's 20800 in this tiny step, whose workspace outweighs
// its activations. The filter gradient reads its own recast of the input
// (tg-recompute-casts), not the forward's copy. The evaluation step runs
// the same precision.
// PLAN: module attributes {memopt.amp = "bf16", memopt.target = #memopt.target<cpu>}
// PLAN-LABEL: func.func @train_step(
// PLAN: mbuf.arena 0 size 24256 on device 0
// PLAN: tg.conv %{{.*}} {memopt.workspace_bytes = 9024 : i64, {{.*}} -> tensor<2x4x8x8xbf16>
// PLAN: tg.cast %{{.*}} {memopt.recompute} : tensor<2x3x8x8xf32> to tensor<2x3x8x8xbf16>
// PLAN: tg.conv_backward_filter
// PLAN-LABEL: func.func @eval_step(
// PLAN: tg.batch_norm_inference {{.*}} : (tensor<2x4x8x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xbf16>

// With the convolution in fp32 nothing runs low; amp=none does not run
// tg-amp.
// FP32-LABEL: func.func @train_step(
// FP32: mbuf.arena 0 size 20800 on device 0
// FP32-NOT: bf16

// MODE: for the --amp option: Cannot find option named 'fp8'!
// The table is checked with the options, before any pass runs.
// TABLE: error: memopt-training-pipeline: amp: 'tg.conv4d' in low-ops is not a forward tg op of the mixed-precision table
func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %w: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %rm: tensor<4xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x8x8xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1:5 = tg.batch_norm %0, %s, %b, %rm, %rv
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %2 = tg.relu %1#0 : tensor<2x4x8x8xf32>
  %3 = tg.add %2, %0 : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %3 : tensor<2x4x8x8xf32>
}
