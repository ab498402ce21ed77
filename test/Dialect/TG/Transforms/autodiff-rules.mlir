// RUN: memopt-opt %s -tg-autodiff -split-input-file | FileCheck %s

// The backward rule of every forward op, one section per op family. Each
// function is differentiated with the default loss (mse) and optimizer
// (sgd); the checks follow the gradient from the loss back to the
// parameters. Only values that depend on a parameter get a gradient.

// conv: the first convolution reads the data input, which needs no
// gradient, so it has no backward_data; the bias gradient sums over N, H, W.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x8x8xf32> {tg.input = "x"}, %[[T:[^:]*]]: tensor<1x4x4x4xf32> {tg.target = "target"}, %[[W1:[^:]*]]: tensor<4x2x3x3xf32> {tg.param = "conv1.weight"}, %[[W2:[^:]*]]: tensor<4x4x1x1xf32> {tg.param = "conv2.weight"}, %[[B2:[^:]*]]: tensor<4xf32> {tg.param = "conv2.bias"})
// CHECK: %[[C1:.*]] = tg.conv %[[X]], %[[W1]]
// CHECK: %[[C2:.*]] = tg.conv %[[C1]], %[[W2]], %[[B2]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DC1:.*]] = tg.conv_backward_data %[[DY]], %[[W2]] {input_shape = array<i64: 1, 4, 4, 4>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[DW2:.*]] = tg.conv_backward_filter %[[DY]], %[[C1]] {weight_shape = array<i64: 4, 4, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<4x4x1x1xf32>
// CHECK-NEXT: %[[DB2:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2, 3>, keepdims = false} : (tensor<1x4x4x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[DW1:.*]] = tg.conv_backward_filter %[[DC1]], %[[X]] {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, weight_shape = array<i64: 4, 2, 3, 3>} : (tensor<1x4x4x4xf32>, tensor<1x2x8x8xf32>) -> tensor<4x2x3x3xf32>
// CHECK-NOT: tg.conv_backward_data
// CHECK: tg.sgd_update %[[W1]], %[[DW1]]
// CHECK: tg.sgd_update %[[W2]], %[[DW2]]
// CHECK: tg.sgd_update %[[B2]], %[[DB2]]
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "x"},
                %w1: tensor<4x2x3x3xf32> {tg.param = "conv1.weight"},
                %w2: tensor<4x4x1x1xf32> {tg.param = "conv2.weight"},
                %b2: tensor<4xf32> {tg.param = "conv2.bias"})
    -> (tensor<1x4x4x4xf32> {tg.output = "y"}) {
  %0 = tg.conv %x, %w1 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %1 = tg.conv %0, %w2, %b2
      : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// -----

// conv_transpose: the data gradient is a conv with the same weight.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x8x4x4xf32> {tg.param = "p"}, %[[W:[^:]*]]: tensor<8x4x2x2xf32> {tg.param = "up.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "up.bias"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.conv %[[DY]], %[[W]] {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[DW:.*]] = tg.conv_transpose_backward_filter %[[DY]], %[[P]] {strides = array<i64: 2, 2>, weight_shape = array<i64: 8, 4, 2, 2>} : (tensor<1x4x8x8xf32>, tensor<1x8x4x4xf32>) -> tensor<8x4x2x2xf32>
// CHECK-NEXT: %[[DB:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2, 3>, keepdims = false} : (tensor<1x4x8x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
// CHECK-NEXT: tg.sgd_update %[[W]], %[[DW]]
// CHECK-NEXT: tg.sgd_update %[[B]], %[[DB]]
func.func @main(%p: tensor<1x8x4x4xf32> {tg.param = "p"},
                %w: tensor<8x4x2x2xf32> {tg.param = "up.weight"},
                %b: tensor<4xf32> {tg.param = "up.bias"})
    -> (tensor<1x4x8x8xf32> {tg.output = "y"}) {
  %0 = tg.conv_transpose %p, %w, %b {strides = array<i64: 2, 2>}
      : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// batch_norm (training): one batch_norm_backward for input, scale and bias.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x4x3x3xf32> {tg.param = "p"}, %[[S:[^:]*]]: tensor<4xf32> {tg.param = "bn.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "bn.bias"}
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[MEAN:.*]], %[[INVSTD:.*]] = tg.batch_norm %[[P]], %[[S]], %[[B]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]], %[[DS:.*]], %[[DB:.*]] = tg.batch_norm_backward %[[DY]], %[[P]], %[[S]], %[[MEAN]], %[[INVSTD]]
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
// CHECK-NEXT: tg.sgd_update %[[S]], %[[DS]]
// CHECK-NEXT: tg.sgd_update %[[B]], %[[DB]]
func.func @main(%p: tensor<2x4x3x3xf32> {tg.param = "p"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %m: tensor<4xf32> {tg.state = "bn.running_mean"},
                %v: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x3x3xf32> {tg.output = "y"}) {
  %0:5 = tg.batch_norm %p, %s, %b, %m, %v
      : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<2x4x3x3xf32>
}

// -----

// batch_norm_inference: dx = dy * scale / sqrt(var + eps) per channel,
// dscale = sum(dy * (x - mean)) / sqrt(var + eps), dbias = sum(dy).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x4x3x3xf32> {tg.param = "p"}, %[[S:[^:]*]]: tensor<4xf32> {tg.param = "bn.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "bn.bias"}, %[[M:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_mean"}, %[[V:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_var"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[EPS:.*]] = tg.constant dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT: %[[VE:.*]] = tg.add %[[V]], %[[EPS]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %[[STD:.*]] = tg.sqrt %[[VE]] : tensor<4xf32>
// CHECK-NEXT: %[[K:.*]] = tg.div %[[S]], %[[STD]]
// CHECK-NEXT: %[[KR:.*]] = tg.reshape %[[K]] {shape = array<i64: 4, 1, 1>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.mul %[[DY]], %[[KR]] : (tensor<2x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT: %[[MR:.*]] = tg.reshape %[[M]] {shape = array<i64: 4, 1, 1>}
// CHECK-NEXT: %[[XM:.*]] = tg.sub %[[P]], %[[MR]]
// CHECK-NEXT: %[[PROD:.*]] = tg.mul %[[DY]], %[[XM]]
// CHECK-NEXT: %[[SUM:.*]] = tg.reduce_sum %[[PROD]] {axes = array<i64: 0, 2, 3>, keepdims = false} : (tensor<2x4x3x3xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[DS:.*]] = tg.div %[[SUM]], %[[STD]]
// CHECK-NEXT: %[[DB:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2, 3>, keepdims = false} : (tensor<2x4x3x3xf32>) -> tensor<4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
// CHECK-NEXT: tg.sgd_update %[[S]], %[[DS]]
// CHECK-NEXT: tg.sgd_update %[[B]], %[[DB]]
func.func @main(%p: tensor<2x4x3x3xf32> {tg.param = "p"},
                %s: tensor<4xf32> {tg.param = "bn.weight"},
                %b: tensor<4xf32> {tg.param = "bn.bias"},
                %m: tensor<4xf32> {tg.state = "bn.running_mean"},
                %v: tensor<4xf32> {tg.state = "bn.running_var"})
    -> (tensor<2x4x3x3xf32> {tg.output = "y"}) {
  %0 = tg.batch_norm_inference %p, %s, %b, %m, %v {epsilon = 1.0e-3 : f64}
      : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// -----

// Activations: relu, sigmoid and tanh read their output; leaky_relu and
// clip their input.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x3xf32> {tg.param = "p"}
// CHECK: %[[R:.*]] = tg.relu %[[P]]
// CHECK-NEXT: %[[S:.*]] = tg.sigmoid %[[R]]
// CHECK-NEXT: %[[T:.*]] = tg.tanh %[[S]]
// CHECK-NEXT: %[[L:.*]] = tg.leaky_relu %[[T]]
// CHECK-NEXT: %[[C:.*]] = tg.clip %[[L]]
// CHECK: %[[DC:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DL:.*]] = tg.clip_backward %[[DC]], %[[L]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
// CHECK-NEXT: %[[DT:.*]] = tg.leaky_relu_backward %[[DL]], %[[T]] {alpha = 2.000000e-01 : f64} : tensor<2x3xf32>
// CHECK-NEXT: %[[DS:.*]] = tg.tanh_backward %[[DT]], %[[T]] : tensor<2x3xf32>
// CHECK-NEXT: %[[DR:.*]] = tg.sigmoid_backward %[[DS]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.relu_backward %[[DR]], %[[R]] : tensor<2x3xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x3xf32> {tg.param = "p"})
    -> (tensor<2x3xf32> {tg.output = "y"}) {
  %0 = tg.relu %p : tensor<2x3xf32>
  %1 = tg.sigmoid %0 : tensor<2x3xf32>
  %2 = tg.tanh %1 : tensor<2x3xf32>
  %3 = tg.leaky_relu %2 {alpha = 0.2 : f64} : tensor<2x3xf32>
  %4 = tg.clip %3 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// -----

// neg, exp, log, sqrt, abs with elementwise ops: d|x| = dy * sign(x),
// d sqrt = dy / (2 * y), d log = dy / x, d exp = dy * y, d(-x) = -dy.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x3xf32> {tg.param = "p"}
// CHECK: %[[N:.*]] = tg.neg %[[P]]
// CHECK-NEXT: %[[E:.*]] = tg.exp %[[N]]
// CHECK-NEXT: %[[L:.*]] = tg.log %[[E]]
// CHECK-NEXT: %[[Q:.*]] = tg.sqrt %[[L]]
// CHECK-NEXT: %[[A:.*]] = tg.abs %[[Q]]
// CHECK: %[[DA:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[SIGN:.*]] = tg.sign %[[Q]]
// CHECK-NEXT: %[[DQ:.*]] = tg.mul %[[DA]], %[[SIGN]]
// CHECK-NEXT: %[[TWO:.*]] = tg.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[TWOY:.*]] = tg.mul %[[Q]], %[[TWO]]
// CHECK-NEXT: %[[DL:.*]] = tg.div %[[DQ]], %[[TWOY]]
// CHECK-NEXT: %[[DE:.*]] = tg.div %[[DL]], %[[E]]
// CHECK-NEXT: %[[DN:.*]] = tg.mul %[[DE]], %[[E]]
// CHECK-NEXT: %[[DP:.*]] = tg.neg %[[DN]]
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x3xf32> {tg.param = "p"})
    -> (tensor<2x3xf32> {tg.output = "y"}) {
  %0 = tg.neg %p : tensor<2x3xf32>
  %1 = tg.exp %0 : tensor<2x3xf32>
  %2 = tg.log %1 : tensor<2x3xf32>
  %3 = tg.sqrt %2 : tensor<2x3xf32>
  %4 = tg.abs %3 : tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// -----

// Broadcasting add, mul, sub, div: each gradient is summed over the axes
// its operand was broadcast along and reshaped to the operand's shape. The
// data input %x needs no gradient.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x3x3xf32> {tg.input = "x"}, %{{[^:]*}}: tensor<2x4x3x3xf32> {tg.target = "target"}, %[[B:[^:]*]]: tensor<4x1x1xf32> {tg.param = "b"}, %[[S:[^:]*]]: tensor<1x4x1x1xf32> {tg.param = "s"}, %[[D:[^:]*]]: tensor<3xf32> {tg.param = "d"})
// CHECK: %[[ADD:.*]] = tg.add %[[X]], %[[B]]
// CHECK-NEXT: %[[MUL:.*]] = tg.mul %[[ADD]], %[[S]]
// CHECK-NEXT: %[[SUB:.*]] = tg.sub %[[MUL]], %[[D]]
// CHECK-NEXT: %[[DIV:.*]] = tg.div %[[X]], %[[SUB]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[Q:.*]] = tg.div %[[DIV]], %[[SUB]]
// CHECK-NEXT: %[[DQ:.*]] = tg.mul %[[DY]], %[[Q]]
// CHECK-NEXT: %[[DSUB:.*]] = tg.neg %[[DQ]] : tensor<2x4x3x3xf32>
// CHECK-NEXT: %[[SUMD:.*]] = tg.reduce_sum %[[DSUB]] {axes = array<i64: 0, 1, 2>} : (tensor<2x4x3x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NEXT: %[[RD:.*]] = tg.reshape %[[SUMD]] {shape = array<i64: 3>} : (tensor<1x1x1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[DD:.*]] = tg.neg %[[RD]] : tensor<3xf32>
// CHECK-NEXT: %[[DADD:.*]] = tg.mul %[[DSUB]], %[[S]] : (tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT: %[[PS:.*]] = tg.mul %[[DSUB]], %[[ADD]]
// CHECK-NEXT: %[[DS:.*]] = tg.reduce_sum %[[PS]] {axes = array<i64: 0, 2, 3>} : (tensor<2x4x3x3xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: %[[SUMB:.*]] = tg.reduce_sum %[[DADD]] {axes = array<i64: 0, 2, 3>} : (tensor<2x4x3x3xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: %[[DB:.*]] = tg.reshape %[[SUMB]] {shape = array<i64: 4, 1, 1>} : (tensor<1x4x1x1xf32>) -> tensor<4x1x1xf32>
// CHECK-NEXT: tg.sgd_update %[[B]], %[[DB]]
// CHECK-NEXT: tg.sgd_update %[[S]], %[[DS]]
// CHECK-NEXT: tg.sgd_update %[[D]], %[[DD]]
func.func @main(%x: tensor<2x4x3x3xf32> {tg.input = "x"},
                %b: tensor<4x1x1xf32> {tg.param = "b"},
                %s: tensor<1x4x1x1xf32> {tg.param = "s"},
                %d: tensor<3xf32> {tg.param = "d"})
    -> (tensor<2x4x3x3xf32> {tg.output = "y"}) {
  %0 = tg.add %x, %b : (tensor<2x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<2x4x3x3xf32>
  %1 = tg.mul %0, %s : (tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x3x3xf32>
  %2 = tg.sub %1, %d : (tensor<2x4x3x3xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  %3 = tg.div %x, %2 : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  return %3 : tensor<2x4x3x3xf32>
}

// -----

// dropout: the gradient is multiplied by the mask.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x8xf32> {tg.param = "p"}
// CHECK: %{{.*}}, %[[MASK:.*]] = tg.dropout %[[P]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.mul %[[DY]], %[[MASK]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x8xf32> {tg.param = "p"})
    -> (tensor<2x8xf32> {tg.output = "y"}) {
  %0, %mask = tg.dropout %p {ratio = 0.5 : f64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Pooling: global average pooling divides by H * W and broadcasts; the
// window poolings have their backward ops.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x8x8xf32> {tg.param = "p"}
// CHECK: %[[MAX:.*]] = tg.max_pool %[[P]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[HW:.*]] = tg.constant dense<4.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DIV:.*]] = tg.div %[[DY]], %[[HW]] : (tensor<1x2x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT: %[[DAVG:.*]] = tg.broadcast %[[DIV]] {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT: %[[DMAX:.*]] = tg.avg_pool_backward %[[DAVG]] {input_shape = array<i64: 1, 2, 4, 4>, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.max_pool_backward %[[DMAX]], %[[P]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<1x2x8x8xf32> {tg.param = "p"})
    -> (tensor<1x2x1x1xf32> {tg.output = "y"}) {
  %0 = tg.max_pool %p {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                         pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %1 = tg.avg_pool %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %2 = tg.global_avg_pool %1 : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  return %2 : tensor<1x2x1x1xf32>
}

// -----

// resize: resize_backward with the forward attributes and the input shape.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x4x4xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.resize_backward %[[DY]] {coordinate_mode = #tg<coordinate_mode asymmetric>, input_shape = array<i64: 1, 2, 4, 4>, mode = #tg<resize_mode nearest>, nearest_mode = #tg<nearest_mode floor>, scales = array<f64: 2.000000e+00, 2.000000e+00>, sizes = array<i64: 8, 8>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<1x2x4x4xf32> {tg.param = "p"})
    -> (tensor<1x2x8x8xf32> {tg.output = "y"}) {
  %0 = tg.resize %p {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode asymmetric>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// concat and slice: slice_backward, then a slice per concatenated operand
// that needs a gradient (not the data input in the middle).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x4x4xf32> {tg.param = "p"}, %[[Q:[^:]*]]: tensor<1x1x4x4xf32> {tg.param = "q"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DC:.*]] = tg.slice_backward %[[DY]] {ends = array<i64: 1, 6, 4, 4>, input_shape = array<i64: 1, 6, 4, 4>, starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 2>} : (tensor<1x6x2x2xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.slice %[[DC]] {ends = array<i64: 1, 2, 4, 4>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[DQ:.*]] = tg.slice %[[DC]] {ends = array<i64: 1, 6, 4, 4>, starts = array<i64: 0, 5, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
// CHECK-NEXT: tg.sgd_update %[[Q]], %[[DQ]]
func.func @main(%x: tensor<1x3x4x4xf32> {tg.input = "x"},
                %p: tensor<1x2x4x4xf32> {tg.param = "p"},
                %q: tensor<1x1x4x4xf32> {tg.param = "q"})
    -> (tensor<1x6x2x2xf32> {tg.output = "y"}) {
  %0 = tg.concat %p, %x, %q {axis = 1 : i64}
      : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x6x4x4xf32>
  %1 = tg.slice %0 {starts = array<i64: 0, 0, 1, 0>, ends = array<i64: 1, 6, 4, 4>,
                    steps = array<i64: 1, 1, 2, 2>}
      : (tensor<1x6x4x4xf32>) -> tensor<1x6x2x2xf32>
  return %1 : tensor<1x6x2x2xf32>
}

// -----

// Constant pad, reshape, transpose: a slice of the unpadded region, the
// inverse reshape and the inverse permutation.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x4x4xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[D2:.*]] = tg.reshape %[[DY]] {shape = array<i64: 2, 7, 6>} : (tensor<2x1x6x7xf32>) -> tensor<2x7x6xf32>
// CHECK-NEXT: %[[D1:.*]] = tg.transpose %[[D2]] {perm = array<i64: 0, 2, 1>} : (tensor<2x7x6xf32>) -> tensor<2x6x7xf32>
// CHECK-NEXT: %[[D0:.*]] = tg.reshape %[[D1]] {shape = array<i64: 1, 2, 6, 7>} : (tensor<2x6x7xf32>) -> tensor<1x2x6x7xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.slice %[[D0]] {ends = array<i64: 1, 2, 5, 6>, starts = array<i64: 0, 0, 1, 2>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x7xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<1x2x4x4xf32> {tg.param = "p"})
    -> (tensor<2x1x6x7xf32> {tg.output = "y"}) {
  %0 = tg.pad %p {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>, value = 0.5 : f64}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x7xf32>
  %1 = tg.reshape %0 {shape = array<i64: 2, 6, 7>} : (tensor<1x2x6x7xf32>) -> tensor<2x6x7xf32>
  %2 = tg.transpose %1 {perm = array<i64: 0, 2, 1>} : (tensor<2x6x7xf32>) -> tensor<2x7x6xf32>
  %3 = tg.reshape %2 {shape = array<i64: 2, 1, 6, 7>} : (tensor<2x7x6xf32>) -> tensor<2x1x6x7xf32>
  return %3 : tensor<2x1x6x7xf32>
}

// -----

// broadcast (ONNX Expand of a run-time value): the gradient sums the
// repeated axes back, the leading one and the size-1 one, keeping the
// input's shape (PyTorch's sum_to_size).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<3x1x5xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[S:.*]] = tg.reduce_sum %[[DY]] {axes = array<i64: 0, 2>} : (tensor<2x3x4x5xf32>) -> tensor<1x3x1x5xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.reshape %[[S]] {shape = array<i64: 3, 1, 5>} : (tensor<1x3x1x5xf32>) -> tensor<3x1x5xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<3x1x5xf32> {tg.param = "p"})
    -> (tensor<2x3x4x5xf32> {tg.output = "y"}) {
  %0 = tg.broadcast %p {shape = array<i64: 2, 3, 4, 5>} : (tensor<3x1x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Edge (replicate) pad of a 3-D volume: tg.pad_backward adds each border's
// gradient onto the element it repeats.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x3x4x4xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.pad_backward %[[DY]] {input_shape = array<i64: 1, 2, 3, 4, 4>, mode = #tg<pad_mode edge>, pads = array<i64: 0, 0, 1, 2, 0, 0, 0, 1, 1, 3>} : (tensor<1x2x5x7x7xf32>) -> tensor<1x2x3x4x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<1x2x3x4x4xf32> {tg.param = "p"})
    -> (tensor<1x2x5x7x7xf32> {tg.output = "y"}) {
  %0 = tg.pad %p {pads = array<i64: 0, 0, 1, 2, 0, 0, 0, 1, 1, 3>, mode = #tg<pad_mode edge>}
      : (tensor<1x2x3x4x4xf32>) -> tensor<1x2x5x7x7xf32>
  return %0 : tensor<1x2x5x7x7xf32>
}

// -----

// Reflect pad of a 1-D signal: tg.pad_backward adds each mirrored
// position's gradient onto the element it mirrors.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x5xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DP:.*]] = tg.pad_backward %[[DY]] {input_shape = array<i64: 1, 2, 5>, mode = #tg<pad_mode reflect>, pads = array<i64: 0, 0, 2, 0, 0, 4>} : (tensor<1x2x11xf32>) -> tensor<1x2x5xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<1x2x5xf32> {tg.param = "p"})
    -> (tensor<1x2x11xf32> {tg.output = "y"}) {
  %0 = tg.pad %p {pads = array<i64: 0, 0, 2, 0, 0, 4>, mode = #tg<pad_mode reflect>}
      : (tensor<1x2x5xf32>) -> tensor<1x2x11xf32>
  return %0 : tensor<1x2x11xf32>
}

// -----

// An edge pad of width 0 (MONAI's replicate padding of a 1x1 conv) is the
// identity: its gradient is the result gradient itself.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x2x4x4xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DY]]
func.func @main(%p: tensor<1x2x4x4xf32> {tg.param = "p"})
    -> (tensor<1x2x4x4xf32> {tg.output = "y"}) {
  %0 = tg.pad %p {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, mode = #tg<pad_mode edge>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// matmul with broadcast batch axes: da = dy * b^T, db = a^T * dy, each
// summed over the batch axes its operand was broadcast along.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<5x3x4xf32> {tg.input = "x"}, %{{[^:]*}}: tensor<5x3x6xf32> {tg.target = "target"}, %[[W:[^:]*]]: tensor<4x2xf32> {tg.param = "w"}, %[[V:[^:]*]]: tensor<1x2x6xf32> {tg.param = "v"})
// CHECK: %[[H:.*]] = tg.matmul %[[X]], %[[W]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[VT:.*]] = tg.transpose %[[V]] {perm = array<i64: 0, 2, 1>} : (tensor<1x2x6xf32>) -> tensor<1x6x2xf32>
// CHECK-NEXT: %[[DH:.*]] = tg.matmul %[[DY]], %[[VT]] : (tensor<5x3x6xf32>, tensor<1x6x2xf32>) -> tensor<5x3x2xf32>
// CHECK-NEXT: %[[HT:.*]] = tg.transpose %[[H]] {perm = array<i64: 0, 2, 1>} : (tensor<5x3x2xf32>) -> tensor<5x2x3xf32>
// CHECK-NEXT: %[[DVB:.*]] = tg.matmul %[[HT]], %[[DY]] : (tensor<5x2x3xf32>, tensor<5x3x6xf32>) -> tensor<5x2x6xf32>
// CHECK-NEXT: %[[DV:.*]] = tg.reduce_sum %[[DVB]] {axes = array<i64: 0>} : (tensor<5x2x6xf32>) -> tensor<1x2x6xf32>
// CHECK-NEXT: %[[XT:.*]] = tg.transpose %[[X]] {perm = array<i64: 0, 2, 1>} : (tensor<5x3x4xf32>) -> tensor<5x4x3xf32>
// CHECK-NEXT: %[[DWB:.*]] = tg.matmul %[[XT]], %[[DH]] : (tensor<5x4x3xf32>, tensor<5x3x2xf32>) -> tensor<5x4x2xf32>
// CHECK-NEXT: %[[DWS:.*]] = tg.reduce_sum %[[DWB]] {axes = array<i64: 0>} : (tensor<5x4x2xf32>) -> tensor<1x4x2xf32>
// CHECK-NEXT: %[[DW:.*]] = tg.reshape %[[DWS]] {shape = array<i64: 4, 2>} : (tensor<1x4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: tg.sgd_update %[[W]], %[[DW]]
// CHECK-NEXT: tg.sgd_update %[[V]], %[[DV]]
func.func @main(%x: tensor<5x3x4xf32> {tg.input = "x"},
                %w: tensor<4x2xf32> {tg.param = "w"},
                %v: tensor<1x2x6xf32> {tg.param = "v"})
    -> (tensor<5x3x6xf32> {tg.output = "y"}) {
  %0 = tg.matmul %x, %w : (tensor<5x3x4xf32>, tensor<4x2xf32>) -> tensor<5x3x2xf32>
  %1 = tg.matmul %0, %v : (tensor<5x3x2xf32>, tensor<1x2x6xf32>) -> tensor<5x3x6xf32>
  return %1 : tensor<5x3x6xf32>
}

// -----

// gemm: the gradients are gemms that read the operands in place (with
// alpha); the gradient of c is beta * dy summed to c's shape.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x3xf32> {tg.input = "x"}, %{{[^:]*}}: tensor<3x2xf32> {tg.target = "target"}, %[[W:[^:]*]]: tensor<5x4xf32> {tg.param = "fc.weight"}, %[[B:[^:]*]]: tensor<5xf32> {tg.param = "fc.bias"}, %[[W2:[^:]*]]: tensor<5x2xf32> {tg.param = "fc2.weight"})
// CHECK: %[[H:.*]] = tg.gemm %[[X]], %[[W]], %[[B]]
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DH:.*]] = tg.gemm %[[DY]], %[[W2]] {trans_b = true} : (tensor<3x2xf32>, tensor<5x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %[[DW2:.*]] = tg.gemm %[[H]], %[[DY]] {trans_a = true} : (tensor<3x5xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
// CHECK-NEXT: %[[DW:.*]] = tg.gemm %[[DH]], %[[X]] {alpha = 2.000000e+00 : f64, trans_a = true, trans_b = true} : (tensor<3x5xf32>, tensor<4x3xf32>) -> tensor<5x4xf32>
// CHECK-NEXT: %[[BETA:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[SC:.*]] = tg.mul %[[DH]], %[[BETA]]
// CHECK-NEXT: %[[SUM:.*]] = tg.reduce_sum %[[SC]] {axes = array<i64: 0>} : (tensor<3x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: %[[DB:.*]] = tg.reshape %[[SUM]] {shape = array<i64: 5>}
// CHECK-NEXT: tg.sgd_update %[[W]], %[[DW]]
// CHECK-NEXT: tg.sgd_update %[[B]], %[[DB]]
// CHECK-NEXT: tg.sgd_update %[[W2]], %[[DW2]]
func.func @main(%x: tensor<4x3xf32> {tg.input = "x"},
                %w: tensor<5x4xf32> {tg.param = "fc.weight"},
                %b: tensor<5xf32> {tg.param = "fc.bias"},
                %w2: tensor<5x2xf32> {tg.param = "fc2.weight"})
    -> (tensor<3x2xf32> {tg.output = "y"}) {
  %0 = tg.gemm %x, %w, %b {trans_a = true, trans_b = true, alpha = 2.0 : f64, beta = 0.5 : f64}
      : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %1 = tg.gemm %0, %w2 : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Reductions: the gradient is broadcast back over the reduced axes, divided
// by their element count for a mean.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x3x4xf32> {tg.param = "p"}
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[KEPT:.*]] = tg.reshape %[[DY]] {shape = array<i64: 2, 1, 1>} : (tensor<2xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[N:.*]] = tg.constant dense<4.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[MEAN:.*]] = tg.div %[[KEPT]], %[[N]]
// CHECK-NEXT: %[[DS:.*]] = tg.broadcast %[[MEAN]] {shape = array<i64: 2, 1, 4>} : (tensor<2x1x1xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT: %[[DP:.*]] = tg.broadcast %[[DS]] {shape = array<i64: 2, 3, 4>} : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x3x4xf32> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  %0 = tg.reduce_sum %p {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %1 = tg.reduce_mean %0 {axes = array<i64: 1, 2>, keepdims = false}
      : (tensor<2x1x4xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// cast: the gradient is cast back to the type of the cast's input, so each
// gradient has the type of its value.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x4xf32> {tg.param = "p"}
// CHECK: %[[H:.*]] = tg.cast %[[P]] : tensor<2x4xf32> to tensor<2x4xbf16>
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[H]] : tensor<2x4xbf16>
// CHECK-NEXT: %[[Y:.*]] = tg.cast %[[R]] : tensor<2x4xbf16> to tensor<2x4xf32>
// CHECK: %[[DY:.*]] = tg.mse_loss_backward
// CHECK-NEXT: %[[DR:.*]] = tg.cast %[[DY]] : tensor<2x4xf32> to tensor<2x4xbf16>
// CHECK-NEXT: %[[DH:.*]] = tg.relu_backward %[[DR]], %[[R]] : tensor<2x4xbf16>
// CHECK-NEXT: %[[DP:.*]] = tg.cast %[[DH]] : tensor<2x4xbf16> to tensor<2x4xf32>
// CHECK-NEXT: tg.sgd_update %[[P]], %[[DP]]
func.func @main(%p: tensor<2x4xf32> {tg.param = "p"})
    -> (tensor<2x4xf32> {tg.output = "y"}) {
  %0 = tg.cast %p : tensor<2x4xf32> to tensor<2x4xbf16>
  %1 = tg.relu %0 : tensor<2x4xbf16>
  %2 = tg.cast %1 : tensor<2x4xbf16> to tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}
