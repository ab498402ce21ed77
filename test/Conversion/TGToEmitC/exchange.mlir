// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CPU

// A data-parallel step (2 replicas, --zero=1's shard and gather): both
// backends call the same transfers, which the runtime linked in implements
// (MPI on host tensors; on CUDA, NCCL or MPI through a staging buffer).
// The Program records the largest exchanged tensor, here the gathered
// 5x3 whole (60 bytes; the averaged 4x3 is 48, the shard is local), which
// sizes the CUDA exchange's staging buffer.

module attributes {memopt.data_parallel = 2 : i64} {
  func.func @train_step(%g: tensor<4x3xf32> {tg.input = "g"},
                        %w: tensor<5x3xf32> {tg.param = "w"},
                        %l: tensor<f32> {tg.input = "l"})
      -> (tensor<f32> {tg.output = "loss"},
          tensor<4x3xf32> {tg.output = "mean"},
          tensor<5x3xf32> {tg.param = "w"}) {
    %loss = tg.all_reduce %l over 2 : tensor<f32>
    %m = tg.all_reduce %g over 2 : tensor<4x3xf32>
    %p = tg.shard %w over 2 : tensor<5x3xf32> -> tensor<8xf32>
    %n = tg.all_gather %p over 2 : tensor<8xf32> -> tensor<5x3xf32>
    return %loss, %m, %n : tensor<f32>, tensor<4x3xf32>, tensor<5x3xf32>
  }
}

// CHECK: #include "memopt/Runtime/Transfer.h"
// CHECK: #include "memopt/Runtime/CUDA/Launch.h"
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::allReduceMean(l, {{[a-z_0-9]+}});
// CHECK: memopt::rt::allReduceMean(g, {{[a-z_0-9]+}});
// CHECK: memopt::rt::replicaPart(w, [[PART:[a-z_0-9]+]]);
// CHECK: memopt::rt::allGatherParts([[PART]], {{[a-z_0-9]+}});
// CHECK: /*dataInput=*/nullptr,
// CHECK-NEXT: /*dataTarget=*/nullptr,
// CHECK-NEXT: /*threads=*/0,
// CHECK-NEXT: /*exchangeBytes=*/60,
// CHECK: memopt::rt::stageMain({{.*}}, kProgram, 1, 2);

// CPU-NOT: CUDA/Launch.h
// CPU: memopt::rt::allReduceMean(
// CPU: /*exchangeBytes=*/60,
