// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-schedule | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-schedule='strategies=given' | FileCheck %s --check-prefix=GIVEN
// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-schedule='strategies=free-first' | FileCheck %s --check-prefix=GREEDY

// Two 4 KiB values computed first and pooled afterwards: the given order
// holds both (and a pooled value) at once. free-first pools each as soon as
// it exists.
// CHECK-LABEL: func.func @pool_early
// CHECK-SAME: memopt.schedule = #memopt.schedule<strategy = "free-first", simulated_peak_bytes = 6144, candidates = {"free-first" = 6144 : i64, "frees-asap" = 6144 : i64, given = 9216 : i64}>
// CHECK: %[[A:.*]] = tg.relu
// CHECK-NEXT: tg.max_pool %[[A]]
// CHECK-NEXT: %[[B:.*]] = tg.sigmoid
// CHECK-NEXT: tg.max_pool %[[B]]
// CHECK-NEXT: tg.add
// GIVEN-LABEL: func.func @pool_early
// GIVEN-SAME: memopt.schedule = #memopt.schedule<strategy = "given", simulated_peak_bytes = 9216, candidates = {given = 9216 : i64}>
// GIVEN: tg.relu
// GIVEN-NEXT: tg.sigmoid
func.func @pool_early(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %x : tensor<1x1x32x32xf32>
  %c = tg.max_pool %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %d = tg.max_pool %b {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %e = tg.add %c, %d : (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %e : tensor<1x1x16x16xf32>
}

// -----

// Optimizer updates at the end keep every gradient alive: each update runs
// as soon as its gradient exists (the updated parameters go to their result
// buffers, outside the arena).
// CHECK-LABEL: func.func @updates_late
// CHECK-SAME: #memopt.schedule<strategy = "free-first", simulated_peak_bytes = 4096,
// CHECK: %[[G1:.*]] = tg.relu
// CHECK-NEXT: tg.sgd_update %{{.*}}, %[[G1]]
// CHECK-NEXT: %[[G2:.*]] = tg.sigmoid
// CHECK-NEXT: tg.sgd_update %{{.*}}, %[[G2]]
func.func @updates_late(%x: tensor<1x1x32x32xf32> {tg.input = "input"},
                        %p1: tensor<1x1x32x32xf32> {tg.param = "p1"},
                        %p2: tensor<1x1x32x32xf32> {tg.param = "p2"})
    -> (tensor<1x1x32x32xf32> {tg.param = "p1"}, tensor<1x1x32x32xf32> {tg.param = "p2"}) {
  %g1 = tg.relu %x : tensor<1x1x32x32xf32>
  %g2 = tg.sigmoid %x : tensor<1x1x32x32xf32>
  %n1 = tg.sgd_update %p1, %g1 {lr = 0.5} : tensor<1x1x32x32xf32>
  %n2 = tg.sgd_update %p2, %g2 {lr = 0.5} : tensor<1x1x32x32xf32>
  return %n1, %n2 : tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>
}

// -----

// An update overwrites its parameter in place: it must wait for every other
// reader of the parameter (tg.mul), although it would free more bytes
// earlier. (No order beats the given one here.)
// CHECK-LABEL: func.func @update_after_readers
// CHECK-SAME: #memopt.schedule<strategy = "given",
// GREEDY-LABEL: func.func @update_after_readers
// GREEDY: tg.sigmoid
// GREEDY-NEXT: tg.mul
// GREEDY-NEXT: tg.max_pool
// GREEDY-NEXT: tg.sgd_update
func.func @update_after_readers(%x: tensor<1x1x32x32xf32> {tg.input = "input"},
                                %p: tensor<1x1x32x32xf32> {tg.param = "p"})
    -> (tensor<1x1x16x16xf32> {tg.output = "out"}, tensor<1x1x32x32xf32> {tg.param = "p"}) {
  %g = tg.sigmoid %x : tensor<1x1x32x32xf32>
  %y = tg.mul %p, %x : (tensor<1x1x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  %z = tg.max_pool %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %n = tg.sgd_update %p, %g {lr = 0.5} : tensor<1x1x32x32xf32>
  return %z, %n : tensor<1x1x16x16xf32>, tensor<1x1x32x32xf32>
}

// -----

// A result written in place over its dying operand costs nothing: the
// chain relu -> sigmoid -> neg needs one buffer, so the given order is
// already best (ties keep it).
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME: memopt.schedule = #memopt.schedule<strategy = "given", simulated_peak_bytes = 4096, candidates = {"free-first" = 4096 : i64, "frees-asap" = 4096 : i64, given = 4096 : i64}>
func.func @in_place_chain(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.neg %b : tensor<1x1x32x32xf32>
  %d = tg.max_pool %c {kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
  return %d : tensor<1x1x32x32xf32>
}
