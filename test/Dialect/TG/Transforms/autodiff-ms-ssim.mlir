// RUN: memopt-opt %s -tg-autodiff=loss=ms-ssim | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff=loss=ms-ssim+l1 | FileCheck %s --check-prefix=MIX
// RUN: memopt-opt %s -tg-autodiff='loss=ms-ssim eval-step=true' | FileCheck %s --check-prefix=EVAL

// loss=ms-ssim is no loss op: 1 - MS-SSIM as ordinary tg ops after the
// model's output, differentiated by their own rules. Two channels: the
// Gaussian window is a depthwise (groups = 2) convolution along H, then
// along W, without padding. 161x170: the odd sides are padded by one
// before 2x2 average pooling, as pytorch_msssim does.

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x161x170xf32> {tg.input = "input"}, %[[T:[^:]*]]: tensor<1x2x161x170xf32> {tg.target = "target"}
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<1x2x161x170xf32> {tg.output = "output"}
// CHECK: %[[Y:.*]] = tg.sigmoid
// CHECK-NEXT: %[[WH:.*]] = tg.constant dense<{{\[\[\[\[}}0.00102838036], [0.00759875821], [0.0360007733], [0.109360687], [0.213005528], [0.266011715], [0.213005528], [0.109360687], [0.0360007733], [0.00759875821], [0.00102838036]]], {{.*}} : tensor<2x1x11x1xf32>
// CHECK-NEXT: %[[WW:.*]] = tg.constant dense<{{\[\[\[\[}}0.00102838036, 0.00759875821, 0.0360007733, 0.109360687, 0.213005528, 0.266011715, 0.213005528, 0.109360687, 0.0360007733, 0.00759875821, 0.00102838036]]], {{.*}} : tensor<2x1x1x11xf32>
// CHECK-NEXT: %[[C1:.*]] = tg.constant dense<9.99999974E-5> : tensor<f32>
// CHECK-NEXT: %[[C2:.*]] = tg.constant dense<8.99999984E-4> : tensor<f32>
// CHECK-NEXT: tg.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[MUH:.*]] = tg.conv %[[Y]], %[[WH]] {groups = 2 : i64} : (tensor<1x2x161x170xf32>, tensor<2x1x11x1xf32>) -> tensor<1x2x151x170xf32>
// CHECK-NEXT: %[[MU:.*]] = tg.conv %[[MUH]], %[[WW]] {groups = 2 : i64} : (tensor<1x2x151x170xf32>, tensor<2x1x1x11xf32>) -> tensor<1x2x151x160xf32>
// CHECK-NEXT: tg.conv %[[T]], %[[WH]]
// Scale 1: mean cs per image and channel, relu, ^0.0448 as exp(w log).
// CHECK: %[[CS1:.*]] = tg.reduce_mean %{{.*}} {axes = array<i64: 2, 3>, keepdims = false} : (tensor<1x2x151x160xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: %[[R1:.*]] = tg.relu %[[CS1]]
// CHECK-NEXT: %[[L1:.*]] = tg.log %[[R1]]
// CHECK-NEXT: %[[W1:.*]] = tg.constant dense<4.480000e-02>
// CHECK-NEXT: %[[E1:.*]] = tg.mul %[[L1]], %[[W1]]
// CHECK-NEXT: %[[P1:.*]] = tg.exp %[[E1]]
// CHECK-NEXT: %[[Y2:.*]] = tg.avg_pool %[[Y]] {count_include_pad = true, kernel = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x161x170xf32>) -> tensor<1x2x81x85xf32>
// CHECK-NEXT: tg.avg_pool %[[T]] {{.*}} -> tensor<1x2x81x85xf32>
// CHECK: tg.constant dense<2.856000e-01>
// CHECK: tg.avg_pool %[[Y2]] {count_include_pad = true, kernel = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x81x85xf32>) -> tensor<1x2x41x43xf32>
// CHECK: tg.constant dense<3.001000e-01>
// CHECK: tg.avg_pool {{.*}} -> tensor<1x2x21x22xf32>
// CHECK: tg.constant dense<2.363000e-01>
// CHECK: tg.avg_pool {{.*}} -> tensor<1x2x11x11xf32>
// Scale 5: the 11x11 images filter to 1x1; ssim (luminance times cs).
// CHECK: tg.conv {{.*}} -> tensor<1x2x1x1xf32>
// CHECK: tg.constant dense<1.333000e-01>
// CHECK: %[[P5:.*]] = tg.exp
// CHECK-NEXT: %[[PROD:.*]] = tg.mul %{{.*}}, %[[P5]] : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: %[[MS:.*]] = tg.reduce_mean %[[PROD]] {keepdims = false} : (tensor<1x2xf32>) -> tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[LOSS:.*]] = tg.sub %[[ONE]], %[[MS]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// The seed, then the gradient back through the subgraph to the model.
// CHECK-NEXT: tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK: tg.relu_backward
// CHECK: tg.avg_pool_backward
// CHECK: tg.conv_backward_data
// CHECK: tg.sigmoid_backward
// CHECK: tg.sgd_update
// CHECK: return %[[LOSS]], %[[Y]],

// MIX-LABEL: func.func @train_step(
// MIX: %[[Y:.*]] = tg.sigmoid
// MIX: %[[MS:.*]] = tg.reduce_mean %{{.*}} {keepdims = false} : (tensor<1x2xf32>) -> tensor<f32>
// MIX-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// MIX-NEXT: %[[DSSIM:.*]] = tg.sub %[[ONE]], %[[MS]]
// MIX-NEXT: %[[D:.*]] = tg.sub %[[Y]], %[[T:[^ ]*]] : (tensor<1x2x161x170xf32>, tensor<1x2x161x170xf32>)
// MIX-NEXT: %[[ABS:.*]] = tg.abs %[[D]]
// MIX-NEXT: %[[L1:.*]] = tg.reduce_mean %[[ABS]] {keepdims = false} : (tensor<1x2x161x170xf32>) -> tensor<f32>
// MIX-NEXT: %[[ALPHA:.*]] = tg.constant dense<0.839999973> : tensor<f32>
// MIX-NEXT: %[[A:.*]] = tg.mul %[[DSSIM]], %[[ALPHA]]
// MIX-NEXT: %[[BETA:.*]] = tg.constant dense<1.600000e-01> : tensor<f32>
// MIX-NEXT: %[[B:.*]] = tg.mul %[[L1]], %[[BETA]]
// MIX-NEXT: %[[LOSS:.*]] = tg.add %[[A]], %[[B]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// MIX: return %[[LOSS]], %[[Y]],

// The evaluation step computes the same subgraph, without gradients.
// EVAL-LABEL: func.func @eval_step(
// EVAL: tg.sigmoid
// EVAL-COUNT-5: tg.relu
// EVAL: %[[LOSS:.*]] = tg.sub
// EVAL-NOT: _backward
// EVAL: return %[[LOSS]],
func.func @main(%x: tensor<1x2x161x170xf32> {tg.input = "input"},
                %w: tensor<1x2x1x1xf32> {tg.param = "w"})
    -> (tensor<1x2x161x170xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<1x2x161x170xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x161x170xf32>
  %1 = tg.sigmoid %0 : tensor<1x2x161x170xf32>
  return %1 : tensor<1x2x161x170xf32>
}
