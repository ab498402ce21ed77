// RUN: memopt-opt %s -tg-autodiff='loss=mse optimizer=sgd momentum=0.9' -split-input-file | FileCheck %s

// The training step as a whole: its signature, the order of its ops, the
// BatchNorm running statistics, gradients summed over uses, and values that
// need no gradient.

// A conv-BN-ReLU block with a residual add. @main is replaced by
// @train_step; arguments: inputs, target, parameters, states, optimizer
// states, step; results: loss, outputs, then every parameter, state and
// optimizer state in argument order, named as the argument.
// CHECK-NOT: func.func @main
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8x8xf32> {tg.input = "input"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<2x4x8x8xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
// CHECK-SAME: %[[S:[^:]*]]: tensor<4xf32> {tg.param = "bn.weight"},
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32> {tg.param = "bn.bias"},
// CHECK-SAME: %[[RM:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_mean"},
// CHECK-SAME: %[[RV:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_var"},
// CHECK-SAME: %[[WBUF:[^:]*]]: tensor<4x3x3x3xf32> {tg.opt_state = "conv.weight.momentum_buffer"},
// CHECK-SAME: %[[SBUF:[^:]*]]: tensor<4xf32> {tg.opt_state = "bn.weight.momentum_buffer"},
// CHECK-SAME: %[[BBUF:[^:]*]]: tensor<4xf32> {tg.opt_state = "bn.bias.momentum_buffer"},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"})
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<2x4x8x8xf32> {tg.output = "output"},
// CHECK-SAME: tensor<4x3x3x3xf32> {tg.param = "conv.weight"}, tensor<4xf32> {tg.param = "bn.weight"}, tensor<4xf32> {tg.param = "bn.bias"},
// CHECK-SAME: tensor<4xf32> {tg.state = "bn.running_mean"}, tensor<4xf32> {tg.state = "bn.running_var"},
// CHECK-SAME: tensor<4x3x3x3xf32> {tg.opt_state = "conv.weight.momentum_buffer"}, tensor<4xf32> {tg.opt_state = "bn.weight.momentum_buffer"}, tensor<4xf32> {tg.opt_state = "bn.bias.momentum_buffer"})
// Forward, unchanged.
// CHECK-NEXT: %[[C:.*]] = tg.conv %[[X]], %[[W]]
// CHECK-NEXT: %[[BN:.*]], %[[NRM:.*]], %[[NRV:.*]], %[[MEAN:.*]], %[[INVSTD:.*]] = tg.batch_norm %[[C]], %[[S]], %[[B]], %[[RM]], %[[RV]]
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[BN]]
// CHECK-NEXT: %[[Y:.*]] = tg.add %[[R]], %[[C]]
// Loss and its gradient, seeded with 1.
// CHECK-NEXT: %[[LOSS:.*]] = tg.mse_loss %[[Y]], %[[T]] : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DY:.*]] = tg.mse_loss_backward %[[ONE]], %[[Y]], %[[T]]
// Backward in reverse order; %[[C]] has two uses, whose gradients are summed.
// CHECK-NEXT: %[[DR:.*]] = tg.relu_backward %[[DY]], %[[R]]
// CHECK-NEXT: %[[DBN:.*]], %[[DS:.*]], %[[DB:.*]] = tg.batch_norm_backward %[[DR]], %[[C]], %[[S]], %[[MEAN]], %[[INVSTD]]
// CHECK-NEXT: %[[DC:.*]] = tg.add %[[DY]], %[[DBN]]
// CHECK-NEXT: %[[DW:.*]] = tg.conv_backward_filter %[[DC]], %[[X]]
// Updates, one per parameter, with the step number.
// CHECK-NEXT: %[[W1:.*]], %[[WBUF1:.*]] = tg.sgd_update %[[W]], %[[DW]], %[[WBUF]], step %[[STEP]] {momentum = 9.000000e-01 : f64} : tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[S1:.*]], %[[SBUF1:.*]] = tg.sgd_update %[[S]], %[[DS]], %[[SBUF]], step %[[STEP]] {momentum = 9.000000e-01 : f64} : tensor<4xf32>
// CHECK-NEXT: %[[B1:.*]], %[[BBUF1:.*]] = tg.sgd_update %[[B]], %[[DB]], %[[BBUF]], step %[[STEP]] {momentum = 9.000000e-01 : f64} : tensor<4xf32>
// The running statistics come from the batch normalization.
// CHECK-NEXT: return %[[LOSS]], %[[Y]], %[[W1]], %[[S1]], %[[B1]], %[[NRM]], %[[NRV]], %[[WBUF1]], %[[SBUF1]], %[[BBUF1]] :
func.func @main(%x: tensor<2x3x8x8xf32> {tg.input = "input"},
                %w: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %rm: tensor<4xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x8x8xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1:5 = tg.batch_norm %0, %s, %b, %rm, %rv
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %2 = tg.relu %1#0 : tensor<2x4x8x8xf32>
  %3 = tg.add %2, %0 : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %3 : tensor<2x4x8x8xf32>
}

