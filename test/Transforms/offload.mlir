// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto -tg-plan-memory -convert-tg-to-mbuf | FileCheck %s --check-prefix=MBUF
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4400' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto offload=true' | FileCheck %s --check-prefix=MARK
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4400' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto offload=true' -tg-schedule -tg-offload | FileCheck %s --check-prefix=JOINT
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=4700 device="cpu,link=1MB/s"' -tg-autodiff='loss=mse optimizer=sgd' -tg-remat='strategy=auto offload=true' | FileCheck %s --check-prefix=SLOW
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=5100 device="cpu,link=1MB/s"' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto | FileCheck %s --check-prefix=SYNC
// RUN: memopt-opt %s -memopt-set-target='target=cpu budget=6116' -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload=strategy=auto | FileCheck %s --check-prefix=PLAIN
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-autodiff='loss=mse optimizer=sgd' -tg-schedule -tg-offload | FileCheck %s --check-prefix=NONE

// The U-Net in miniature of remat-auto.mlir: persistent 2148 bytes, a
// planned arena of 3968 bytes without offload (predicted peak 6116).
//
// Under 5100 bytes (an arena of 2952), offloading the skip (the encoder
// ReLU) fits: it leaves after the concat, its last forward reader, the
// device bytes are released once the copy is predicted done (512 bytes at
// the cpu profile's 51.2 GB/s link: after the next conv), and it comes
// back as late as the link allows before its first backward reader.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: memopt.offload = #memopt.offload<planner = "tg-offload", budget_bytes = 5100, persistent_bytes = 2148, planned_arena_bytes = 2944, rounds = {{[0-9]+}}, values = 1, d2h_bytes = 512, h2d_bytes = 512, host_bytes = 512, link_bytes_per_second = 5.120000e+10 : f64, compute_seconds = {{.*}}, stall_seconds = 0.000000e+00 : f64>
// CHECK: %[[SKIP:.*]] = tg.relu %output
// CHECK: %[[CAT:.*]] = tg.concat %{{.*}}, %[[SKIP]]
// CHECK-NEXT: %[[HOST:.*]] = tg.offload_start %[[SKIP]] {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 1.000000e-08 : f64>} : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.conv %[[CAT]]
// CHECK-NEXT: tg.offload_wait %[[SKIP]], %[[HOST]] : tensor<1x2x8x8xf32>
// CHECK-NOT: %[[SKIP]]{{[,: ]}}
// CHECK: %[[BACK:.*]] = tg.prefetch_start %[[HOST]] : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.sgd_update
// CHECK-NEXT: tg.prefetch_wait %[[BACK]] : tensor<1x2x8x8xf32>
// CHECK-NEXT: tg.max_pool_backward %{{.*}}, %[[BACK]]
// CHECK-NOT: %[[SKIP]]{{[,: ]}}
// CHECK: tg.relu_backward %{{.*}}, %[[BACK]]
// CHECK-NOT: %[[SKIP]]{{[,: ]}}
// CHECK: return

// In buffers: the host copy is a view of a pinned host arena of its own;
// each copy is an mbuf.copy_async whose token the wait takes; the device
// arena is the planned 2944 bytes.
// MBUF-LABEL: func.func @train_step
// MBUF: %[[ARENA:.*]] = mbuf.arena 0 size 2944 on device 0 : !mbuf.arena<device>
// MBUF-NEXT: %[[HOSTARENA:.*]] = mbuf.arena 1 size 512 on device 0 : !mbuf.arena<pinned_host>
// MBUF: %[[HOST:.*]] = mbuf.view %[[HOSTARENA]][0] : !mbuf.arena<pinned_host> -> !mbuf.view<1x2x8x8xf32, pinned_host>
// MBUF-NEXT: %[[OUT:.*]] = mbuf.copy_async %{{.*}} to %[[HOST]] : !mbuf.view<1x2x8x8xf32> -> !mbuf.view<1x2x8x8xf32, pinned_host>
// MBUF: mbuf.wait %[[OUT]]
// MBUF: %[[IN:.*]] = mbuf.copy_async %[[HOST]] to %[[BACK:[^ ]*]] : !mbuf.view<1x2x8x8xf32, pinned_host> -> !mbuf.view<1x2x8x8xf32>
// MBUF: mbuf.wait %[[IN]]
// MBUF: mbuf.kernel ins(%{{.*}}, %[[BACK]] :
// MBUF-NEXT: ^bb0
// MBUF-NEXT: tg.max_pool_backward

