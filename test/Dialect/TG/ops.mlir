// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// Round trip of every tg op: each op is parsed, printed and parsed again.
// Attributes equal to their default are elided by the printer.

// CHECK-LABEL: func.func @roles
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {tg.input = "x"},
// CHECK-SAME: %[[W:.*]]: tensor<2x3xf32> {tg.param = "fc.weight"},
// CHECK-SAME: %[[S:.*]]: tensor<2x3xf32> {tg.state = "bn.running_mean"})
// CHECK-SAME: -> (tensor<2x3xf32> {tg.output = "y"})
func.func @roles(%x: tensor<2x3xf32> {tg.input = "x"},
                 %w: tensor<2x3xf32> {tg.param = "fc.weight"},
                 %s: tensor<2x3xf32> {tg.state = "bn.running_mean"})
    -> (tensor<2x3xf32> {tg.output = "y"}) {
  // CHECK: return %[[X]] : tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}

// The signature of a training step: persistent state (parameters, running
// statistics, optimizer state) is an argument and, updated, a result.
// CHECK-LABEL: func.func @training_step_roles
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {tg.input = "x"},
// CHECK-SAME: %{{.*}}: tensor<2x3xf32> {tg.target = "target"},
// CHECK-SAME: %[[W:.*]]: tensor<2x3xf32> {tg.param = "fc.weight"},
// CHECK-SAME: %[[S:.*]]: tensor<2x3xf32> {tg.state = "bn.running_mean"},
// CHECK-SAME: %[[M:.*]]: tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg"},
// CHECK-SAME: %{{.*}}: tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg_sq"},
// CHECK-SAME: %{{.*}}: tensor<2x3xf32> {tg.opt_state = "fc.weight.momentum_buffer"},
// CHECK-SAME: %{{.*}}: tensor<i64> {tg.step = "step"})
// CHECK-SAME: -> (tensor<2x3xf32> {tg.output = "loss"}, tensor<2x3xf32> {tg.param = "fc.weight"},
// CHECK-SAME: tensor<2x3xf32> {tg.state = "bn.running_mean"}, tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg"})
func.func @training_step_roles(%x: tensor<2x3xf32> {tg.input = "x"},
                               %t: tensor<2x3xf32> {tg.target = "target"},
                               %w: tensor<2x3xf32> {tg.param = "fc.weight"},
                               %s: tensor<2x3xf32> {tg.state = "bn.running_mean"},
                               %m: tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg"},
                               %v: tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg_sq"},
                               %b: tensor<2x3xf32> {tg.opt_state = "fc.weight.momentum_buffer"},
                               %step: tensor<i64> {tg.step = "step"})
    -> (tensor<2x3xf32> {tg.output = "loss"},
        tensor<2x3xf32> {tg.param = "fc.weight"},
        tensor<2x3xf32> {tg.state = "bn.running_mean"},
        tensor<2x3xf32> {tg.opt_state = "fc.weight.exp_avg"}) {
  // CHECK: return %[[X]], %[[W]], %[[S]], %[[M]]
  return %x, %w, %s, %m : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
                          tensor<2x3xf32>
}

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2x2xf32>, tensor<1xbf16>) {
  // CHECK: %[[C0:.*]] = tg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %0 = tg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: %[[C1:.*]] = tg.constant dense<5.000000e-01> : tensor<1xbf16>
  %1 = tg.constant dense<0.5> : tensor<1xbf16>
  // CHECK: return %[[C0]], %[[C1]]
  return %0, %1 : tensor<2x2xf32>, tensor<1xbf16>
}

// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>,
                  %b: tensor<6xf32>)
    -> (tensor<1x6x8x8xf32>, tensor<1x6x2x2xf32>) {
  // CHECK: %[[R0:.*]] = tg.conv %[[X]], %[[W]], %[[B]] {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  %0 = tg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
      -> tensor<1x6x8x8xf32>
  // CHECK: %[[R1:.*]] = tg.conv %[[X]], %[[W]] {dilations = array<i64: 2, 2>, groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x2x2xf32>
  %1 = tg.conv %x, %w {strides = array<i64: 2, 2>,
                         dilations = array<i64: 2, 2>, groups = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x2x2xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<1x6x8x8xf32>, tensor<1x6x2x2xf32>
}

// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<3xf32>)
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>,
                            %b: tensor<3xf32>)
    -> (tensor<1x3x7x7xf32>, tensor<1x3x10x10xf32>) {
  // CHECK: %[[R0:.*]] = tg.conv_transpose %[[X]], %[[W]], %[[B]] : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x7x7xf32>
  %0 = tg.conv_transpose %x, %w, %b
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
      -> tensor<1x3x7x7xf32>
  // CHECK: %[[R1:.*]] = tg.conv_transpose %[[X]], %[[W]] {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  %1 = tg.conv_transpose %x, %w {strides = array<i64: 2, 2>,
                                   pads = array<i64: 1, 1, 1, 1>,
                                   output_padding = array<i64: 1, 1>}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<1x3x7x7xf32>, tensor<1x3x10x10xf32>
}

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xbf16>, %[[SCALE:.*]]: tensor<3xf32>, %[[BIAS:.*]]: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[VAR:.*]]: tensor<3xf32>)
func.func @batch_norm(%x: tensor<2x3x4x4xbf16>, %scale: tensor<3xf32>,
                      %bias: tensor<3xf32>, %mean: tensor<3xf32>,
                      %var: tensor<3xf32>) -> tensor<2x3x4x4xbf16> {
  // CHECK: %[[Y:.*]], %[[NEW_MEAN:.*]], %[[NEW_VAR:.*]], %[[SAVED_MEAN:.*]], %[[SAVED_INV_STD:.*]] = tg.batch_norm %[[X]], %[[SCALE]], %[[BIAS]], %[[MEAN]], %[[VAR]] {epsilon = 1.000000e-03 : f64, momentum = 2.000000e-01 : f64} : (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y, %new_mean, %new_var, %saved_mean, %saved_inv_std =
      tg.batch_norm %x, %scale, %bias, %mean, %var
      {epsilon = 1.0e-3, momentum = 0.2}
      : (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>)
      -> (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>)
  // CHECK: %[[Z:.*]] = tg.batch_norm_inference %[[Y]], %[[SCALE]], %[[BIAS]], %[[NEW_MEAN]], %[[NEW_VAR]] : (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xbf16>
  %z = tg.batch_norm_inference %y, %scale, %bias, %new_mean, %new_var
      : (tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>) -> tensor<2x3x4x4xbf16>
  // CHECK: return %[[Z]]
  return %z : tensor<2x3x4x4xbf16>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>)
