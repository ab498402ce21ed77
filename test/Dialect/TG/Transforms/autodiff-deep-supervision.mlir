// RUN: memopt-opt %s -tg-autodiff='loss=ce+dice deep-supervision=nnunet' | FileCheck %s --check-prefix=NNUNET
// RUN: memopt-opt %s -tg-autodiff='loss=mse deep-supervision=halving' | FileCheck %s --check-prefix=HALVING
// RUN: memopt-opt %s -tg-autodiff='loss=l1 deep-supervision=1,0.5,0.25' | FileCheck %s --check-prefix=GIVEN

// Deep supervision: one loss per output (full resolution first, then 1/2,
// 1/4), each against the one target downsampled to the output's shape,
// weighted. Label maps (ce, dice, ce+dice) are downsampled by a strided
// slice (nearest-exact: index f * i + f / 2), images by the mean of each
// block (a reshape that splits the axis, then reduce_mean), one axis at a
// time.

// nnunet: weights 1, 1/2, 0 normalized to 2/3, 1/3; the lowest output has
// no loss, and its producer no gradient.
// NNUNET-LABEL: func.func @train_step(
// NNUNET-SAME: %[[X:[^:]*]]: tensor<2x3x8x8xf32> {tg.input = "input"}, %[[T:[^:]*]]: tensor<2x8x8xf32> {tg.target = "target"}, %[[P:[^:]*]]: tensor<1x3x1x1xf32> {tg.param = "p"})
// NNUNET: %[[O0:.*]] = tg.mul %[[X]], %[[P]]
// NNUNET: %[[O1:.*]] = tg.avg_pool %[[O0]]
// NNUNET: %[[O2:.*]] = tg.avg_pool %[[O1]]
// Output #0 against the target itself: nnU-Net's DC_and_CE_loss.
// NNUNET: %[[CE0:.*]] = tg.cross_entropy_loss %[[O0]], %[[T]]
// NNUNET: %[[SM0:.*]] = tg.softmax %[[O0]] {axis = 1 : i64}
// NNUNET: %[[FG0:.*]] = tg.slice %[[SM0]] {ends = array<i64: 2, 3, 8, 8>, starts = array<i64: 0, 1, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// NNUNET: %[[MAP0:.*]] = tg.reshape %[[T]] {shape = array<i64: 2, 1, 8, 8>}
// NNUNET: %[[CLS0:.*]] = tg.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// NNUNET: %[[DIFF0:.*]] = tg.sub %[[MAP0]], %[[CLS0]] : (tensor<2x1x8x8xf32>, tensor<1x2x1x1xf32>) -> tensor<2x2x8x8xf32>
// NNUNET: %[[DIST0:.*]] = tg.abs %[[DIFF0]]
// NNUNET: %[[ONE0:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// NNUNET: %[[M0:.*]] = tg.sub %[[ONE0]], %[[DIST0]]
// NNUNET: %[[Y0:.*]] = tg.relu %[[M0]]
// NNUNET: %[[PY0:.*]] = tg.mul %[[FG0]], %[[Y0]]
// NNUNET: %[[I0:.*]] = tg.reduce_sum %[[PY0]] {axes = array<i64: 0, 2, 3>, keepdims = false} : (tensor<2x2x8x8xf32>) -> tensor<2xf32>
// NNUNET: %[[SP0:.*]] = tg.reduce_sum %[[FG0]] {axes = array<i64: 0, 2, 3>, keepdims = false}
// NNUNET: %[[SG0:.*]] = tg.reduce_sum %[[Y0]] {axes = array<i64: 0, 2, 3>, keepdims = false}
// NNUNET: %[[SMOOTH0:.*]] = tg.constant dense<9.99999974E-6> : tensor<f32>
// NNUNET: %[[TWO0:.*]] = tg.constant dense<2.000000e+00> : tensor<f32>
// NNUNET: %[[TI0:.*]] = tg.mul %[[TWO0]], %[[I0]]
// NNUNET: %[[NUM0:.*]] = tg.add %[[TI0]], %[[SMOOTH0]]
// NNUNET: %[[SUMS0:.*]] = tg.add %[[SG0]], %[[SP0]]
// NNUNET: %[[DEN0:.*]] = tg.add %[[SUMS0]], %[[SMOOTH0]]
// NNUNET: %[[DC0:.*]] = tg.div %[[NUM0]], %[[DEN0]]
// NNUNET: %[[MDC0:.*]] = tg.reduce_mean %[[DC0]] {keepdims = false} : (tensor<2xf32>) -> tensor<f32>
// NNUNET: %[[L0:.*]] = tg.sub %[[CE0]], %[[MDC0]]
// NNUNET: %[[W0:.*]] = tg.constant dense<0.666666686> : tensor<f32>
// NNUNET: %[[WL0:.*]] = tg.mul %[[L0]], %[[W0]]
// Output #1 against the target's elements 1, 3, 5, 7 of each axis.
// NNUNET: %[[T1:.*]] = tg.slice %[[T]] {ends = array<i64: 2, 8, 8>, starts = array<i64: 0, 1, 1>, steps = array<i64: 1, 2, 2>} : (tensor<2x8x8xf32>) -> tensor<2x4x4xf32>
// NNUNET: %[[CE1:.*]] = tg.cross_entropy_loss %[[O1]], %[[T1]]
// NNUNET: %[[L1:.*]] = tg.sub %[[CE1]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// NNUNET: %[[W1:.*]] = tg.constant dense<0.333333343> : tensor<f32>
// NNUNET: %[[WL1:.*]] = tg.mul %[[L1]], %[[W1]]
// NNUNET: %[[LOSS:.*]] = tg.add %[[WL0]], %[[WL1]]
// NNUNET-NOT: tg.cross_entropy_loss
// NNUNET: %[[SEED:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// NNUNET: tg.mul %[[SEED]], %[[W1]]
// NNUNET: tg.softmax_backward
// NNUNET: tg.cross_entropy_loss_backward %{{.*}}, %[[O1]], %[[T1]]
// NNUNET: tg.mul %[[SEED]], %[[W0]]
// NNUNET: tg.cross_entropy_loss_backward %{{.*}}, %[[O0]], %[[T]]
// NNUNET: tg.avg_pool_backward
// NNUNET-NOT: tg.avg_pool_backward
// NNUNET: tg.sgd_update %[[P]]
// NNUNET: return %[[LOSS]], %[[O0]], %[[O1]], %[[O2]]

