// RUN: memopt-opt %s -split-input-file -tg-fuse-elementwise | FileCheck %s

// add + relu (a residual block): the sum has one user, the relu; both
// become one fused op at the relu's place.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<2x4xf32>
// CHECK: %[[F:.*]] = tg.fused_elementwise %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x4xf32>, %[[Y:.*]]: tensor<2x4xf32>):
// CHECK-NEXT: %[[S:.*]] = tg.add %[[X]], %[[Y]]
// CHECK-NEXT: %[[R:.*]] = tg.relu %[[S]]
// CHECK-NEXT: tg.yield %[[R]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @residual(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tg.add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tg.relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// Gradients meeting at a skip connection: relu_backward feeds an add; a
// value used twice (%g) is an input, read once per element.
// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[G:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf32>, %[[S:.*]]: tensor<8xf32>
// CHECK: tg.fused_elementwise %[[G]], %[[Y]], %[[S]] : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK: tg.relu_backward
// CHECK-NEXT: tg.add
// CHECK-NEXT: tg.mul
// CHECK-NEXT: tg.yield
func.func @backward(%g: tensor<8xf32>, %y: tensor<8xf32>, %skip: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tg.relu_backward %g, %y : tensor<8xf32>
  %1 = tg.add %0, %skip : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = tg.mul %1, %g : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// Not fused: a value with a second user must be stored anyway, a
// broadcasting add cannot be fused, and a lone op stays a library call.
// CHECK-LABEL: func.func @unfused(
// CHECK-NOT: tg.fused_elementwise
// CHECK: tg.relu
// CHECK: tg.sigmoid
// CHECK: tg.add
// CHECK: tg.tanh
func.func @unfused(%a: tensor<4xf32>, %bias: tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tg.relu %a : tensor<4xf32>
  %1 = tg.sigmoid %0 : tensor<4xf32>
  %2 = tg.add %1, %bias : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %3 = tg.tanh %2 : tensor<4xf32>
  return %0, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// An op between the members does not block the group; the group is placed
// at its last member, after it.
// CHECK-LABEL: func.func @interleaved(
// CHECK: %[[M:.*]] = tg.max_pool
// CHECK: tg.fused_elementwise
// CHECK: tg.neg
// CHECK-NEXT: tg.exp
// CHECK: return
func.func @interleaved(%a: tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) {
  %0 = tg.neg %a : tensor<1x1x4x4xf32>
  %m = tg.max_pool %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %1 = tg.exp %0 : tensor<1x1x4x4xf32>
  return %1, %m : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>
}

// -----

// tg.select is not fused (as tg.compare): the add feeding it and the relu
// after it stay separate ops, even when nothing broadcasts.
// CHECK-LABEL: func.func @select(
// CHECK-NOT: tg.fused_elementwise
// CHECK: tg.add
// CHECK-NEXT: tg.select
// CHECK-NEXT: tg.relu
func.func @select(%m: tensor<2x4xf32>, %a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tg.add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tg.select %m, %0, %b : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = tg.relu %1 : tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}
