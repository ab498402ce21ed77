// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=sqrt | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=sqrt -tg-schedule | FileCheck %s --check-prefix=SCHED
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd' -tg-remat=strategy=none | FileCheck %s --check-prefix=NONE

// NONE-NOT: memopt.recompute
// NONE-NOT: memopt.remat

// A chain of four conv+ReLU blocks: 9 forward ops (with the loss), so
// segments of 3: [c1 r1 c2] [r2 c3 r3] [c4 r4 loss]. Stored: c2 and r3
// (read by the next segment) and r4 (returned); recomputed in the
// backward: r2 from c2, and c1, r1 from the input, each right before its
// first backward reader.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "sqrt", segment_ops = 3, recomputed_values = 2, recomputed_ops = 3, stored_values = 3, flops_added = 4864, seconds_added = {{[-+.0-9E]+}} : f64, simulated_peak_bytes_before = 2752, simulated_peak_bytes_after = 2240>
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK-NEXT: %[[R1:.*]] = tg.relu %[[C1]]
// CHECK-NEXT: %[[C2:.*]] = tg.conv %[[R1]]
// CHECK-NEXT: %[[R2:.*]] = tg.relu %[[C2]]
// CHECK-NEXT: %[[C3:.*]] = tg.conv %[[R2]]
// CHECK-NEXT: %[[R3:.*]] = tg.relu %[[C3]]
// CHECK: %[[DR3:.*]] = tg.relu_backward %{{.*}}, %[[R3]]
// CHECK: %[[DATA3:.*]] = tg.conv_backward_data %[[DR3]]
// CHECK-NEXT: %[[R2X:.*]] = tg.relu %[[C2]] {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %[[DR3]], %[[R2X]]
// CHECK-NEXT: %[[DR2:.*]] = tg.relu_backward %[[DATA3]], %[[R2X]]
// CHECK-NEXT: tg.conv_backward_data %[[DR2]]
// CHECK-NEXT: %[[C1X:.*]] = tg.conv %[[X]], %[[W1]] {memopt.recompute,
// CHECK-NEXT: %[[R1X:.*]] = tg.relu %[[C1X]] {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %[[DR2]], %[[R1X]]
// CHECK-NEXT: tg.relu_backward %{{.*}}, %[[R1X]]
// The schedule keeps every recomputation right before its first reader.
// SCHED-LABEL: func.func @train_step
// SCHED: %[[R2X:.*]] = tg.relu %{{.*}} {memopt.recompute}
// SCHED-NEXT: tg.conv_backward_filter %{{.*}}, %[[R2X]]
// SCHED: %[[C1X:.*]] = tg.conv %{{.*}} {memopt.recompute,
// SCHED-NEXT: %[[R1X:.*]] = tg.relu %[[C1X]] {memopt.recompute}
// SCHED-NEXT: tg.conv_backward_filter %{{.*}}, %[[R1X]]
func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"},
                %w3: tensor<2x2x3x3xf32> {tg.param = "w3"},
                %w4: tensor<2x2x3x3xf32> {tg.param = "w4"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tg.relu %c1 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r2 = tg.relu %c2 : tensor<1x2x8x8xf32>
  %c3 = tg.conv %r2, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r3 = tg.relu %c3 : tensor<1x2x8x8xf32>
  %c4 = tg.conv %r3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r4 = tg.relu %c4 : tensor<1x2x8x8xf32>
  return %r4 : tensor<1x2x8x8xf32>
}

// -----

