// RUN: memopt-opt %s -tg-amp -split-input-file | FileCheck %s
// RUN: memopt-opt %s -tg-amp=mode=fp16 -split-input-file | FileCheck %s --check-prefix=FP16
// RUN: memopt-opt %s -tg-amp='fp32-ops=tg.conv low-ops=sigmoid' -split-input-file | FileCheck %s --check-prefix=TABLE

// A conv-BN-ReLU block with a residual add, a constant factor and a
// sigmoid: the convolution runs low with its input and weight cast once,
// BatchNorm, ReLU, add and mul follow their input (BatchNorm's parameters
// and statistics stay f32), the constant is converted at compile time, the
// sigmoid takes f32, and the f32 result is the function's.
// CHECK: module attributes {memopt.amp = "bf16"}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8x8xf32> {tg.input = "input"},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x3x3x3xf32> {tg.param = "conv.weight"},
// CHECK-SAME: %[[S:[^:]*]]: tensor<4xf32> {tg.param = "bn.weight"}, %[[B:[^:]*]]: tensor<4xf32> {tg.param = "bn.bias"},
// CHECK-SAME: %[[RM:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_mean"}, %[[RV:[^:]*]]: tensor<4xf32> {tg.state = "bn.running_var"})
// CHECK-SAME: -> (tensor<2x4x8x8xf32> {tg.output = "output"})
// CHECK-NEXT: %[[XL:.*]] = tg.cast %[[X]] : tensor<2x3x8x8xf32> to tensor<2x3x8x8xbf16>
// CHECK-NEXT: %[[WL:.*]] = tg.cast %[[W]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3xbf16>
// CHECK-NEXT: %[[C:.*]] = tg.conv %[[XL]], %[[WL]] {{.*}} : (tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<2x4x8x8xbf16>
// CHECK-NEXT: %[[BN:[^,]*]], {{.*}} = tg.batch_norm %[[C]], %[[S]], %[[B]], %[[RM]], %[[RV]] : (tensor<2x4x8x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[BN]] : tensor<2x4x8x8xbf16>
// CHECK-NEXT: %[[A:.*]] = tg.add %[[R]], %[[C]] : (tensor<2x4x8x8xbf16>, tensor<2x4x8x8xbf16>) -> tensor<2x4x8x8xbf16>
// CHECK-NEXT: %[[HALF:.*]] = tg.constant dense<5.000000e-01> : tensor<1x1x1x1xbf16>
// CHECK-NEXT: %[[M:.*]] = tg.mul %[[A]], %[[HALF]] : (tensor<2x4x8x8xbf16>, tensor<1x1x1x1xbf16>) -> tensor<2x4x8x8xbf16>
// CHECK-NEXT: %[[MF:.*]] = tg.cast %[[M]] : tensor<2x4x8x8xbf16> to tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[SIG:.*]] = tg.sigmoid %[[MF]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: return %[[SIG]] : tensor<2x4x8x8xf32>
// The f32 constant is gone.
// CHECK-NOT: tg.constant

// fp16 is the same policy with f16.
// FP16: module attributes {memopt.amp = "fp16"}
// FP16: tg.conv {{.*}} -> tensor<2x4x8x8xf16>
// FP16: tg.constant dense<5.000000e-01> : tensor<1x1x1x1xf16>
// FP16: tg.sigmoid {{.*}} : tensor<2x4x8x8xf32>