// -----

// A value used three times sums three gradients, in reverse order of use.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<4xf32> {tg.param = "p"}
// CHECK: %[[M:.*]] = tg.mul %[[P]], %[[P]]
// CHECK-NEXT: %[[A:.*]] = tg.add %[[M]], %[[P]]
// CHECK: %[[DA:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DM:.*]] = tg.mul %[[DA]], %[[P]]
// CHECK-NEXT: %[[DM2:.*]] = tg.mul %[[DA]], %[[P]]
// CHECK-NEXT: %[[SUM1:.*]] = tg.add %[[DA]], %[[DM]]
// CHECK-NEXT: %[[SUM2:.*]] = tg.add %[[SUM1]], %[[DM2]]
// CHECK-NEXT: tg.sgd_update %[[P]], %[[SUM2]]
func.func @main(%p: tensor<4xf32> {tg.param = "p"})
    -> (tensor<4xf32> {tg.output = "y"}) {
  %0 = tg.mul %p, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tg.add %0, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// No gradient for the data input, for constants and for the path that
// depends on no parameter (the scaled input); a parameter the loss does not
// depend on (%unused) is frozen: returned unchanged, without optimizer state,
// as torch.optim skips parameters whose gradient is None.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4xf32> {tg.input = "x"}, %[[T:[^:]*]]: tensor<4xf32> {tg.target = "target"},
// CHECK-SAME: %[[P:[^:]*]]: tensor<4xf32> {tg.param = "p"}, %[[U:[^:]*]]: tensor<4xf32> {tg.param = "unused"},
// CHECK-SAME: %[[PBUF:[^:]*]]: tensor<4xf32> {tg.opt_state = "p.momentum_buffer"}, %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"})
// CHECK-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "y"}, tensor<4xf32> {tg.param = "p"}, tensor<4xf32> {tg.param = "unused"}, tensor<4xf32> {tg.opt_state = "p.momentum_buffer"})
// CHECK: %[[K:.*]] = tg.constant dense<2.000000e+00>
// CHECK-NEXT: %[[XS:.*]] = tg.mul %[[X]], %[[K]]
// CHECK-NEXT: %[[Y:.*]] = tg.mul %[[XS]], %[[P]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.mul %[[DY]], %[[XS]]
// CHECK-NEXT: %[[P1:.*]], %[[PBUF1:.*]] = tg.sgd_update %[[P]], %[[DP]], %[[PBUF]], step %[[STEP]]
// CHECK-NEXT: return %{{.*}}, %[[Y]], %[[P1]], %[[U]], %[[PBUF1]]
func.func @main(%x: tensor<4xf32> {tg.input = "x"},
                %p: tensor<4xf32> {tg.param = "p"},
                %unused: tensor<4xf32> {tg.param = "unused"})
    -> (tensor<4xf32> {tg.output = "y"}) {
  %k = tg.constant dense<2.0> : tensor<f32>
  %0 = tg.mul %x, %k : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tg.mul %0, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tg.exp %unused : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A state that no batch normalization updates (the statistics of an
// inference-mode BatchNorm) is returned unchanged; the running statistics
// that feed only the running averages need no gradient.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[M:[^:]*]]: tensor<2xf32> {tg.state = "bn.mean"}, %[[V:[^:]*]]: tensor<2xf32> {tg.state = "bn.var"}
// CHECK-NOT: tg.batch_norm_backward
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[V]], %{{.*}}, %{{.*}} :
func.func @main(%x: tensor<1x2x2x2xf32> {tg.input = "x"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %m: tensor<2xf32> {tg.state = "bn.mean"},
                %v: tensor<2xf32> {tg.state = "bn.var"})
    -> (tensor<1x2x2x2xf32> {tg.output = "y"}) {
  %0 = tg.batch_norm_inference %x, %s, %b, %m, %v
      : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
