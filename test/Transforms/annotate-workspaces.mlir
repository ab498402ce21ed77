// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s --check-prefix=CPU
// RUN: env OMP_NUM_THREADS=3 memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s --check-prefix=THREADS
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces | FileCheck %s --check-prefix=NOTHREADS
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-annotate-workspaces | FileCheck %s --check-prefix=CUDA

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