func.func @unary(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  // CHECK: %[[R0:.*]] = tg.relu %[[X]] : tensor<2x3xf16>
  %0 = tg.relu %x : tensor<2x3xf16>
  // CHECK: %[[R1:.*]] = tg.sigmoid %[[R0]] : tensor<2x3xf16>
  %1 = tg.sigmoid %0 : tensor<2x3xf16>
  // CHECK: %[[R2:.*]] = tg.tanh %[[R1]] : tensor<2x3xf16>
  %2 = tg.tanh %1 : tensor<2x3xf16>
  // CHECK: %[[R3:.*]] = tg.neg %[[R2]] : tensor<2x3xf16>
  %3 = tg.neg %2 : tensor<2x3xf16>
  // CHECK: %[[R4:.*]] = tg.exp %[[R3]] : tensor<2x3xf16>
  %4 = tg.exp %3 : tensor<2x3xf16>
  // CHECK: %[[R5:.*]] = tg.log %[[R4]] : tensor<2x3xf16>
  %5 = tg.log %4 : tensor<2x3xf16>
  // CHECK: %[[R6:.*]] = tg.sqrt %[[R5]] : tensor<2x3xf16>
  %6 = tg.sqrt %5 : tensor<2x3xf16>
  // CHECK: %[[R7:.*]] = tg.abs %[[R6]] : tensor<2x3xf16>
  %7 = tg.abs %6 : tensor<2x3xf16>
  // CHECK: %[[R8:.*]] = tg.leaky_relu %[[R7]] : tensor<2x3xf16>
  %8 = tg.leaky_relu %7 : tensor<2x3xf16>
  // CHECK: %[[R9:.*]] = tg.leaky_relu %[[R8]] {alpha = 2.000000e-01 : f64} : tensor<2x3xf16>
  %9 = tg.leaky_relu %8 {alpha = 0.2} : tensor<2x3xf16>
  // CHECK: %[[R10:.*]] = tg.clip %[[R9]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf16>
  %10 = tg.clip %9 {min = 0.0, max = 6.0} : tensor<2x3xf16>
  // CHECK: return %[[R10]]
  return %10 : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x1xf32>)
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>)
    -> tensor<2x3xf32> {
  // CHECK: %[[R0:.*]] = tg.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tg.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R1:.*]] = tg.sub %[[C]], %[[R0]] : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.sub %c, %0 : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R2:.*]] = tg.mul %[[R1]], %[[R1]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tg.mul %1, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R3:.*]] = tg.div %[[R2]], %[[C]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %3 = tg.div %2, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  // CHECK: return %[[R3]]
  return %3 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[B:.*]] = tg.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xbf16>
  %0 = tg.cast %x : tensor<2x3xf32> to tensor<2x3xbf16>
  // CHECK: %[[H:.*]] = tg.cast %[[B]] : tensor<2x3xbf16> to tensor<2x3xf16>
  %1 = tg.cast %0 : tensor<2x3xbf16> to tensor<2x3xf16>
  // CHECK: %[[F:.*]] = tg.cast %[[H]] : tensor<2x3xf16> to tensor<2x3xf32>
  %2 = tg.cast %1 : tensor<2x3xf16> to tensor<2x3xf32>
  // CHECK: return %[[F]]
  return %2 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @dropout(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: %[[Y:.*]], %[[MASK:.*]] = tg.dropout %[[X]] {ratio = 5.000000e-01 : f64} : tensor<4x8xf32>
  %y, %mask = tg.dropout %x {ratio = 0.5} : tensor<4x8xf32>
  // CHECK: return %[[Y]], %[[MASK]]
  return %y, %mask : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @pools
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x7x7xf32>)
func.func @pools(%x: tensor<1x2x7x7xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) {
  // CHECK: %[[MAX:.*]] = tg.max_pool %[[X]] {ceil_mode = true, dilations = array<i64: 2, 2>, kernel = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  %0 = tg.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                         pads = array<i64: 1, 1, 1, 1>,
                         dilations = array<i64: 2, 2>, ceil_mode = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: %[[AVG:.*]] = tg.avg_pool %[[X]] {count_include_pad = true, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32>
  %1 = tg.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                         count_include_pad = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: %[[GLOBAL:.*]] = tg.global_avg_pool %[[X]] : (tensor<1x2x7x7xf32>) -> tensor<1x2x1x1xf32>
  %2 = tg.global_avg_pool %x : (tensor<1x2x7x7xf32>) -> tensor<1x2x1x1xf32>
  // CHECK: return %[[MAX]], %[[AVG]], %[[GLOBAL]]
  return %0, %1, %2
      : tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>
}

// Every value of every enumeration of tg.resize.
// CHECK-LABEL: func.func @resize
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
func.func @resize(%x: tensor<1x2x4x4xf32>) {
  // CHECK: tg.resize %[[X]] {coordinate_mode = #tg<coordinate_mode half_pixel>, mode = #tg<resize_mode nearest>, scales = array<f64: 2.000000e+00, 2.000000e+00>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %0 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     nearest_mode = #tg<nearest_mode round_prefer_floor>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  // CHECK: tg.resize %[[X]] {coordinate_mode = #tg<coordinate_mode pytorch_half_pixel>, mode = #tg<resize_mode nearest>, nearest_mode = #tg<nearest_mode round_prefer_ceil>, scales = array<f64: 2.000000e+00, 2.000000e+00>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %1 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode pytorch_half_pixel>,
                     nearest_mode = #tg<nearest_mode round_prefer_ceil>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  // CHECK: tg.resize %[[X]] {coordinate_mode = #tg<coordinate_mode align_corners>, mode = #tg<resize_mode nearest>, nearest_mode = #tg<nearest_mode floor>, scales = array<f64: 5.000000e-01, 5.000000e-01>, sizes = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %2 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode align_corners>,
                     nearest_mode = #tg<nearest_mode floor>,
                     sizes = array<i64: 2, 2>, scales = array<f64: 0.5, 0.5>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: tg.resize %[[X]] {coordinate_mode = #tg<coordinate_mode asymmetric>, mode = #tg<resize_mode nearest>, nearest_mode = #tg<nearest_mode ceil>, scales = array<f64: 1.500000e+00, 2.000000e+00>, sizes = array<i64: 6, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32>
  %3 = tg.resize %x {mode = #tg<resize_mode nearest>,
                     coordinate_mode = #tg<coordinate_mode asymmetric>,
                     nearest_mode = #tg<nearest_mode ceil>,
                     sizes = array<i64: 6, 8>, scales = array<f64: 1.5, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32>
  // CHECK: tg.resize %[[X]] {coordinate_mode = #tg<coordinate_mode half_pixel>, mode = #tg<resize_mode bilinear>, scales = array<f64: 2.000000e+00, 2.000000e+00>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %4 = tg.resize %x {mode = #tg<resize_mode bilinear>,
                     coordinate_mode = #tg<coordinate_mode half_pixel>,
                     sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x4xf32>, %[[B:.*]]: tensor<1x3x4xf32>)
func.func @concat(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>)
    -> tensor<1x7x4xf32> {
  // CHECK: %[[R:.*]] = tg.concat %[[A]], %[[B]], %[[A]] {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> tensor<1x7x4xf32>
  %0 = tg.concat %a, %b, %a {axis = 1 : i64}
      : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>)
      -> tensor<1x7x4xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<1x7x4xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>)
func.func @slice(%x: tensor<4x10xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[R:.*]] = tg.slice %[[X]] {ends = array<i64: 3, 10>, starts = array<i64: 1, 2>, steps = array<i64: 1, 3>} : (tensor<4x10xf32>) -> tensor<2x3xf32>
  %0 = tg.slice %x {starts = array<i64: 1, 2>, ends = array<i64: 3, 10>,
                    steps = array<i64: 1, 3>}
      : (tensor<4x10xf32>) -> tensor<2x3xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<2x3xf32>
}

// Every value of the pad mode.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @pad(%x: tensor<2x3xf32>) {
  // CHECK: tg.pad %[[X]] {pads = array<i64: 1, 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %0 = tg.pad %x {pads = array<i64: 1, 0, 1, 2>}
      : (tensor<2x3xf32>) -> tensor<4x5xf32>
  // CHECK: tg.pad %[[X]] {pads = array<i64: 1, 0, 1, 2>, value = -1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %1 = tg.pad %x {pads = array<i64: 1, 0, 1, 2>, mode = #tg<pad_mode constant>,
                  value = -1.0}
      : (tensor<2x3xf32>) -> tensor<4x5xf32>
  // CHECK: tg.pad %[[X]] {mode = #tg<pad_mode reflect>, pads = array<i64: 1, 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %2 = tg.pad %x {pads = array<i64: 1, 0, 1, 2>, mode = #tg<pad_mode reflect>}
      : (tensor<2x3xf32>) -> tensor<4x5xf32>
  // CHECK: tg.pad %[[X]] {mode = #tg<pad_mode edge>, pads = array<i64: 2, 0, 2, 4>} : (tensor<2x3xf32>) -> tensor<6x7xf32>
  %3 = tg.pad %x {pads = array<i64: 2, 0, 2, 4>, mode = #tg<pad_mode edge>}
      : (tensor<2x3xf32>) -> tensor<6x7xf32>
  return
}

