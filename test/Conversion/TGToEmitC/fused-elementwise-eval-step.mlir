// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-autodiff='eval-step=true' -tg-fuse-elementwise -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// The step and its evaluation function share one generated file: a chain
// fused in both (a residual add and its ReLU) gets a kernel of its own in
// each, named apart although the two outputs share their name, so nvcc
// does not see a function defined twice (the ResNet-34 U-Net failed to
// compile for CUDA so).

func.func @main(%x: tensor<2x4xf32> {tg.input = "input"},
                %w: tensor<2x4xf32> {tg.param = "skip"})
    -> (tensor<2x4xf32> {tg.output = "output"}) {
  %0 = tg.add %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tg.relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// CHECK: // tg.fused_elementwise: add, relu
// CHECK-NEXT: static __global__ void [[TRAIN:kernel_output]](
// CHECK-LABEL: static void train_step(
// CHECK: [[TRAIN]]<<<
// CHECK-NEXT: memopt::rt::cuda::checkLaunch("[[TRAIN]]");
// CHECK: // tg.fused_elementwise: add, relu
// CHECK-NEXT: static __global__ void [[EVAL:kernel_output_2]](
// CHECK-LABEL: static void eval_step(
// CHECK: [[EVAL]]<<<
// CHECK-NEXT: memopt::rt::cuda::checkLaunch("[[EVAL]]");