// halving: weights 1, 1/2, 1/4 normalized to 4/7, 2/7, 1/7; mean squared
// error against the target averaged over 2x2 and 4x4 blocks.
// HALVING-LABEL: func.func @train_step(
// HALVING-SAME: %[[T:[^:]*]]: tensor<2x3x8x8xf32> {tg.target = "target"}
// HALVING: %[[L0:.*]] = tg.mse_loss %{{.*}}, %[[T]]
// HALVING: %[[W0:.*]] = tg.constant dense<0.571428597> : tensor<f32>
// HALVING: tg.mul %[[L0]], %[[W0]]
// HALVING: %[[S1H:.*]] = tg.reshape %[[T]] {shape = array<i64: 2, 3, 4, 2, 8>}
// HALVING: %[[T1H:.*]] = tg.reduce_mean %[[S1H]] {axes = array<i64: 3>, keepdims = false} : (tensor<2x3x4x2x8xf32>) -> tensor<2x3x4x8xf32>
// HALVING: %[[S1W:.*]] = tg.reshape %[[T1H]] {shape = array<i64: 2, 3, 4, 4, 2>}
// HALVING: %[[T1:.*]] = tg.reduce_mean %[[S1W]] {axes = array<i64: 4>, keepdims = false} : (tensor<2x3x4x4x2xf32>) -> tensor<2x3x4x4xf32>
// HALVING: %[[L1:.*]] = tg.mse_loss %{{.*}}, %[[T1]]
// HALVING: tg.constant dense<0.285714298> : tensor<f32>
// HALVING: %[[S2H:.*]] = tg.reshape %[[T]] {shape = array<i64: 2, 3, 2, 4, 8>}
// HALVING: tg.reduce_mean %[[S2H]] {axes = array<i64: 3>, keepdims = false}
// HALVING: tg.reshape %{{.*}} {shape = array<i64: 2, 3, 2, 2, 4>}
// HALVING: %[[T2:.*]] = tg.reduce_mean %{{.*}} {axes = array<i64: 4>, keepdims = false} : (tensor<2x3x2x2x4xf32>) -> tensor<2x3x2x2xf32>
// HALVING: tg.mse_loss %{{.*}}, %[[T2]]
// HALVING: tg.constant dense<0.142857149> : tensor<f32>

// Weights as given, not normalized; a weight of 1 multiplies nothing.
// GIVEN-LABEL: func.func @train_step(
// GIVEN: %[[L0:.*]] = tg.l1_loss
// GIVEN-NOT: tg.mul %[[L0]]
// GIVEN: %[[L1:.*]] = tg.l1_loss
// GIVEN: %[[W1:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
// GIVEN: %[[WL1:.*]] = tg.mul %[[L1]], %[[W1]]
// GIVEN: %[[S01:.*]] = tg.add %[[L0]], %[[WL1]]
// GIVEN: %[[L2:.*]] = tg.l1_loss
// GIVEN: %[[W2:.*]] = tg.constant dense<2.500000e-01> : tensor<f32>
// GIVEN: %[[WL2:.*]] = tg.mul %[[L2]], %[[W2]]
// GIVEN: %[[LOSS:.*]] = tg.add %[[S01]], %[[WL2]]
// GIVEN: return %[[LOSS]]
func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %p: tensor<1x3x1x1xf32> {tg.param = "p"})
    -> (tensor<2x3x8x8xf32> {tg.output = "out0"},
        tensor<2x3x4x4xf32> {tg.output = "out1"},
        tensor<2x3x2x2xf32> {tg.output = "out2"}) {
  %0 = tg.mul %x, %p : (tensor<2x3x8x8xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  %1 = tg.avg_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %2 = tg.avg_pool %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x2x2xf32>
  return %0, %1, %2 : tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>, tensor<2x3x2x2xf32>
}
