// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// target=cuda: a tg.fused_elementwise becomes one __global__ kernel of the
// generated file, with the formulas of the runtime's kernels, launched on
// the runtime's stream; its body's values are never stored.

func.func @train_step(%a: tensor<2x4xf32> {tg.input = "input"},
                      %b: tensor<2x4xf32> {tg.param = "skip"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "y"}) {
  %y = tg.fused_elementwise %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>):
    %0 = tg.add %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = tg.leaky_relu %0 {alpha = 0.25} : tensor<2x4xf32>
    %2 = tg.relu_backward %1, %x : tensor<2x4xf32>
    tg.yield %2 : tensor<2x4xf32>
  }
  return %loss, %y : tensor<f32>, tensor<2x4xf32>
}

// CHECK: #include "memopt/Runtime/StepSupport.h"
// CHECK: #include "memopt/Runtime/CUDA/Launch.h"
// CHECK: // tg.fused_elementwise: add, leaky_relu, relu_backward
// CHECK-NEXT: static __global__ void kernel_y(const float *in0, const float *in1, float *out, int64_t n) {
// CHECK-NEXT:   for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
// CHECK-NEXT:        i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
// CHECK-NEXT:     const float x0 = in0[i];
// CHECK-NEXT:     const float x1 = in1[i];
// CHECK-NEXT:     const float v0 = x0 + x1;
// CHECK-NEXT:     const float v1 = v0 >= 0 ? v0 : static_cast<float>(0.25) * v0;
// CHECK-NEXT:     const float v2 = x0 <= 0 ? 0.0f : v1;
// CHECK-NEXT:     out[i] = v2;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor y = memopt::rt::bufferTensor(results, 1, {2, 4});
// CHECK-NEXT: kernel_y<<<memopt::rt::cuda::launchBlocks(8), memopt::rt::cuda::kLaunchThreads, 0, memopt::rt::cuda::stream()>>>(input.data, skip.data, y.data, 8);
// CHECK-NEXT: memopt::rt::cuda::checkLaunch("kernel_y");
