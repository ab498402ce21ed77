// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu device="custom,memory=1GiB,fp32=1G,bandwidth=1GB/s"' -tg-annotate-workspaces -tg-estimate-cost | FileCheck %s
// RUN: memopt-opt %s -split-input-file -memopt-set-target='target=cpu device=h100' -tg-annotate-workspaces -tg-estimate-cost | FileCheck %s --check-prefix=H100

// The cost model's formulas on small graphs. On a device of 1 GFLOP/s and
// 1 GB/s without launch overhead an op takes max(flops, bytes) ns.

// Convolution: 2 FLOPs per output element per tap of one group (+1 per
// output element for the bias); its gradients exchange the roles.
// CHECK-LABEL: func.func @convolution
// The function gets the totals; its ops' times add up to 35840 ns.
// CHECK-SAME: attributes {memopt.cost = {backward_flops = 0 : i64, bytes = 21416 : i64, device = "custom", forward_flops = 33408 : i64, optimizer_flops = 0 : i64, recompute_flops = 0 : i64, seconds = 3.5839999999999996E-5 : f64}, memopt.workspace_threads = {{[0-9]+}} : i64}
// On the H100 every op is bound by its 5 us launch overhead.
// H100-LABEL: func.func @convolution
// H100-SAME: memopt.cost = {backward_flops = 0 : i64, bytes = 21416 : i64, device = "h100", forward_flops = 33408 : i64, optimizer_flops = 0 : i64, recompute_flops = 0 : i64, seconds = 2.50{{[0-9]+}}E-5 : f64}
// 1x6x8x8 outputs x (2 channels per group x 3 x 3) taps: 2*384*18 + 384.
// Bytes: x 1024 + w 432 + b 24 + output 1536.
// CHECK: tg.conv {{.*}}memopt.cost = {bytes = 3016 : i64, flops = 14208 : i64, phase = "forward", seconds = 1.420800e-05 : f64, workspace = {{[0-9]+}} : i64}
// dy 1x6x4x4 (96) x 18 taps x 2; bytes dy 384 + w 432 + dx 1024.
// CHECK: tg.conv_backward_data {{.*}}memopt.cost = {bytes = 1840 : i64, flops = 3456 : i64, phase = "forward", seconds = 3.456000e-06 : f64
// CHECK: tg.conv_backward_filter {{.*}}memopt.cost = {bytes = 1840 : i64, flops = 3456 : i64, phase = "forward", seconds = 3.456000e-06 : f64
// Transposed: 2 FLOPs per input element (1x4x8x8) per tap (3 outputs per
// group x 2 x 2); bytes x 1024 + w 192 + output 1x6x16x16 6144.
// CHECK: tg.conv_transpose {{.*}}memopt.cost = {bytes = 7360 : i64, flops = 6144 : i64, phase = "forward", seconds = 7.3599999999999998E-6 : f64
// CHECK: tg.conv_transpose_backward_filter {{.*}}memopt.cost = {bytes = 7360 : i64, flops = 6144 : i64, phase = "forward"
func.func @convolution(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>,
                       %b: tensor<6xf32>, %dy: tensor<1x6x4x4xf32>,
                       %wt: tensor<4x3x2x2xf32>)
    -> (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>,
        tensor<1x6x16x16xf32>, tensor<4x3x2x2xf32>) {
  %0 = tg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  %1 = tg.conv_backward_data %dy, %w {strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64,
      input_shape = array<i64: 1, 4, 8, 8>}
      : (tensor<1x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  %2 = tg.conv_backward_filter %dy, %x {strides = array<i64: 2, 2>,
      pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64,
      weight_shape = array<i64: 6, 2, 3, 3>}
      : (tensor<1x6x4x4xf32>, tensor<1x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  %3 = tg.conv_transpose %x, %wt {strides = array<i64: 2, 2>, groups = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x6x16x16xf32>
  %4 = tg.conv_transpose_backward_filter %3, %x {strides = array<i64: 2, 2>,
      groups = 2 : i64, weight_shape = array<i64: 4, 3, 2, 2>}
      : (tensor<1x6x16x16xf32>, tensor<1x4x8x8xf32>) -> tensor<4x3x2x2xf32>
  return %0, %1, %2, %3, %4 : tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>,
      tensor<6x2x3x3xf32>, tensor<1x6x16x16xf32>, tensor<4x3x2x2xf32>
}

// -----

// Matmul: 2 FLOPs per output element per reduced element; gemm adds 2 per
// output element for beta * C.
// CHECK-LABEL: func.func @linear_algebra
// 2x3x5 outputs x K=4 x 2; bytes 96 + 160 + 120.
// CHECK: tg.matmul {{.*}}memopt.cost = {bytes = 376 : i64, flops = 240 : i64
// op(A) = A^T is 3x4 (K = 4), output 3x5: 2*15*4 + 2*15; bytes 48 + 80 + 20 + 60.
// CHECK: tg.gemm {{.*}}memopt.cost = {bytes = 208 : i64, flops = 150 : i64
func.func @linear_algebra(%l: tensor<2x3x4xf32>, %r: tensor<2x4x5xf32>,
                          %a: tensor<4x3xf32>, %b: tensor<4x5xf32>,
                          %c: tensor<5xf32>)
    -> (tensor<2x3x5xf32>, tensor<3x5xf32>) {
  %0 = tg.matmul %l, %r : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = tg.gemm %a, %b, %c {trans_a = true}
      : (tensor<4x3xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<3x5xf32>
}

// -----

// BatchNorm: 7 FLOPs per element and 4 per channel in training, 9 per
// element backward; pooling: one per window tap; nearest resize moves data
// only, bilinear weighs 4 taps (7 FLOPs).
// CHECK-LABEL: func.func @normalization_pooling
// 7*96 + 4*3; bytes x 384 + 4 x 12 read, 384 + 4 x 12 written.
// CHECK: tg.batch_norm {{.*}}memopt.cost = {bytes = 864 : i64, flops = 684 : i64
// 9*96; bytes dy 384 + x 384 + 3 x 12, dx 384 + 2 x 12.
// CHECK: tg.batch_norm_backward {{.*}}memopt.cost = {bytes = 1212 : i64, flops = 864 : i64
// 1x3x2x2 outputs (12) x 2x2 window; bytes 192 + 48.
// CHECK: tg.max_pool {{.*}}memopt.cost = {bytes = 240 : i64, flops = 48 : i64
// CHECK: tg.avg_pool {{.*}}memopt.cost = {bytes = 240 : i64, flops = 48 : i64
// CHECK: tg.resize {{.*}}memopt.cost = {bytes = 1920 : i64, flops = 0 : i64
// CHECK: tg.resize {{.*}}memopt.cost = {bytes = 1920 : i64, flops = 2688 : i64
func.func @normalization_pooling(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>,
                                 %bias: tensor<3xf32>, %m: tensor<3xf32>,
                                 %v: tensor<3xf32>, %dy: tensor<2x3x4x4xf32>,
                                 %p: tensor<1x3x4x4xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xf32>,
        tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<2x3x8x8xf32>,
        tensor<2x3x8x8xf32>) {
  %y, %nm, %nv, %sm, %si = tg.batch_norm %x, %s, %bias, %m, %v
      : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
         tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>,
                            tensor<3xf32>, tensor<3xf32>)
  %dx, %ds, %db = tg.batch_norm_backward %dy, %x, %s, %sm, %si
      : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>,
         tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>,
                                           tensor<3xf32>)
  %mp = tg.max_pool %p {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  %ap = tg.avg_pool %p {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  %rn = tg.resize %x {mode = #tg<resize_mode nearest>,
      coordinate_mode = #tg<coordinate_mode asymmetric>,
      nearest_mode = #tg<nearest_mode floor>, scales = array<f64: 2.0, 2.0>,
      sizes = array<i64: 8, 8>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %rb = tg.resize %x {mode = #tg<resize_mode bilinear>,
      coordinate_mode = #tg<coordinate_mode half_pixel>,
      scales = array<f64: 2.0, 2.0>, sizes = array<i64: 8, 8>}
      : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return %y, %nm, %nv, %dx, %mp, %ap, %rn, %rb : tensor<2x3x4x4xf32>,
      tensor<3xf32>, tensor<3xf32>, tensor<2x3x4x4xf32>, tensor<1x3x2x2xf32>,
      tensor<1x3x2x2xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>
}

// -----

// Elementwise ops count FLOPs per element; a cast and data movement count
// none and cost only their bytes.
// CHECK-LABEL: func.func @elementwise_cast_reshape
// sigmoid: 4 FLOPs per element of 4x8; bytes 128 read + 128 written.
// CHECK: tg.sigmoid {{.*}}memopt.cost = {bytes = 256 : i64, flops = 128 : i64, phase = "forward", seconds = 2.560000e-07 : f64}
// f32 to bf16: 128 bytes read, 64 written.
// CHECK: tg.cast {{.*}}memopt.cost = {bytes = 192 : i64, flops = 0 : i64, phase = "forward", seconds = 1.920000e-07 : f64}
// CHECK: tg.reshape {{.*}}memopt.cost = {bytes = 256 : i64, flops = 0 : i64, phase = "forward", seconds = 2.560000e-07 : f64}
func.func @elementwise_cast_reshape(%x: tensor<4x8xf32>)
    -> (tensor<4x8xbf16>, tensor<32xf32>) {
  %0 = tg.sigmoid %x : tensor<4x8xf32>
  %1 = tg.cast %0 : tensor<4x8xf32> to tensor<4x8xbf16>
  %2 = tg.reshape %0 {shape = array<i64: 32>} : (tensor<4x8xf32>) -> tensor<32xf32>
  return %1, %2 : tensor<4x8xbf16>, tensor<32xf32>
}

// -----

// A fused elementwise op is one kernel: the FLOPs of its body (add 1,
// leaky_relu 2 per element), its inputs and output as bytes; the ops of its
// body run no kernel of their own.
// CHECK-LABEL: func.func @fused_elementwise
// CHECK-SAME: memopt.cost = {backward_flops = 0 : i64, bytes = 96 : i64, device = "custom", forward_flops = 24 : i64
// CHECK: tg.fused_elementwise {{.*}}memopt.cost = {bytes = 96 : i64, flops = 24 : i64, phase = "forward", seconds = 9.5999999999999999E-8 : f64}
// CHECK-NOT: memopt.cost
// CHECK: return
func.func @fused_elementwise(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>)
    -> tensor<2x4xf32> {
  %y = tg.fused_elementwise %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>):
    %0 = tg.add %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = tg.leaky_relu %0 {alpha = 0.2} : tensor<2x4xf32>
    tg.yield %1 : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}