// fp32-ops moves the convolution to fp32, and then everything that
// followed it stays f32; low-ops moves the sigmoid low.
// TABLE-LABEL: func.func @main(
// TABLE: tg.conv {{.*}} -> tensor<2x4x8x8xf32>
// TABLE: tg.relu {{.*}} : tensor<2x4x8x8xf32>
// TABLE: %[[ML:.*]] = tg.cast %{{.*}} : tensor<2x4x8x8xf32> to tensor<2x4x8x8xbf16>
// TABLE-NEXT: %[[SIG:.*]] = tg.sigmoid %[[ML]] : tensor<2x4x8x8xbf16>
// TABLE-NEXT: %[[OUT:.*]] = tg.cast %[[SIG]] : tensor<2x4x8x8xbf16> to tensor<2x4x8x8xf32>
// TABLE-NEXT: return %[[OUT]]
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
  %c = tg.constant dense<0.5> : tensor<1x1x1x1xf32>
  %4 = tg.mul %3, %c : (tensor<2x4x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<2x4x8x8xf32>
  %5 = tg.sigmoid %4 : tensor<2x4x8x8xf32>
  return %5 : tensor<2x4x8x8xf32>
}

// -----

// Casts are shared: the weight feeds two convolutions through one cast, the
// low value read by two fp32 ops and returned converts once, and a concat
// or an add of a low and an f32 operand runs low. A low result is cast to
// f32 before the return.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32> {tg.input = "input"}, %[[W:[^:]*]]: tensor<2x2x1x1xf32> {tg.param = "w"})
// CHECK-NEXT: %[[XL:.*]] = tg.cast %[[X]] : tensor<1x2x4x4xf32> to tensor<1x2x4x4xbf16>
// CHECK-NEXT: %[[WL:.*]] = tg.cast %[[W]] : tensor<2x2x1x1xf32> to tensor<2x2x1x1xbf16>
// CHECK-NEXT: %[[C1:.*]] = tg.conv %[[XL]], %[[WL]]
// CHECK-NEXT: %[[C2:.*]] = tg.conv %[[C1]], %[[WL]]
// CHECK-NEXT: %[[C2F:.*]] = tg.cast %[[C2]] : tensor<1x2x4x4xbf16> to tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[E:.*]] = tg.exp %[[C2F]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[L:.*]] = tg.log %[[C2F]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[EL:.*]] = tg.cast %[[E]] : tensor<1x2x4x4xf32> to tensor<1x2x4x4xbf16>
// CHECK-NEXT: %[[CAT:.*]] = tg.concat %[[EL]], %[[C2]] {axis = 1 : i64} : (tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>) -> tensor<1x4x4x4xbf16>
// CHECK-NEXT: %[[LL:.*]] = tg.cast %[[L]] : tensor<1x2x4x4xf32> to tensor<1x2x4x4xbf16>
// CHECK-NEXT: %[[SUM:.*]] = tg.add %[[C2]], %[[LL]]
// CHECK-NEXT: %[[CATF:.*]] = tg.cast %[[CAT]] : tensor<1x4x4x4xbf16> to tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[SUMF:.*]] = tg.cast %[[SUM]] : tensor<1x2x4x4xbf16> to tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[CATF]], %[[SUMF]], %[[C2F]] :
func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "input"},
                %w: tensor<2x2x1x1xf32> {tg.param = "w"})
    -> (tensor<1x4x4x4xf32> {tg.output = "cat"},
        tensor<1x2x4x4xf32> {tg.output = "sum"},
        tensor<1x2x4x4xf32> {tg.output = "conv"}) {
  %0 = tg.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tg.conv %0, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = tg.exp %1 : tensor<1x2x4x4xf32>
  %3 = tg.log %1 : tensor<1x2x4x4xf32>
  %4 = tg.concat %2, %1 {axis = 1 : i64}
      : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %5 = tg.add %1, %3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %4, %5, %1 : tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A graph of follow and fp32 ops only stays f32: nothing is cast.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: tg.cast
// CHECK: tg.relu {{.*}} : tensor<8xf32>
// CHECK-NOT: tg.cast
// CHECK: return
func.func @main(%x: tensor<8xf32> {tg.input = "input"},
                %p: tensor<8xf32> {tg.param = "p"})
    -> (tensor<8xf32> {tg.output = "y"}) {
  %0 = tg.mul %x, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = tg.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
