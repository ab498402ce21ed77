// RUN: memopt-opt %s | memopt-opt | FileCheck %s

// The four ops of an offloaded tensor round-trip, in their protocol's
// order: start and wait of the offload, start and wait of the prefetch,
// then the readers of the prefetched tensor.
// CHECK-LABEL: func.func @offload_and_prefetch
// CHECK: %[[X:.*]] = tg.relu %{{.*}} : tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[H:.*]] = tg.offload_start %[[X]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[Y:.*]] = tg.sigmoid %[[X]]
// CHECK-NEXT: tg.offload_wait %[[X]], %[[H]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[D:.*]] = tg.prefetch_start %[[H]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.prefetch_wait %[[D]] : tensor<1x2x4x4xf32>
// CHECK-NEXT: tg.add %[[Y]], %[[D]]
func.func @offload_and_prefetch(%a: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %x = tg.relu %a : tensor<1x2x4x4xf32>
  %h = tg.offload_start %x : tensor<1x2x4x4xf32>
  %y = tg.sigmoid %x : tensor<1x2x4x4xf32>
  tg.offload_wait %x, %h : tensor<1x2x4x4xf32>
  %d = tg.prefetch_start %h : tensor<1x2x4x4xf32>
  tg.prefetch_wait %d : tensor<1x2x4x4xf32>
  %z = tg.add %y, %d : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}
