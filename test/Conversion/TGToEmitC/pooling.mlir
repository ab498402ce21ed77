// RUN: memopt-opt %s -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// Pooling and resizing with their gradients; enums become the runtime's.

func.func @train_step(%x: tensor<1x2x8x8xf32> {tg.input = "input"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x2x8x8xf32> {tg.output = "dx"},
        tensor<1x2x1x1xf32> {tg.output = "gap"}) {
  %0 = tg.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> loc("/pool/MaxPool")
  %1 = tg.avg_pool %0 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = tg.resize %1 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, nearest_mode = #tg<nearest_mode floor>, sizes = array<i64: 8, 8>, scales = array<f64: 2.0, 2.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> loc("/up/Resize")
  %3 = tg.resize_backward %2 {mode = #tg<resize_mode nearest>, coordinate_mode = #tg<coordinate_mode asymmetric>, nearest_mode = #tg<nearest_mode floor>, scales = array<f64: 2.0, 2.0>, input_shape = array<i64: 1, 2, 4, 4>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> loc("/up/Resize")
  %4 = tg.avg_pool_backward %3 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true, input_shape = array<i64: 1, 2, 4, 4>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %5 = tg.max_pool_backward %4, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> loc("/pool/MaxPool")
  %6 = tg.global_avg_pool %x : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  return %loss, %5, %6 : tensor<f32>, tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::maxPool(input, max_pool_pool, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false);
// CHECK: memopt::rt::avgPool(max_pool_pool, avg_pool, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, true);
// CHECK: memopt::rt::resize(avg_pool, resize_up, memopt::rt::ResizeMode::Nearest, memopt::rt::CoordinateMode::Asymmetric, memopt::rt::NearestMode::Floor, {2.0, 2.0});
// CHECK: memopt::rt::resizeBackward(resize_up, resize_grad_up, memopt::rt::ResizeMode::Nearest, memopt::rt::CoordinateMode::Asymmetric, memopt::rt::NearestMode::Floor, {2.0, 2.0});
// CHECK: memopt::rt::avgPoolBackward(resize_grad_up, avg_pool_grad, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, true);
// CHECK: memopt::rt::maxPoolBackward(avg_pool_grad, input, dx, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false);
// CHECK: memopt::rt::globalAvgPool(input, gap);
