// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-amp -tg-autodiff='loss=mse optimizer=sgd' -canonicalize -tg-recompute-casts | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-amp -tg-autodiff='loss=mse optimizer=sgd' -canonicalize -tg-recompute-casts -tg-schedule | FileCheck %s --check-prefix=SCHED
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-amp -tg-recompute-casts | FileCheck %s --check-prefix=FORWARD

// Two bf16 convolutions: the forward casts the input and both weights once;
// the backward reads the bf16 weight of the second convolution (its data
// gradient) and the bf16 input of the first (its filter gradient), each from
// its own recast, not from the forward's copy, which dies in the forward.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x8x8xf32> {tg.input = "input"}
// CHECK-SAME: %[[W1:[^:]*]]: tensor<2x2x3x3xf32> {tg.param = "w1"}
// CHECK-SAME: %[[W2:[^:]*]]: tensor<2x2x3x3xf32> {tg.param = "w2"}
// CHECK: %[[XL:.*]] = tg.cast %[[X]] : tensor<1x2x8x8xf32> to tensor<1x2x8x8xbf16>
// CHECK: %[[W1L:.*]] = tg.cast %[[W1]] : tensor<2x2x3x3xf32> to tensor<2x2x3x3xbf16>
// CHECK: tg.conv %[[XL]], %[[W1L]]
// CHECK: %[[W2L:.*]] = tg.cast %[[W2]] : tensor<2x2x3x3xf32> to tensor<2x2x3x3xbf16>
// CHECK: tg.conv %{{.*}}, %[[W2L]]
// CHECK: %[[W2R:.*]] = tg.cast %[[W2]] {memopt.recompute} : tensor<2x2x3x3xf32> to tensor<2x2x3x3xbf16>
// CHECK-NEXT: tg.conv_backward_data %{{.*}}, %[[W2R]]
// CHECK: %[[XR:.*]] = tg.cast %[[X]] {memopt.recompute} : tensor<1x2x8x8xf32> to tensor<1x2x8x8xbf16>
// CHECK-NEXT: tg.conv_backward_filter %{{.*}}, %[[XR]]
// The forward's copies are read by the forward only.
// CHECK-NOT: %[[W2L]]{{[^0-9]}}
// CHECK-NOT: %[[XL]]{{[^0-9]}}
// CHECK: return

// tg-schedule keeps each recast right before its reader.
// SCHED-LABEL: func.func @train_step(
// SCHED: %[[W2R:.*]] = tg.cast %{{.*}} {memopt.recompute}
// SCHED-NEXT: tg.conv_backward_data %{{.*}}, %[[W2R]]
// SCHED: %[[XR:.*]] = tg.cast %{{.*}} {memopt.recompute}
// SCHED-NEXT: tg.conv_backward_filter %{{.*}}, %[[XR]]

// A function without a backward (the forward graph itself) is unchanged.
// FORWARD-LABEL: func.func @main(
// FORWARD-NOT: memopt.recompute
// FORWARD: return

func.func @main(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                %w1: tensor<2x2x3x3xf32> {tg.param = "w1"},
                %w2: tensor<2x2x3x3xf32> {tg.param = "w2"})
    -> (tensor<1x2x8x8xf32> {tg.output = "output"}) {
  %c1 = tg.conv %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %r1 = tg.relu %c1 : tensor<1x2x8x8xf32>
  %c2 = tg.conv %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}

