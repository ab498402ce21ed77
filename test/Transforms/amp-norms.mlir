// RUN: memopt-opt %s -tg-amp -split-input-file | FileCheck %s
// RUN: memopt-opt %s -tg-amp=mode=fp16 -split-input-file | FileCheck %s --check-prefix=FP16
// RUN: memopt-opt %s -tg-amp='fp32-ops=instance_norm,prelu' -split-input-file | FileCheck %s --check-prefix=TABLE
// RUN: memopt-opt %s -tg-amp -tg-autodiff='optimizer=sgd' -split-input-file | FileCheck %s --check-prefix=STEP

// The layers of nnU-Net / MONAI 3-D U-Nets under tg-amp: InstanceNorm
// (statistics per sample and channel), GroupNorm as PyTorch exports it
// (a reshape to N x G x ..., an instance norm of unit scale and zero bias,
// a reshape back and the per-channel affine mul and add) and PReLU.
// InstanceNorm follows its input: a bf16 input and output with f32 scale,
// bias and statistics (N x C, of the scale's type); GroupNorm's constant
// scale and bias stay f32 with them, its affine parameters and PReLU's
// slope are cast to the activations' type.
// CHECK: module attributes {memopt.amp = "bf16"}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x1x8x8x8xf32> {tg.input = "input"}, %[[W:[^:]*]]: tensor<4x1x3x3x3xf32> {tg.param = "conv.weight"},
// CHECK-SAME: %[[S:[^:]*]]: tensor<4xf32> {tg.param = "in.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "in.bias"},
// CHECK-SAME: %[[GS:[^:]*]]: tensor<4x1x1x1xf32> {tg.param = "gn.weight"}, %[[GB:[^:]*]]: tensor<4x1x1x1xf32> {tg.param = "gn.bias"},
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x1x1x1xf32> {tg.param = "prelu.weight"})
// CHECK-NEXT: %[[XL:.*]] = tg.cast %[[X]] : tensor<2x1x8x8x8xf32> to tensor<2x1x8x8x8xbf16>
// CHECK-NEXT: %[[WL:.*]] = tg.cast %[[W]] : tensor<4x1x3x3x3xf32> to tensor<4x1x3x3x3xbf16>
// CHECK-NEXT: %[[C:.*]] = tg.conv %[[XL]], %[[WL]]{{.*}} -> tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[IN:[^,]*]], {{.*}} = tg.instance_norm %[[C]], %[[S]], %[[B]]{{.*}} : (tensor<2x4x8x8x8xbf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8x8xbf16>, tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT: %[[LR:.*]] = tg.leaky_relu %[[IN]]{{.*}} : tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[G:.*]] = tg.reshape %[[LR]]{{.*}} : (tensor<2x4x8x8x8xbf16>) -> tensor<2x2x1024xbf16>
// CHECK-NEXT: %[[ONES:.*]] = tg.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %[[ZEROS:.*]] = tg.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %[[GN:[^,]*]], {{.*}} = tg.instance_norm %[[G]], %[[ONES]], %[[ZEROS]]{{.*}} -> (tensor<2x2x1024xbf16>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT: %[[BACK:.*]] = tg.reshape %[[GN]]{{.*}} -> tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[GSL:.*]] = tg.cast %[[GS]] : tensor<4x1x1x1xf32> to tensor<4x1x1x1xbf16>
// CHECK-NEXT: %[[M:.*]] = tg.mul %[[BACK]], %[[GSL]]{{.*}} -> tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[GBL:.*]] = tg.cast %[[GB]] : tensor<4x1x1x1xf32> to tensor<4x1x1x1xbf16>
// CHECK-NEXT: %[[AFF:.*]] = tg.add %[[M]], %[[GBL]]{{.*}} -> tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[AL:.*]] = tg.cast %[[A]] : tensor<4x1x1x1xf32> to tensor<4x1x1x1xbf16>
// CHECK-NEXT: %[[P:.*]] = tg.prelu %[[AFF]], %[[AL]] : (tensor<2x4x8x8x8xbf16>, tensor<4x1x1x1xbf16>) -> tensor<2x4x8x8x8xbf16>
// CHECK-NEXT: %[[OUT:.*]] = tg.cast %[[P]] : tensor<2x4x8x8x8xbf16> to tensor<2x4x8x8x8xf32>
// CHECK-NEXT: return %[[OUT]]

// fp16: the same with f16 activations and f32 statistics.
// FP16: module attributes {memopt.amp = "fp16"}
// FP16: tg.instance_norm{{.*}} -> (tensor<2x4x8x8x8xf16>, tensor<2x4xf32>, tensor<2x4xf32>)
// FP16: tg.instance_norm{{.*}} -> (tensor<2x2x1024xf16>, tensor<2x2xf32>, tensor<2x2xf32>)
// FP16: tg.prelu{{.*}} : (tensor<2x4x8x8x8xf16>, tensor<4x1x1x1xf16>) -> tensor<2x4x8x8x8xf16>

