// RUN: memopt-opt %s -tg-autodiff | FileCheck %s --check-prefix=SGD
// RUN: memopt-opt %s -tg-autodiff='optimizer=sgd lr=0.1 momentum=0.9 dampening=0.1 weight-decay=1e-4' | FileCheck %s --check-prefix=MOMENTUM
// RUN: memopt-opt %s -tg-autodiff='optimizer=sgd momentum=0.9 nesterov=true' | FileCheck %s --check-prefix=NESTEROV
// RUN: memopt-opt %s -tg-autodiff='optimizer=adam' | FileCheck %s --check-prefix=ADAM
// RUN: memopt-opt %s -tg-autodiff='optimizer=adamw lr=0.01 beta1=0.8 beta2=0.99 eps=1e-6 weight-decay=0.01' | FileCheck %s --check-prefix=ADAMW

// One update per parameter with torch.optim's state: none for plain SGD, a
// momentum buffer for SGD with momentum, exp_avg and exp_avg_sq for Adam.
// The step number is an argument when the update reads it.

// Plain SGD (lr defaults to 1e-3, the update's default, so it is elided).
// SGD-LABEL: func.func @train_step(
// SGD-SAME: %[[W:[^:]*]]: tensor<3x2xf32> {tg.param = "fc.weight"}, %[[B:[^:]*]]: tensor<3xf32> {tg.param = "fc.bias"})
// SGD-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<1x3xf32> {tg.output = "y"}, tensor<3x2xf32> {tg.param = "fc.weight"}, tensor<3xf32> {tg.param = "fc.bias"})
// SGD: %[[W1:.*]] = tg.sgd_update %[[W]], %{{.*}} : tensor<3x2xf32>
// SGD-NEXT: %[[B1:.*]] = tg.sgd_update %[[B]], %{{.*}} : tensor<3xf32>
// SGD-NEXT: return %{{.*}}, %{{.*}}, %[[W1]], %[[B1]]

// MOMENTUM-LABEL: func.func @train_step(
// MOMENTUM-SAME: %[[W:[^:]*]]: tensor<3x2xf32> {tg.param = "fc.weight"}, %[[B:[^:]*]]: tensor<3xf32> {tg.param = "fc.bias"},
// MOMENTUM-SAME: %[[WBUF:[^:]*]]: tensor<3x2xf32> {tg.opt_state = "fc.weight.momentum_buffer"}, %[[BBUF:[^:]*]]: tensor<3xf32> {tg.opt_state = "fc.bias.momentum_buffer"},
// MOMENTUM-SAME: %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"})
// MOMENTUM-SAME: -> (tensor<f32> {tg.output = "loss"}, tensor<1x3xf32> {tg.output = "y"}, tensor<3x2xf32> {tg.param = "fc.weight"}, tensor<3xf32> {tg.param = "fc.bias"}, tensor<3x2xf32> {tg.opt_state = "fc.weight.momentum_buffer"}, tensor<3xf32> {tg.opt_state = "fc.bias.momentum_buffer"})
// MOMENTUM: %[[W1:.*]], %[[WBUF1:.*]] = tg.sgd_update %[[W]], %{{.*}}, %[[WBUF]], step %[[STEP]] {dampening = 1.000000e-01 : f64, lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, weight_decay = 1.000000e-04 : f64} : tensor<3x2xf32>
// MOMENTUM-NEXT: %[[B1:.*]], %[[BBUF1:.*]] = tg.sgd_update %[[B]], %{{.*}}, %[[BBUF]], step %[[STEP]] {{.*}} : tensor<3xf32>
// MOMENTUM-NEXT: return %{{.*}}, %{{.*}}, %[[W1]], %[[B1]], %[[WBUF1]], %[[BBUF1]]

// NESTEROV: tg.sgd_update {{.*}} {momentum = 9.000000e-01 : f64, nesterov = true} : tensor<3x2xf32>

// ADAM-LABEL: func.func @train_step(
// ADAM-SAME: %[[W:[^:]*]]: tensor<3x2xf32> {tg.param = "fc.weight"}, %[[B:[^:]*]]: tensor<3xf32> {tg.param = "fc.bias"},
// ADAM-SAME: %[[WM:[^:]*]]: tensor<3x2xf32> {tg.opt_state = "fc.weight.exp_avg"}, %[[WV:[^:]*]]: tensor<3x2xf32> {tg.opt_state = "fc.weight.exp_avg_sq"},
// ADAM-SAME: %[[BM:[^:]*]]: tensor<3xf32> {tg.opt_state = "fc.bias.exp_avg"}, %[[BV:[^:]*]]: tensor<3xf32> {tg.opt_state = "fc.bias.exp_avg_sq"},
// ADAM-SAME: %[[STEP:[^:]*]]: tensor<i64> {tg.step = "step"})
// ADAM-SAME: tensor<3x2xf32> {tg.opt_state = "fc.weight.exp_avg"}, tensor<3x2xf32> {tg.opt_state = "fc.weight.exp_avg_sq"}, tensor<3xf32> {tg.opt_state = "fc.bias.exp_avg"}, tensor<3xf32> {tg.opt_state = "fc.bias.exp_avg_sq"})
// ADAM: %[[W1:.*]], %[[WM1:.*]], %[[WV1:.*]] = tg.adam_update %[[W]], %{{.*}}, %[[WM]], %[[WV]], step %[[STEP]] : tensor<3x2xf32>
// ADAM-NEXT: %[[B1:.*]], %[[BM1:.*]], %[[BV1:.*]] = tg.adam_update %[[B]], %{{.*}}, %[[BM]], %[[BV]], step %[[STEP]] : tensor<3xf32>
// ADAM-NEXT: return %{{.*}}, %{{.*}}, %[[W1]], %[[B1]], %[[WM1]], %[[WV1]], %[[BM1]], %[[BV1]]

// ADAMW: tg.adam_update {{.*}} {beta1 = 8.000000e-01 : f64, beta2 = 0.98999999999999999 : f64, decoupled = true, eps = 9.9999999999999995E-7 : f64, lr = 1.000000e-02 : f64, weight_decay = 1.000000e-02 : f64} : tensor<3x2xf32>
func.func @main(%x: tensor<1x2xf32> {tg.input = "x"},
                %w: tensor<3x2xf32> {tg.param = "fc.weight"},
                %b: tensor<3xf32> {tg.param = "fc.bias"})
    -> (tensor<1x3xf32> {tg.output = "y"}) {
  %0 = tg.gemm %x, %w, %b {trans_b = true}
      : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
