// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=54636612 device=a100-40g' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces=lean=true -tg-remat='strategy=auto lean-workspaces=true' | FileCheck %s
// RUN: not memopt-opt %s -memopt-set-target='target=cuda budget=54636612 device=a100-40g' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces -tg-remat=strategy=auto 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=58830916 device=a100-40g' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces=lean=true -tg-remat='strategy=auto lean-workspaces=true' | FileCheck %s --check-prefix=PLAIN
// RUN: not memopt-opt %s -memopt-set-target='target=cuda budget=54636611 device=a100-40g' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces=lean=true -tg-remat='strategy=auto lean-workspaces=true' 2>&1 | FileCheck %s --check-prefix=SMALLEST
// RUN: memopt-opt %s -memopt-set-target='target=cuda budget=54636612 device="a100-40g,lean=3"' -tg-autodiff='loss=mse optimizer=sgd' -tg-annotate-workspaces=lean=true -tg-remat='strategy=auto lean-workspaces=true' | FileCheck %s --check-prefix=SLOWER

// Two 3x3 convolutions of 32 channels at 256x256 on cuda: every tensor is
// 8 MiB and so is every convolution's full workspace (the largest tensor,
// ConvWorkspace.h), whose lean workspace is an eighth, at least 4 MiB.
// The plain step's predicted peak is 58830916 bytes (25239620 persistent)
// and nothing recomputed lowers it: the peak is the backward of the second
// convolution, whose operands are all needed there. A lean workspace for
// its data gradient takes 4 MiB off: the budget 4 MiB below the plain
// peak fits with one lean workspace and no recomputation, priced at the
// device's `lean` slowdown (2: one more roofline time of the 1.21 GFLOP
// convolution on an A100, 62 us) and no FLOPs.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "auto", budget_bytes = 54636612, persistent_bytes = 25239620, planned_arena_bytes = 29396992, rounds = 1, recomputed_values = 0, recomputed_ops = 0, {{.*}}flops_added = 0, seconds_added = 6.19{{[0-9]*}}E-5 : f64, {{.*}}lean_workspaces = 1, lean_workspace_bytes = 4194304>
// CHECK: tg.conv %arg0, %arg2 {{.*}}memopt.workspace_bytes = 8388608 : i64,
// CHECK: tg.conv %{{.*}}, %arg3 {{.*}}memopt.workspace_bytes = 8388608 : i64,
// CHECK: tg.conv_backward_data {{.*}}memopt.lean_workspace, memopt.workspace_bytes = 4194304 : i64
// CHECK: tg.conv_backward_filter {{.*}}memopt.workspace_bytes = 8388608 : i64
// CHECK: tg.conv_backward_filter {{.*}}memopt.workspace_bytes = 8388608 : i64
// CHECK-NOT: memopt.lean_workspace{{[,}]}}
// CHECK: return

// Without lean workspaces that budget is out of reach.
// FULL: error: tg-remat: the step does not fit --budget=54636612 bytes: the smallest peak remat=auto reaches is 58830916 bytes (--budget=58830916)

// A budget at the plain peak: nothing is made lean.
// PLAIN: planned_arena_bytes = 33591296, recomputed_values = 0, recomputed_ops = 0,
// PLAIN-NOT: memopt.lean_workspace{{[,}]}}

// One byte below: the error names the smallest budget, lean included.
// SMALLEST: error: tg-remat: the step does not fit --budget=54636611 bytes: the smallest peak remat=auto reaches is 54636612 bytes (--budget=54636612)

// The device's `lean` factor prices it: 3 charges two more roofline times.
// SLOWER: seconds_added = 1.23{{[0-9]*}}E-4 : f64, {{.*}}lean_workspaces = 1,
func.func @main(%x: tensor<1x32x256x256xf32> {tg.input = "input"},
                %w1: tensor<32x32x3x3xf32> {tg.param = "conv1.weight"},
                %w2: tensor<32x32x3x3xf32> {tg.param = "conv2.weight"})
    -> (tensor<1x32x256x256xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x256x256xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x256x256xf32>
  %r1 = tg.relu %c1 : tensor<1x32x256x256xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x256x256xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x256x256xf32>
  return %c2 : tensor<1x32x256x256xf32>
}
