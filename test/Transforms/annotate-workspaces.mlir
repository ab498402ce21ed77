// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s --check-prefix=CPU
// RUN: env OMP_NUM_THREADS=3 memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s --check-prefix=THREADS
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s --check-prefix=NOTHREADS
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces=lean=true | FileCheck %s --check-prefix=CPU-LEAN
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces=lean=true | FileCheck %s --check-prefix=CUDA-LEAN
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces=lean=true -tg-annotate-workspaces | FileCheck %s --check-prefix=CPU-NOLEAN

// The workspace of every op for the module's target, recorded once: the
// CUDA policy (the largest tensor of the convolution, at least 4 MiB) and
// oneDNN's answer on the CPU. Ops without a workspace get no attribute.
// CUDA-LABEL: func.func @conv
// CUDA: tg.conv {{.*}}{memopt.workspace_bytes = 4194304 : i64
// CUDA-NOT: memopt.workspace_bytes
// CUDA: return
// CPU-LABEL: func.func @conv
// CPU: tg.relu
// CPU-NOT: memopt.workspace_bytes
// CPU: return
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %z = tg.relu %y : tensor<2x4x8x8xf32>
  return %z : tensor<2x4x8x8xf32>
}

// -----

// Workspaces in the tensors' element type (tg-amp): on CUDA the largest
// tensor at its own element size (16 MiB in f32, 8 MiB in bf16 and f16);
// on the CPU oneDNN's bf16 primitive and, for f16 (no oneDNN kernel on the
// CPU), the f32 primitive's workspace plus f32 copies of the operands and
// the result.
// CUDA-LABEL: func.func @typed
// CUDA: tg.conv {{.*}}{memopt.workspace_bytes = 16777216 : i64{{.*}} -> tensor<1x64x256x256xf32>
// CUDA: tg.conv {{.*}}{memopt.workspace_bytes = 8388608 : i64{{.*}} -> tensor<1x64x256x256xbf16>
// CUDA: tg.conv {{.*}}{memopt.workspace_bytes = 8388608 : i64{{.*}} -> tensor<1x64x256x256xf16>
// oneDNN sizes its scratchpads for the compiler's OpenMP threads: a CPU
// function with a workspace records them (the binary runs with as many);
// cuDNN's workspaces do not depend on them.
// THREADS-LABEL: func.func @typed
// THREADS-SAME: attributes {memopt.workspace_threads = 3 : i64}
// NOTHREADS-NOT: memopt.workspace_threads
// CPU-LABEL: func.func @typed
// CPU: tg.conv {{.*}}{memopt.workspace_bytes = {{[0-9]+}} : i64{{.*}} -> tensor<1x64x256x256xf32>
// CPU: tg.conv {{.*}}{memopt.workspace_bytes = {{[0-9]+}} : i64{{.*}} -> tensor<1x64x256x256xbf16>
// CPU: tg.conv {{.*}}{memopt.workspace_bytes = {{[0-9]+}} : i64{{.*}} -> tensor<1x64x256x256xf16>
func.func @typed(%x: tensor<1x64x256x256xf32>, %w: tensor<64x64x3x3xf32>,
                 %xb: tensor<1x64x256x256xbf16>, %wb: tensor<64x64x3x3xbf16>,
                 %xh: tensor<1x64x256x256xf16>, %wh: tensor<64x64x3x3xf16>)
    -> (tensor<1x64x256x256xf32>, tensor<1x64x256x256xbf16>, tensor<1x64x256x256xf16>) {
  %y = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x256x256xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x256x256xf32>
  %yb = tg.conv %xb, %wb {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x256x256xbf16>, tensor<64x64x3x3xbf16>) -> tensor<1x64x256x256xbf16>
  %yh = tg.conv %xh, %wh {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x256x256xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x256x256xf16>
  return %y, %yb, %yh : tensor<1x64x256x256xf32>, tensor<1x64x256x256xbf16>, tensor<1x64x256x256xf16>
}

// -----

// With lean=true the lean workspace of each op that has a smaller one is
// recorded beside the default. On the CPU only filter gradients have one
// (computed in pieces, memopt/Runtime/CPU/ConvWorkspace.h): the deep layer
// on a 4x4 image in groups of output channels, the top layer in bands of
// rows; the forward and the data gradient have none. On CUDA every
// convolution's is an eighth of its workspace, at least 4 MiB: none below
// that. Annotating again without lean removes them.
// CPU-LEAN-LABEL: func.func @lean
// CPU-LEAN: tg.conv {{.*}}{memopt.workspace_bytes
// CPU-LEAN: tg.conv_backward_data {{.*}}{input_shape = array<i64: 2, 256, 4, 4>, memopt.workspace_bytes
// CPU-LEAN: tg.conv_backward_filter {{.*}}{memopt.lean_workspace_bytes = {{[0-9]+}} : i64, memopt.workspace_bytes = {{[0-9]+}} : i64{{.*}} -> tensor<256x256x3x3xf32>
// CPU-LEAN: tg.conv_backward_filter {{.*}}{memopt.lean_workspace_bytes = {{[0-9]+}} : i64, memopt.workspace_bytes = {{[0-9]+}} : i64{{.*}} -> tensor<32x32x3x3xf32>
// CUDA-LEAN-LABEL: func.func @lean
// CUDA-LEAN: tg.conv {{.*}}{memopt.workspace_bytes = 4194304 : i64
// CUDA-LEAN: tg.conv_backward_data {{.*}}{input_shape = array<i64: 2, 256, 4, 4>, memopt.workspace_bytes = 4194304 : i64
// CUDA-LEAN: tg.conv_backward_filter {{.*}}{memopt.workspace_bytes = 4194304 : i64
// CUDA-LEAN: tg.conv_backward_filter {{.*}}{memopt.lean_workspace_bytes = 4194304 : i64, memopt.workspace_bytes = 16777216 : i64
// CPU-NOLEAN-LABEL: func.func @lean
// CPU-NOLEAN-NOT: memopt.lean_workspace_bytes
// CPU-NOLEAN: return
func.func @lean(%x: tensor<2x256x4x4xf32>, %w: tensor<256x256x3x3xf32>,
                %dy: tensor<2x256x4x4xf32>,
                %xt: tensor<2x32x256x256xf32>, %dyt: tensor<2x32x256x256xf32>)
    -> (tensor<2x256x4x4xf32>, tensor<2x256x4x4xf32>, tensor<256x256x3x3xf32>, tensor<32x32x3x3xf32>) {
  %y = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x256x4x4xf32>, tensor<256x256x3x3xf32>) -> tensor<2x256x4x4xf32>
  %dx = tg.conv_backward_data %dy, %w {input_shape = array<i64: 2, 256, 4, 4>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x256x4x4xf32>, tensor<256x256x3x3xf32>) -> tensor<2x256x4x4xf32>
  %dw = tg.conv_backward_filter %dy, %x {weight_shape = array<i64: 256, 256, 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x256x4x4xf32>, tensor<2x256x4x4xf32>) -> tensor<256x256x3x3xf32>
  %dwt = tg.conv_backward_filter %dyt, %xt {weight_shape = array<i64: 32, 32, 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x32x256x256xf32>, tensor<2x32x256x256xf32>) -> tensor<32x32x3x3xf32>
  return %y, %dx, %dw, %dwt : tensor<2x256x4x4xf32>, tensor<2x256x4x4xf32>, tensor<256x256x3x3xf32>, tensor<32x32x3x3xf32>
}
