// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s --check-prefix=CPU
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA

// The workspace of every op for the module's target, recorded once: the
// CUDA policy (the largest tensor of the convolution, at least 4 MiB) and
// oneDNN's answer on the CPU. Ops without a workspace get no attribute.
// CUDA-LABEL: func.func @conv
// CUDA: tg.conv2d {{.*}}{memopt.workspace_bytes = 4194304 : i64
// CUDA-NOT: memopt.workspace_bytes
// CUDA: return
// CPU-LABEL: func.func @conv
// CPU: tg.relu
// CPU-NOT: memopt.workspace_bytes
// CPU: return
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = tg.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %z = tg.relu %y : tensor<2x4x8x8xf32>
  return %z : tensor<2x4x8x8xf32>
}