// Jointly with remat under 4400 bytes (recomputing alone needs the
// encoder conv twice there, remat-auto.mlir's NESTED): on this link every offload hides behind
// the compute, so offloading is the cheapest choice for each value;
// tg-remat marks them and recomputes nothing.
// MARK-LABEL: func.func @train_step
// MARK-SAME: planned_arena_bytes = 2240, {{.*}}recomputed_ops = 0, {{.*}}offloaded_values = 4, offloaded_bytes = 1160>
// MARK: tg.conv %arg0, %{{.*}} {memopt.offload_results = #memopt.offload_results<results = [0]>
// MARK: tg.batch_norm {{.*}}{memopt.offload_results = #memopt.offload_results<results = [4]>}
// MARK: tg.relu {{.*}}{memopt.offload_results = #memopt.offload_results<results = [0]>}
// MARK-NOT: memopt.recompute

// tg-offload inserts the marked copies without planning again.
// JOINT-LABEL: func.func @train_step
// JOINT-SAME: memopt.offload = #memopt.offload<planner = "tg-remat", values = 4, d2h_bytes = 1216, h2d_bytes = 1216, host_bytes = 1216, {{.*}}compute_seconds = {{.*}}, stall_seconds = 0.000000e+00 : f64>
// JOINT-NOT: memopt.offload_results
// JOINT-COUNT-4: tg.offload_start
// JOINT-NOT: memopt.offload_results

// Over a 1 MB/s link an offload would stall for longer than recomputing
// takes: the joint planner recomputes instead.
// SLOW-LABEL: func.func @train_step
// SLOW-SAME: recomputed_values = 2, {{.*}}simulated_peak_bytes_after = {{[0-9]+}}>
// SLOW-NOT: memopt.offload_results

// Offloading alone over that link: no copy can hide behind the compute,
// so the skip is offloaded synchronously (each copy waits at once: the
// whole window is free, both copies stall, 2 x 512 bytes / 1 MB/s).
// SYNC-LABEL: func.func @train_step
// SYNC-SAME: memopt.offload = #memopt.offload<{{.*}}planned_arena_bytes = 2944, {{.*}}values = 1, synchronous = 1, {{.*}}stall_seconds = 0.0010240000000000002 : f64>
// SYNC: %[[SKIP:.*]] = tg.relu %output
// SYNC: %[[HOST:.*]] = tg.offload_start %[[SKIP]] {memopt.offload_copy = #memopt.offload_copy<bytes = 512, seconds = 5.120000e-04 : f64, synchronous = true>}
// SYNC-NEXT: tg.offload_wait %[[SKIP]], %[[HOST]]
// SYNC: %[[BACK:.*]] = tg.prefetch_start %[[HOST]]
// SYNC-NEXT: tg.prefetch_wait %[[BACK]]
// SYNC-NEXT: tg.max_pool_backward %{{.*}}, %[[BACK]]

// A budget at the plain predicted peak offloads nothing.
// PLAIN: memopt.offload = #memopt.offload<planner = "tg-offload", budget_bytes = 6116, {{.*}}planned_arena_bytes = 3968, link_bytes_per_second
// PLAIN-NOT: tg.offload_start

// strategy=none with nothing marked changes nothing.
// NONE-NOT: memopt.offload
// NONE-NOT: tg.offload_start
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