// CHECK-LABEL: func.func @reshape_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @reshape_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // CHECK: %[[T:.*]] = tg.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = tg.transpose %x {perm = array<i64: 2, 0, 1>}
      : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: %[[R:.*]] = tg.reshape %[[T]] {shape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  %1 = tg.reshape %0 {shape = array<i64: 4, 6>}
      : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  // CHECK: return %[[R]]
  return %1 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<5x1x2x3xf32>, %[[B:.*]]: tensor<4x3x6xf32>)
func.func @matmul(%a: tensor<5x1x2x3xf32>, %b: tensor<4x3x6xf32>)
    -> tensor<5x4x2x6xf32> {
  // CHECK: %[[R:.*]] = tg.matmul %[[A]], %[[B]] : (tensor<5x1x2x3xf32>, tensor<4x3x6xf32>) -> tensor<5x4x2x6xf32>
  %0 = tg.matmul %a, %b
      : (tensor<5x1x2x3xf32>, tensor<4x3x6xf32>) -> tensor<5x4x2x6xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<5x4x2x6xf32>
}

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<4xf32>)
func.func @gemm(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK: %[[R0:.*]] = tg.gemm %[[A]], %[[B]], %[[C]] {alpha = 5.000000e-01 : f64, beta = 2.000000e+00 : f64, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %0 = tg.gemm %a, %b, %c {alpha = 0.5, beta = 2.0, trans_a = true,
                           trans_b = true}
      : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: %[[R1:.*]] = tg.gemm %[[A]], %[[B]] {trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %1 = tg.gemm %a, %b {trans_a = true, trans_b = true}
      : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  // CHECK: return %[[R0]], %[[R1]]
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @reduce(%x: tensor<2x3x4xf32>)
    -> (tensor<1x1x1xf32>, tensor<3xf32>) {
  // CHECK: %[[SUM:.*]] = tg.reduce_sum %[[X]] : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %0 = tg.reduce_sum %x : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: %[[MEAN:.*]] = tg.reduce_mean %[[X]] {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = tg.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false}
      : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: return %[[SUM]], %[[MEAN]]
  return %0, %1 : tensor<1x1x1xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @transfers
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-SAME: memopt.stage = #memopt.stage<index = 0, stages = 2>
func.func @transfers(%x: tensor<2x3xf32>) -> tensor<2x3xf32>
    attributes {memopt.stage = #memopt.stage<index = 0, stages = 2>} {
  // CHECK: tg.send %[[X]] to stage 1 tag 0 forward : tensor<2x3xf32>
  tg.send %x to stage 1 tag 0 forward : tensor<2x3xf32>
  // CHECK: %[[G:.*]] = tg.recv from stage 1 tag 1 : tensor<2x3xf32>
  %g = tg.recv from stage 1 tag 1 : tensor<2x3xf32>
  // CHECK: return %[[G]]
  return %g : tensor<2x3xf32>
}

// The mean over data-parallel replicas.
// CHECK-LABEL: func.func @all_reduce(
// CHECK-SAME: %[[G:.*]]: tensor<4x3xf32>
func.func @all_reduce(%g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[M:.*]] = tg.all_reduce %[[G]] over 2 : tensor<4x3xf32>
  %m = tg.all_reduce %g over 2 : tensor<4x3xf32>
  // CHECK: return %[[M]]
  return %m : tensor<4x3xf32>
}

// Optimizer-state sharding: a replica's part of a tensor and back.
// CHECK-LABEL: func.func @shard_and_gather(
// CHECK-SAME: %[[W:.*]]: tensor<5x3xf32>
func.func @shard_and_gather(%w: tensor<5x3xf32>) -> tensor<5x3xf32> {
  // CHECK: %[[P:.*]] = tg.shard %[[W]] over 4 : tensor<5x3xf32> -> tensor<4xf32>
  %p = tg.shard %w over 4 : tensor<5x3xf32> -> tensor<4xf32>
  // CHECK: %[[G:.*]] = tg.all_gather %[[P]] over 4 : tensor<4xf32> -> tensor<5x3xf32>
  %g = tg.all_gather %p over 4 : tensor<4xf32> -> tensor<5x3xf32>
  // CHECK: return %[[G]]
  return %g : tensor<5x3xf32>
}
