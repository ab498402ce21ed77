// RUN: env OMP_NUM_THREADS=2 memopt-opt %s -memopt-set-target=target=cpu -tg-annotate-workspaces | FileCheck %s

// The filter gradient of a 3x3x3 convolution at 2 x 8 x 20 x 12 x 12 (a
// 3-D U-Net's top level, small): in f32 oneDNN's workspace; in bf16 and
// f16, which under lit's AVX2 cap convert through f32 copies (679936
// bytes for the whole problem: 7.4x the bf16 input), the workspace of its
// slabs of planes (bands of the outermost spatial axis, ConvBands.cpp),
// which the runtime then uses: the plan and the kernel agree.
// CHECK-LABEL: func.func @main(
// CHECK: tg.conv_backward_filter {{.*}}memopt.workspace_bytes = 304384 : i64{{.*}} -> tensor<8x8x3x3x3xf32>
// CHECK: tg.conv_backward_filter {{.*}}memopt.workspace_bytes = 465664 : i64{{.*}} -> tensor<8x8x3x3x3xbf16>
// CHECK: tg.conv_backward_filter {{.*}}memopt.workspace_bytes = 465664 : i64{{.*}} -> tensor<8x8x3x3x3xf16>
func.func @main(%dy: tensor<2x8x20x12x12xf32>, %x: tensor<2x8x20x12x12xf32>,
                %dyb: tensor<2x8x20x12x12xbf16>, %xb: tensor<2x8x20x12x12xbf16>,
                %dyh: tensor<2x8x20x12x12xf16>, %xh: tensor<2x8x20x12x12xf16>)
    -> (tensor<8x8x3x3x3xf32>, tensor<8x8x3x3x3xbf16>, tensor<8x8x3x3x3xf16>) {
  %0 = tg.conv_backward_filter %dy, %x
      {weight_shape = array<i64: 8, 8, 3, 3, 3>, strides = array<i64: 1, 1, 1>,
       dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>}
      : (tensor<2x8x20x12x12xf32>, tensor<2x8x20x12x12xf32>) -> tensor<8x8x3x3x3xf32>
  %1 = tg.conv_backward_filter %dyb, %xb
      {weight_shape = array<i64: 8, 8, 3, 3, 3>, strides = array<i64: 1, 1, 1>,
       dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>}
      : (tensor<2x8x20x12x12xbf16>, tensor<2x8x20x12x12xbf16>) -> tensor<8x8x3x3x3xbf16>
  %2 = tg.conv_backward_filter %dyh, %xh
      {weight_shape = array<i64: 8, 8, 3, 3, 3>, strides = array<i64: 1, 1, 1>,
       dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>}
      : (tensor<2x8x20x12x12xf16>, tensor<2x8x20x12x12xf16>) -> tensor<8x8x3x3x3xf16>
  return %0, %1, %2 : tensor<8x8x3x3x3xf32>, tensor<8x8x3x3x3xbf16>, tensor<8x8x3x3x3xf16>
}
