// RUN: memopt-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// tg.neg
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @neg_of_constant
func.func @neg_of_constant() -> tensor<2xf32> {
  // CHECK: %[[C:.*]] = tg.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NOT: tg.neg
  // CHECK: return %[[C]]
  %0 = tg.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %1 = tg.neg %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @neg_of_argument
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
func.func @neg_of_argument(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %[[N:.*]] = tg.neg %[[X]] : tensor<2xf32>
  // CHECK: return %[[N]]
  %0 = tg.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Binary ops on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_of_constants
func.func @binary_of_constants()
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  // CHECK-DAG: %[[ADD:.*]] = tg.constant dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[SUB:.*]] = tg.constant dense<[-3.000000e+00, -2.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[MUL:.*]] = tg.constant dense<[4.000000e+00, 8.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[DIV:.*]] = tg.constant dense<[2.500000e-01, 5.000000e-01]> : tensor<2xf32>
  // CHECK-NOT: tg.add
  // CHECK-NOT: tg.sub
  // CHECK-NOT: tg.mul
  // CHECK-NOT: tg.div
  // CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]]
  %a = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tg.constant dense<[4.0, 4.0]> : tensor<2xf32>
  %0 = tg.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = tg.sub %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = tg.mul %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = tg.div %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3
      : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Constants of different shapes broadcast: they are not evaluated.
// CHECK-LABEL: func.func @binary_of_broadcast_constants
func.func @binary_of_broadcast_constants() -> tensor<2x2xf32> {
  // CHECK-DAG: %[[A:.*]] = tg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
  // CHECK-DAG: %[[B:.*]] = tg.constant dense<{{\[}}[3.000000e+00], [4.000000e+00]]> : tensor<2x1xf32>
  // CHECK: %[[R:.*]] = tg.add %[[A]], %[[B]] : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  // CHECK: return %[[R]]
  %a = tg.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %b = tg.constant dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %0 = tg.add %a, %b : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Binary ops with a neutral element
//===----------------------------------------------------------------------===//

// x + (-0.0) is x bit for bit, so it folds.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @add_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NOT: tg.add
  // CHECK: return %[[X]], %[[X]]
  %zero = tg.constant dense<-0.0> : tensor<2x3xf32>
  %0 = tg.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.add %zero, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// x + 0.0 maps x = -0.0 to +0.0, so it must not fold.
// CHECK-LABEL: func.func @add_positive_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @add_positive_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[ZERO:.*]] = tg.constant dense<0.000000e+00>
  // CHECK: %[[R:.*]] = tg.add %[[X]], %[[ZERO]]
  // CHECK: return %[[R]]
  %zero = tg.constant dense<0.0> : tensor<2x3xf32>
  %0 = tg.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// x - (-0.0) maps x = -0.0 to +0.0, so it must not fold.
// CHECK-LABEL: func.func @sub_negative_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @sub_negative_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[ZERO:.*]] = tg.constant dense<-0.000000e+00>
  // CHECK: %[[R:.*]] = tg.sub %[[X]], %[[ZERO]]
  // CHECK: return %[[R]]
  %zero = tg.constant dense<-0.0> : tensor<2x3xf32>
  %0 = tg.sub %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A neutral splat of a smaller shape broadcasts to the other operand's type.
// CHECK-LABEL: func.func @add_broadcast_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @add_broadcast_zero(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NOT: tg.add
  // CHECK: return %[[X]], %[[X]]
  %zero = tg.constant dense<-0.0> : tensor<1xf32>
  %0 = tg.add %x, %zero : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %1 = tg.add %zero, %x : (tensor<1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The zero broadcasts the other operand to a larger shape: the add stays.
// CHECK-LABEL: func.func @add_zero_that_broadcasts
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf32>)
func.func @add_zero_that_broadcasts(%x: tensor<1x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<2x3xf32>
  // CHECK: %[[R0:.*]] = tg.add %[[X]], %[[ZERO]] : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R1:.*]] = tg.add %[[ZERO]], %[[X]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK: return %[[R0]], %[[R1]]
  %zero = tg.constant dense<0.0> : tensor<2x3xf32>
  %0 = tg.add %x, %zero : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.add %zero, %x : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_non_neutral_splat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @add_non_neutral_splat(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<2x3xf32>
  // CHECK: %[[R:.*]] = tg.add %[[X]], %[[ONE]]
  // CHECK: return %[[R]]
  %one = tg.constant dense<1.0> : tensor<2x3xf32>
  %0 = tg.add %x, %one : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A constant that holds zeros and other values is not neutral.
// CHECK-LABEL: func.func @add_non_splat
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
func.func @add_non_splat(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %[[C:.*]] = tg.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
  // CHECK: %[[R:.*]] = tg.add %[[X]], %[[C]]
  // CHECK: return %[[R]]
  %c = tg.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tg.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @sub_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<2x3xf32>
  // x - 0 folds; 0 - x is -x and stays.
  // CHECK: %[[NEG:.*]] = tg.sub %[[ZERO]], %[[X]]
  // CHECK: return %[[X]], %[[NEG]]
  %zero = tg.constant dense<0.0> : tensor<2x3xf32>
  %0 = tg.sub %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.sub %zero, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xbf16>)
func.func @mul_one(%x: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>) {
  // CHECK-NOT: tg.mul
  // CHECK: return %[[X]], %[[X]]
  %one = tg.constant dense<1.0> : tensor<1x1xbf16>
  %0 = tg.mul %x, %one : (tensor<2x3xbf16>, tensor<1x1xbf16>) -> tensor<2x3xbf16>
  %1 = tg.mul %one, %x : (tensor<1x1xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %0, %1 : tensor<2x3xbf16>, tensor<2x3xbf16>
}

// -----

// CHECK-LABEL: func.func @mul_non_neutral_splat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @mul_non_neutral_splat(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<2x3xf32>
  // CHECK: %[[R:.*]] = tg.mul %[[ZERO]], %[[X]]
  // CHECK: return %[[R]]
  %zero = tg.constant dense<0.0> : tensor<2x3xf32>
  %0 = tg.mul %zero, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>)
func.func @div_one(%x: tensor<2x3xf16>) -> (tensor<2x3xf16>, tensor<2x3xf16>) {
  // CHECK: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<2x3xf16>
  // x / 1 folds; 1 / x stays.
  // CHECK: %[[INV:.*]] = tg.div %[[ONE]], %[[X]]
  // CHECK: return %[[X]], %[[INV]]
  %one = tg.constant dense<1.0> : tensor<2x3xf16>
  %0 = tg.div %x, %one : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %1 = tg.div %one, %x : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return %0, %1 : tensor<2x3xf16>, tensor<2x3xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concat_single_input
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @concat_single_input(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: tg.concat
  // CHECK: return %[[X]]
  %0 = tg.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_two_inputs
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @concat_two_inputs(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // CHECK: %[[R:.*]] = tg.concat %[[X]], %[[X]]
  // CHECK: return %[[R]]
  %0 = tg.concat %x, %x {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>)
func.func @slice_full(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // CHECK-NOT: tg.slice
  // CHECK: return %[[X]]
  %0 = tg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 10>,
                    steps = array<i64: 1, 1>}
      : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// CHECK-LABEL: func.func @slice_crop
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>)
func.func @slice_crop(%x: tensor<4x10xf32>) -> tensor<4x9xf32> {
  // CHECK: %[[R:.*]] = tg.slice %[[X]]
  // CHECK: return %[[R]]
  %0 = tg.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 10>,
                    steps = array<i64: 1, 1>}
      : (tensor<4x10xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @pad_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NOT: tg.pad
  // CHECK: return %[[X]], %[[X]]
  %0 = tg.pad %x {pads = array<i64: 0, 0, 0, 0>}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tg.pad %x {pads = array<i64: 0, 0, 0, 0>, mode = #tg<pad_mode reflect>}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @pad_nonzero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @pad_nonzero(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // CHECK: %[[R:.*]] = tg.pad %[[X]] {pads = array<i64: 0, 0, 0, 1>}
  // CHECK: return %[[R]]
  %0 = tg.pad %x {pads = array<i64: 0, 0, 0, 1>}
      : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: tg.reshape
  // CHECK: return %[[X]]
  %0 = tg.reshape %x {shape = array<i64: 2, 3>}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_other_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @reshape_other_type(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[R:.*]] = tg.reshape %[[X]] {shape = array<i64: 3, 2>}
  // CHECK: return %[[R]]
  %0 = tg.reshape %x {shape = array<i64: 3, 2>}
      : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_constant
func.func @reshape_of_constant() -> tensor<2x2xf32> {
  // CHECK: %[[C:.*]] = tg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK-NOT: tg.reshape
  // CHECK: return %[[C]]
  %0 = tg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = tg.reshape %0 {shape = array<i64: 2, 2>}
      : (tensor<4xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // CHECK: %[[R:.*]] = tg.reshape %[[X]] {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  // CHECK-NOT: tg.reshape
  // CHECK: return %[[R]]
  %0 = tg.reshape %x {shape = array<i64: 6, 4>}
      : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = tg.reshape %0 {shape = array<i64: 4, 6>}
      : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A chain that comes back to the input's shape disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NOT: tg.reshape
  // CHECK: return %[[X]]
  %0 = tg.reshape %x {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = tg.reshape %0 {shape = array<i64: 2, 3>}
      : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK-NOT: tg.transpose
  // CHECK: return %[[X]]
  %0 = tg.transpose %x {perm = array<i64: 0, 1, 2>}
      : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Swapping two axes of equal size keeps the type but not the value.
// CHECK-LABEL: func.func @transpose_not_identity
// CHECK-SAME: (%[[X:.*]]: tensor<3x3x4xf32>)
func.func @transpose_not_identity(%x: tensor<3x3x4xf32>)
    -> (tensor<3x3x4xf32>, tensor<4x3x3xf32>) {
  // CHECK: %[[T0:.*]] = tg.transpose %[[X]] {perm = array<i64: 1, 0, 2>} : (tensor<3x3x4xf32>) -> tensor<3x3x4xf32>
  // CHECK: %[[T1:.*]] = tg.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<3x3x4xf32>) -> tensor<4x3x3xf32>
  // CHECK: return %[[T0]], %[[T1]]
  %0 = tg.transpose %x {perm = array<i64: 1, 0, 2>}
      : (tensor<3x3x4xf32>) -> tensor<3x3x4xf32>
  %1 = tg.transpose %x {perm = array<i64: 2, 0, 1>}
      : (tensor<3x3x4xf32>) -> tensor<4x3x3xf32>
  return %0, %1 : tensor<3x3x4xf32>, tensor<4x3x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.cast
//===----------------------------------------------------------------------===//

// A cast to the input's own type is the input; a conversion stays, and so
// does a round trip through bf16, which rounds.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
func.func @cast(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // CHECK: %[[B:.*]] = tg.cast %[[X]] : tensor<2xf32> to tensor<2xbf16>
  // CHECK: %[[F:.*]] = tg.cast %[[B]] : tensor<2xbf16> to tensor<2xf32>
  // CHECK: return %[[X]], %[[F]]
  %0 = tg.cast %x : tensor<2xf32> to tensor<2xf32>
  %1 = tg.cast %0 : tensor<2xf32> to tensor<2xbf16>
  %2 = tg.cast %1 : tensor<2xbf16> to tensor<2xf32>
  return %0, %2 : tensor<2xf32>, tensor<2xf32>
}
