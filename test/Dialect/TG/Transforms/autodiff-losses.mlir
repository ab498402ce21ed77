// RUN: memopt-opt %s -tg-autodiff | FileCheck %s --check-prefix=MSE
// RUN: memopt-opt %s -tg-autodiff=loss=l1 | FileCheck %s --check-prefix=L1
// RUN: memopt-opt %s -tg-autodiff=loss=bce | FileCheck %s --check-prefix=BCE
// RUN: memopt-opt %s -tg-autodiff=loss=dice | FileCheck %s --check-prefix=DICE

// The loss of the single output against the target (mean reduction),
// seeded with d loss / d loss = 1.

// MSE-LABEL: func.func @train_step(
// MSE-SAME: %[[T:[^:]*]]: tensor<1x1x4x4xf32> {tg.target = "target"}
// MSE: %[[Y:.*]] = tg.sigmoid
// MSE-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[Y]], %[[T]] : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<f32>
// MSE-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// MSE-NEXT: %[[DY:.*]] = tg.mse_loss_backward %[[ONE]], %[[Y]], %[[T]]
// MSE-NEXT: tg.sigmoid_backward %[[DY]], %[[Y]]
// MSE: return %[[LOSS]], %[[Y]],

// L1: %[[Y:.*]] = tg.sigmoid
// L1-NEXT: %[[LOSS:.*]] = tg.l1_loss %[[Y]], %[[T:[^ ]*]]
// L1-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// L1-NEXT: tg.l1_loss_backward %[[ONE]], %[[Y]], %[[T]]
// L1: return %[[LOSS]], %[[Y]],

// BCE: %[[Y:.*]] = tg.sigmoid
// BCE-NEXT: %[[LOSS:.*]] = tg.bce_loss %[[Y]], %[[T:[^ ]*]]
// BCE-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// BCE-NEXT: tg.bce_loss_backward %[[ONE]], %[[Y]], %[[T]]
// BCE: return %[[LOSS]], %[[Y]],

// Dice of one channel: a mask target of the output's type (sigmoid inside
// the loss; here of the model's own sigmoid output).
// DICE-LABEL: func.func @train_step(
// DICE-SAME: %[[T:[^:]*]]: tensor<1x1x4x4xf32> {tg.target = "target"}
// DICE: %[[Y:.*]] = tg.sigmoid
// DICE-NEXT: %[[LOSS:.*]] = tg.dice_loss %[[Y]], %[[T]] : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<f32>
// DICE-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// DICE-NEXT: tg.dice_loss_backward %[[ONE]], %[[Y]], %[[T]]
// DICE: return %[[LOSS]], %[[Y]],
func.func @main(%x: tensor<1x1x4x4xf32> {tg.input = "input"},
                %w: tensor<1x1x1x1xf32> {tg.param = "w"})
    -> (tensor<1x1x4x4xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %1 = tg.sigmoid %0 : tensor<1x1x4x4xf32>
  return %1 : tensor<1x1x4x4xf32>
}
