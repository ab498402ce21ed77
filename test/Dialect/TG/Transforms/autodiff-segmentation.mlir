// RUN: memopt-opt %s -tg-autodiff=loss=ce | FileCheck %s --check-prefix=CE
// RUN: memopt-opt %s -tg-autodiff=loss=dice | FileCheck %s --check-prefix=DICE

// Gradient rules of the segmentation ops, in reverse forward order, and the
// segmentation losses: the target is a class map (the output's shape
// without axis 1). Dice of one channel (a mask target) is in
// autodiff-losses.mlir.

// CE-LABEL: func.func @train_step(
// CE-SAME: %[[X:[^:]*]]: tensor<2x4x3x3xf32> {tg.input = "input"}, %[[T:[^:]*]]: tensor<2x3x3xf32> {tg.target = "target"}, %[[S:[^:]*]]: tensor<4xf32> {tg.param = "s"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "b"}, %[[A:[^:]*]]: tensor<4x1x1xf32> {tg.param = "a"})
// CE: %[[Y:.*]], %[[M:.*]], %[[I:.*]] = tg.instance_norm %[[X]], %[[S]], %[[B]]
// CE: %[[HS:.*]] = tg.hard_swish %[[Y]]
// CE: %[[P:.*]] = tg.prelu %[[HS]], %[[A]]
// CE: %[[E:.*]] = tg.elu %[[P]] {alpha = 5.000000e-01 : f64}
// CE: %[[HG:.*]] = tg.hard_sigmoid %[[E]]
// CE: %[[SP:.*]] = tg.softplus %[[HG]]
// CE: %[[ERF:.*]] = tg.erf %[[SP]]
// CE: %[[LS:.*]] = tg.log_softmax %[[ERF]] {axis = 1 : i64}
// CE: %[[SM:.*]] = tg.softmax %[[LS]] {axis = 1 : i64}
// CE: %[[LOSS:.*]] = tg.cross_entropy_loss %[[SM]], %[[T]] : (tensor<2x4x3x3xf32>, tensor<2x3x3xf32>) -> tensor<f32>
// CE: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CE: %[[D0:.*]] = tg.cross_entropy_loss_backward %[[ONE]], %[[SM]], %[[T]]
// CE: %[[D1:.*]] = tg.softmax_backward %[[D0]], %[[SM]] {axis = 1 : i64}
// CE: %[[D2:.*]] = tg.log_softmax_backward %[[D1]], %[[LS]] {axis = 1 : i64}
// CE: %[[D3:.*]] = tg.erf_backward %[[D2]], %[[SP]]
// CE: %[[D4:.*]] = tg.softplus_backward %[[D3]], %[[HG]]
// CE: %[[D5:.*]] = tg.hard_sigmoid_backward %[[D4]], %[[E]]
// CE: %[[D6:.*]] = tg.elu_backward %[[D5]], %[[P]] {alpha = 5.000000e-01 : f64}
// CE: %[[D7:.*]] = tg.prelu_backward %[[D6]], %[[HS]], %[[A]]
// The slope's gradient: dy * min(x, 0), with min(x, 0) = x - relu(x).
// CE: %[[R:.*]] = tg.relu %[[HS]]
// CE: %[[NEGPART:.*]] = tg.sub %[[HS]], %[[R]]
// CE: %[[DA:.*]] = tg.mul %[[D6]], %[[NEGPART]]
// CE: %[[DAS:.*]] = tg.reduce_sum %[[DA]] {axes = array<i64: 0, 2, 3>}
// CE: %[[DAR:.*]] = tg.reshape %[[DAS]] {shape = array<i64: 4, 1, 1>}
// CE: %[[D8:.*]] = tg.hard_swish_backward %[[D7]], %[[Y]]
// CE: %{{.*}}, %[[GS:.*]], %[[GB:.*]] = tg.instance_norm_backward %[[D8]], %[[X]], %[[S]], %[[M]], %[[I]]
// CE: tg.sgd_update %[[S]], %[[GS]]
// CE: tg.sgd_update %[[B]], %[[GB]]
// CE: tg.sgd_update %[[A]], %[[DAR]]
// CE: return %[[LOSS]]

// DICE-LABEL: func.func @train_step(
// DICE-SAME: %[[T:[^:]*]]: tensor<2x3x3xf32> {tg.target = "target"}
// DICE: %[[SM:.*]] = tg.softmax
// DICE: %[[LOSS:.*]] = tg.dice_loss %[[SM]], %[[T]] : (tensor<2x4x3x3xf32>, tensor<2x3x3xf32>) -> tensor<f32>
// DICE: tg.dice_loss_backward %{{.*}}, %[[SM]], %[[T]] : (tensor<f32>, tensor<2x4x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x4x3x3xf32>
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
