// RUN: memopt-opt %s -tg-autodiff=loss=ce -memopt-set-target=target=cpu -tg-schedule -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff=loss=mse -memopt-set-target=target=cpu -tg-schedule -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=MSE

// The kernel calls of the segmentation ops: operands, results, then the
// attributes (alpha/beta, axis, epsilon). A cross-entropy target holds
// label maps: the Program records the class count, which the trainer
// checks every label against; an image target records 0.

func.func @main(%x: tensor<2x4x3x3xf32> {tg.input = "input"},
                %s: tensor<4xf32> {tg.param = "s"},
                %b: tensor<4xf32> {tg.param = "b"},
                %a: tensor<4x1x1xf32> {tg.param = "a"})
    -> (tensor<2x4x3x3xf32> {tg.output = "output"}) {
  %y, %m, %i = tg.instance_norm %x, %s, %b
      : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x3x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  %0 = tg.hard_swish %y : tensor<2x4x3x3xf32>
  %1 = tg.prelu %0, %a : (tensor<2x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<2x4x3x3xf32>
  %2 = tg.elu %1 {alpha = 0.5} : tensor<2x4x3x3xf32>
  %3 = tg.hard_sigmoid %2 {alpha = 0.2, beta = 0.5} : tensor<2x4x3x3xf32>
  %4 = tg.softplus %3 : tensor<2x4x3x3xf32>
  %5 = tg.erf %4 : tensor<2x4x3x3xf32>
  %6 = tg.log_softmax %5 {axis = 1} : tensor<2x4x3x3xf32>
  %7 = tg.softmax %6 {axis = 1} : tensor<2x4x3x3xf32>
  return %7 : tensor<2x4x3x3xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::instanceNorm(input, s, b, [[Y:[a-z_0-9]+]], [[M:[a-z_0-9]+]], [[I:[a-z_0-9]+]], 1e-05);
// CHECK: memopt::rt::hardSwish([[Y]], [[HS:[a-z_0-9]+]]);
// CHECK: memopt::rt::prelu([[HS]], a, [[P:[a-z_0-9]+]]);
// CHECK: memopt::rt::elu([[P]], [[E:[a-z_0-9]+]], 0.5);
// CHECK: memopt::rt::hardSigmoid([[E]], [[HG:[a-z_0-9]+]], 0.2, 0.5);
// CHECK: memopt::rt::softplus([[HG]], [[SP:[a-z_0-9]+]]);
// CHECK: memopt::rt::erf([[SP]], [[ERF:[a-z_0-9]+]]);
// CHECK: memopt::rt::logSoftmax([[ERF]], [[LS:[a-z_0-9]+]], 1);
// CHECK: memopt::rt::softmax([[LS]], output, 1);
// CHECK: memopt::rt::crossEntropyLoss(output, target, loss);
// CHECK: memopt::rt::crossEntropyLossBackward({{[a-z_0-9]+}}, output, target, [[D0:[a-z_0-9]+]]);
// CHECK: memopt::rt::softmaxBackward([[D0]], output, [[D1:[a-z_0-9]+]], 1);
// CHECK: memopt::rt::logSoftmaxBackward([[D1]], [[LS]], [[D2:[a-z_0-9]+]], 1);
// CHECK: memopt::rt::erfBackward([[D2]], [[SP]], [[D3:[a-z_0-9]+]]);
// CHECK: memopt::rt::softplusBackward([[D3]], [[HG]], [[D4:[a-z_0-9]+]]);
// CHECK: memopt::rt::hardSigmoidBackward([[D4]], [[E]], [[D5:[a-z_0-9]+]], 0.2, 0.5);
// CHECK: memopt::rt::eluBackward([[D5]], [[P]], [[D6:[a-z_0-9]+]], 0.5);
// CHECK: memopt::rt::preluBackward([[D6]], [[HS]], a, [[D7:[a-z_0-9]+]]);
// CHECK: memopt::rt::hardSwishBackward([[D7]], [[Y]], [[D8:[a-z_0-9]+]]);
// CHECK: memopt::rt::instanceNormBackward([[D8]], input, s, [[M]], [[I]], {{.*}});
// CHECK: /*targetClasses=*/4,

// MSE: memopt::rt::mseLoss(
// MSE: /*targetClasses=*/0,
