// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true' | FileCheck %s --check-prefix=PLAN
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1' | FileCheck %s --check-prefix=LOWERED
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true' | FileCheck %s --check-prefix=NO-RECORD
// RUN: memopt-opt %s --memopt-training-pipeline='target=cuda optimizer=sgd lr=0.1 plan-only=true' | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true remat=sqrt' | FileCheck %s --check-prefix=REMAT
// RUN: not memopt-opt %s --memopt-training-pipeline='remat=everything' 2>&1 | FileCheck %s --check-prefix=REMAT-UNKNOWN
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true remat=optimal budget=1000000 remat-time-limit=2' | FileCheck %s --check-prefix=OPTIMAL
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true remat=auto budget=1000000 device=cpu' | FileCheck %s --check-prefix=AUTO
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 plan-only=true stages=2' | FileCheck %s --check-prefix=STAGES
// RUN: memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 stages=2 eval-step=false' | FileCheck %s --check-prefix=STAGES-LOWERED
// RUN: not memopt-opt %s --memopt-training-pipeline='target=cpu optimizer=sgd lr=0.1 stages=2' 2>&1 | FileCheck %s --check-prefix=STAGES-EVAL
// RUN: memopt-opt %s --memopt-training-pipeline='target=cuda optimizer=sgd lr=0.1 stages=2 eval-step=false' | FileCheck %s --check-prefix=STAGES-CUDA
// RUN: not memopt-opt %s --memopt-training-pipeline='target=tpu' 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not memopt-opt %s --memopt-training-pipeline='optimizer=rmsprop' 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not memopt-opt %s -memopt-set-target=target=cuda --memopt-training-pipeline='target=cpu' 2>&1 | FileCheck %s --check-prefix=CHANGED

// The pipeline sets the target first, then builds, schedules and plans the
// training step (and the evaluation step), converting it into mbuf buffers
// at the plan's places, then lowers it.
// PLAN: module attributes {memopt.target = #memopt.target<cpu>
// PLAN-LABEL: func.func @train_step(
// PLAN-SAME: !mbuf.view
// PLAN-SAME: memopt.schedule
// PLAN: mbuf.arena 0 size
// PLAN: mbuf.kernel
// PLAN: tg.relu
// PLAN: tg.sgd_update
// PLAN-LABEL: func.func @eval_step(
// convert-tg-to-mbuf consumed tg-plan-memory's record.
// NO-RECORD-NOT: memopt.arena_size
// NO-RECORD-NOT: memopt.place
// LOWERED: emitc.func @train_step(
// LOWERED: emitc.func @main(
// CUDA: module attributes {memopt.target = #memopt.target<cuda>
// CUDA: tg.fused_elementwise
// With remat=sqrt, tg-remat runs before the schedule: the decision is on
// the training step, the recomputed ops are kernels of the plan (the
// evaluation step has no backward, so none).
// REMAT-LABEL: func.func @train_step(
// REMAT-SAME: memopt.remat = #memopt.remat<strategy = "sqrt", {{.*}}>
// REMAT: mbuf.kernel
// REMAT: tg.relu {{.*}}memopt.recompute
// REMAT-LABEL: func.func @eval_step(
// REMAT-NOT: memopt.remat
// The pipeline passes its budget and device to tg-remat (after the
// workspaces are annotated).
// AUTO-LABEL: func.func @train_step(
// AUTO-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 1000000,
// OPTIMAL-LABEL: func.func @train_step(
// OPTIMAL-SAME: memopt.remat = #memopt.remat<strategy = "optimal", budget_bytes = 1000000,
// OPTIMAL-SAME: solver = "none"
// OPTIMAL-SAME: status = "optimal"
// OPTIMAL-SAME: recomputed_values = 0,
// With stages, tg-partition runs after the workspaces are annotated: each
// step becomes one function per stage, planned on its own device.
// STAGES-LABEL: func.func @train_step_stage0(
// STAGES: mbuf.arena 0 size {{[0-9]+}} on device 0
// STAGES: mbuf.send
// STAGES-LABEL: func.func @train_step_stage1(
// STAGES: mbuf.arena 0 size {{[0-9]+}} on device 1
// STAGES: mbuf.recv
// STAGES-LABEL: func.func @eval_step_stage0(
// STAGES-LABEL: func.func @eval_step_stage1(
// STAGES-LOWERED-LABEL: emitc.func @train_step0(
// STAGES-LOWERED: call_opaque "memopt::rt::sendTensor"
// STAGES-LOWERED-LABEL: emitc.func @train_step1(
// STAGES-LOWERED: call_opaque "memopt::rt::receiveTensor"
// STAGES-LOWERED: emitc.global static const @kProgram : !emitc.array<2x!emitc.opaque<"memopt::rt::Program">>
// STAGES-LOWERED: call_opaque "memopt::rt::stageMain"
// The CUDA stages call the same transfers: the CUDA exchange linked in
// implements them on device memory (NCCL, or MPI through the staging buffer
// that exchangeBytes sizes).
// STAGES-CUDA: emitc.include "memopt/Runtime/Transfer.h"
// STAGES-CUDA: emitc.include "memopt/Runtime/CUDA/Launch.h"
// STAGES-CUDA-LABEL: emitc.func @train_step0(
// STAGES-CUDA: call_opaque "memopt::rt::sendTensor"
// STAGES-CUDA-LABEL: emitc.func @train_step1(
// STAGES-CUDA: call_opaque "memopt::rt::receiveTensor"
// STAGES-CUDA: emitc.global static const @kProgram : !emitc.array<2x!emitc.opaque<"memopt::rt::Program">> = #emitc.opaque<"{{.*}}/*exchangeBytes=*/{{[1-9][0-9]*}}
// STAGES-CUDA: call_opaque "memopt::rt::stageMain"
// STAGES-EVAL: error: convert-tg-to-emitc: @eval_step_stage0 is a pipeline stage of the evaluation step, which the multi-process trainer does not run yet: build the step without @eval_step (tg-autodiff eval-step=false)
// REMAT-UNKNOWN: error: memopt-training-pipeline: remat must be none, sqrt, auto or optimal, got 'everything'
// TARGET: for the --target option: Cannot find option named 'tpu'!
// OPTIMIZER: for the --optimizer option: Cannot find option named 'rmsprop'!
// CHANGED: memopt-set-target: the module already targets #memopt.target<cuda>; earlier passes planned for it, so it cannot become #memopt.target<cpu>
module attributes {tg.onnx_model = "tiny.onnx"} {
  func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "input"}, %w: tensor<2x2x1x1xf32> {tg.param = "conv.weight"}) -> (tensor<1x2x4x4xf32> {tg.output = "output"}) {
    %y = tg.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %z = tg.relu %y : tensor<1x2x4x4xf32>
    %t = tg.tanh %z : tensor<1x2x4x4xf32>
    %s = tg.sigmoid %t : tensor<1x2x4x4xf32>
    return %s : tensor<1x2x4x4xf32>
  }
}