// fp32-ops keeps both norms and the PReLU in f32 (what --amp-fp32-ops did
// before their kernels took bf16): the convolution's result is cast up
// before the first norm, and everything after it stays f32.
// TABLE-LABEL: func.func @main(
// TABLE: %[[C:.*]] = tg.conv{{.*}} -> tensor<2x4x8x8x8xbf16>
// TABLE-NEXT: %[[CF:.*]] = tg.cast %[[C]] : tensor<2x4x8x8x8xbf16> to tensor<2x4x8x8x8xf32>
// TABLE-NEXT: tg.instance_norm %[[CF]],{{.*}} -> (tensor<2x4x8x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
// TABLE-NOT: bf16
// TABLE: tg.prelu{{.*}} : (tensor<2x4x8x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<2x4x8x8x8xf32>
// TABLE-NEXT: return

// After autodiff the backward runs in the forward's types: PReLU's input
// gradient bf16, the instance norms' backward on bf16 activations with
// their f32 statistics, returning f32 parameter gradients, and the
// convolution's filter gradient bf16 until the cast before its update.
// STEP-LABEL: func.func @train_step(
// STEP: tg.prelu_backward{{.*}} : (tensor<2x4x8x8x8xbf16>, tensor<2x4x8x8x8xbf16>, tensor<4x1x1x1xbf16>) -> tensor<2x4x8x8x8xbf16>
// STEP: tg.instance_norm_backward{{.*}} : (tensor<2x2x1024xbf16>, tensor<2x2x1024xbf16>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2x1024xbf16>, tensor<2xf32>, tensor<2xf32>)
// STEP: tg.leaky_relu_backward{{.*}} : tensor<2x4x8x8x8xbf16>
// STEP: %{{.*}}, %[[DS:.*]], %[[DB:.*]] = tg.instance_norm_backward{{.*}} : (tensor<2x4x8x8x8xbf16>, tensor<2x4x8x8x8xbf16>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4x8x8x8xbf16>, tensor<4xf32>, tensor<4xf32>)
// STEP: %[[DWL:.*]] = tg.conv_backward_filter{{.*}} -> tensor<4x1x3x3x3xbf16>
// STEP-NEXT: %[[DW:.*]] = tg.cast %[[DWL]] : tensor<4x1x3x3x3xbf16> to tensor<4x1x3x3x3xf32>
// STEP: tg.sgd_update %{{.*}}, %[[DW]] : tensor<4x1x3x3x3xf32>
// STEP-NEXT: tg.sgd_update %{{.*}}, %[[DS]] : tensor<4xf32>
// STEP-NEXT: tg.sgd_update %{{.*}}, %[[DB]] : tensor<4xf32>
func.func @main(%x: tensor<2x1x8x8x8xf32> {tg.input = "input"},
                %w: tensor<4x1x3x3x3xf32> {tg.param = "conv.weight"},
                %s: tensor<4xf32> {tg.param = "in.weight"},
                %b: tensor<4xf32> {tg.param = "in.bias"},
                %gs: tensor<4x1x1x1xf32> {tg.param = "gn.weight"},
                %gb: tensor<4x1x1x1xf32> {tg.param = "gn.bias"},
                %a: tensor<4x1x1x1xf32> {tg.param = "prelu.weight"})
    -> (tensor<2x4x8x8x8xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>,
                      pads = array<i64: 1, 1, 1, 1, 1, 1>}
      : (tensor<2x1x8x8x8xf32>, tensor<4x1x3x3x3xf32>) -> tensor<2x4x8x8x8xf32>
  %1:3 = tg.instance_norm %0, %s, %b
      : (tensor<2x4x8x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  %2 = tg.leaky_relu %1#0 {alpha = 0.01} : tensor<2x4x8x8x8xf32>
  %3 = tg.reshape %2 {shape = array<i64: 2, 2, 1024>}
      : (tensor<2x4x8x8x8xf32>) -> tensor<2x2x1024xf32>
  %ones = tg.constant dense<1.0> : tensor<2xf32>
  %zeros = tg.constant dense<0.0> : tensor<2xf32>
  %4:3 = tg.instance_norm %3, %ones, %zeros
      : (tensor<2x2x1024xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2x2x1024xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %5 = tg.reshape %4#0 {shape = array<i64: 2, 4, 8, 8, 8>}
      : (tensor<2x2x1024xf32>) -> tensor<2x4x8x8x8xf32>
  %6 = tg.mul %5, %gs : (tensor<2x4x8x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<2x4x8x8x8xf32>
  %7 = tg.add %6, %gb : (tensor<2x4x8x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<2x4x8x8x8xf32>
  %8 = tg.prelu %7, %a : (tensor<2x4x8x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<2x4x8x8x8xf32>
  return %8 : tensor<2x4x8x8x8xf32>
}

// -----

// An f32 model whose instance norm reads an f32 input stays f32 (no
// conversion without a low operand), statistics included.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: tg.cast
// CHECK: tg.instance_norm{{.*}} -> (tensor<1x2x4x4x4xf32>, tensor<1x2xf32>, tensor<1x2xf32>)
// CHECK-NOT: bf16
// CHECK: return
func.func @main(%x: tensor<1x2x4x4x4xf32> {tg.input = "input"},
                %s: tensor<2xf32> {tg.param = "in.weight"},
                %b: tensor<2xf32> {tg.param = "in.bias"})
    -> (tensor<1x2x4x4x4xf32> {tg.output = "output"}) {
  %0:3 = tg.instance_norm %x, %s, %b
      : (tensor<1x2x4x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<1x2x4x4x4xf32>, tensor<1x2xf32>, tensor<1x2xf32>)
  return %0#0 : tensor<1x2x4x4x4xf32>
}