// A U-Net in miniature: encoder conv+BN+ReLU whose output is the skip,
// pool, a bottleneck conv+ReLU, upsampling, concat with the skip, decoder
// conv. 11 forward ops, segments of 4: [c1 bn skip pool] [c2 r2 up cat]
// [c3 loss]. The skip is read by the concat of a later segment, so it is
// stored (never recomputed, nor its ancestors for it); the pool output
// and the concat are segment boundaries. Recomputed: the bottleneck's
// ReLU output (from the stored pool output) and the encoder conv output
// that the BatchNorm backward reads (from the input).
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.remat = #memopt.remat<strategy = "sqrt", segment_ops = 4, recomputed_values = 2, recomputed_ops = 3, stored_values = 6, flops_added = 5792, seconds_added = {{[-+.0-9E]+}} : f64, simulated_peak_bytes_before = 4288, simulated_peak_bytes_after = 3648>
// CHECK: %[[C1:.*]] = tg.conv %[[X:[^,]*]], %[[W1:[^ ]*]] {pads
// CHECK: %[[SKIP:.*]] = tg.relu
// CHECK-NEXT: %[[POOL:.*]] = tg.max_pool %[[SKIP]]
// CHECK: tg.concat %{{.*}}, %[[SKIP]]
// CHECK: tg.resize_backward
// CHECK-NEXT: %[[C2X:.*]] = tg.conv %[[POOL]], %{{.*}} {memopt.recompute,
// CHECK-NEXT: %[[R2X:.*]] = tg.relu %[[C2X]] {memopt.recompute}
// CHECK-NEXT: tg.relu_backward %{{.*}}, %[[R2X]]
// CHECK: tg.max_pool_backward %{{.*}}, %[[SKIP]]
// CHECK: tg.relu_backward %{{.*}}, %[[SKIP]]
// CHECK-NEXT: %[[C1X:.*]] = tg.conv %[[X]], %[[W1]] {memopt.recompute,
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[C1X]]
// CHECK-NOT: memopt.recompute
// CHECK: return

func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "enc.weight"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "mid.weight"},
                %w3: tensor<2x4x3x3xf32> {tg.param = "dec.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %bn:5 = tg.batch_norm %c1, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %skip = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %p = tg.max_pool %skip {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tg.conv %p, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r2 = tg.relu %c2 : tensor<1x2x4x4xf32>
  %up = tg.resize %r2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %cat = tg.concat %up, %skip {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c3 = tg.conv %cat, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c3 : tensor<1x2x8x8xf32>
}

// -----

// A recomputed BatchNorm reads the batch statistics that the forward saved
// in place of the running statistics (which the forward updated in
// place); its own running-statistics results go unused, so the state is
// updated once. (Here the clone's small unused results make the simulated
// peak of the given order grow: sqrt is no optimum.)
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x8x8xf32> {tg.input = "input"}
// CHECK-SAME: %[[S:[^:]*]]: tensor<2xf32> {tg.param = "bn.weight"}
// CHECK-SAME: %[[B:[^:]*]]: tensor<2xf32> {tg.param = "bn.bias"}
// CHECK-SAME: %[[RM:[^:]*]]: tensor<2xf32> {tg.state = "bn.running_mean"}
// CHECK-SAME: %[[RV:[^:]*]]: tensor<2xf32> {tg.state = "bn.running_var"}
// CHECK-SAME: simulated_peak_bytes_before = 1856, simulated_peak_bytes_after = 1920>
// CHECK: %[[OUT:[^,]*]], %[[NRM:[^,]*]], %[[NRV:[^,]*]], %[[MEAN:[^,]*]], %[[INVSTD:[^ ]*]] = tg.batch_norm %[[X]], %[[S]], %[[B]], %[[RM]], %[[RV]] :
// CHECK: %[[OUTX:[^,]*]], {{.*}} = tg.batch_norm %[[X]], %[[S]], %[[B]], %[[MEAN]], %[[INVSTD]] {memopt.recompute}
// CHECK-NEXT: %[[RX:.*]] = tg.relu %[[OUTX]] {memopt.recompute}
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[RX]]
// CHECK-NEXT: tg.relu_backward %{{.*}}, %[[RX]]
// CHECK-NEXT: tg.batch_norm_backward %{{.*}}, %[[X]], %[[S]], %[[MEAN]], %[[INVSTD]]
// CHECK: return {{.*}}, %[[NRM]], %[[NRV]] :

func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %s: tensor<2xf32> {tg.param = "bn.weight"},
                %b: tensor<2xf32> {tg.param = "bn.bias"},
                %rm: tensor<2xf32> {tg.state = "bn.running_mean"},
                %rv: tensor<2xf32> {tg.state = "bn.running_var"},
                %w: tensor<2x2x3x3xf32> {tg.param = "conv.weight"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %bn:5 = tg.batch_norm %x, %s, %b, %rm, %rv : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r = tg.relu %bn#0 : tensor<1x2x8x8xf32>
  %c = tg.conv %r, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %y = tg.sigmoid %c : tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}
