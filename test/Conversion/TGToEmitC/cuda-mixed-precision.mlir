// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp --split-input-file | FileCheck %s

// Mixed precision on CUDA: the bf16 arena views carry their element type
// into the runtime's calls (cuDNN convolutions and batch norm, the cast
// kernel), and BatchNorm's per-channel operands and statistics stay f32.

func.func @train_step(%x: tensor<1x2x64x64xf32> {tg.input = "input"},
                      %w: tensor<8x2x3x3xf32> {tg.param = "w"},
                      %g: tensor<8xf32> {tg.param = "g"},
                      %b: tensor<8xf32> {tg.param = "b"},
                      %rm: tensor<8xf32> {tg.state = "rm"},
                      %rv: tensor<8xf32> {tg.state = "rv"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x8x64x64xf32> {tg.output = "out"}) {
  %xl = tg.cast %x : tensor<1x2x64x64xf32> to tensor<1x2x64x64xbf16> loc("/conv/Cast")
  %wl = tg.cast %w : tensor<8x2x3x3xf32> to tensor<8x2x3x3xbf16> loc("/conv/CastW")
  %y = tg.conv %xl, %wl {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x64x64xbf16>, tensor<8x2x3x3xbf16>) -> tensor<1x8x64x64xbf16> loc("/conv/Conv")
  %n, %nm, %nv, %mean, %istd = tg.batch_norm %y, %g, %b, %rm, %rv {epsilon = 1.0e-5, momentum = 0.1} : (tensor<1x8x64x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x64x64xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) loc("/bn/BatchNormalization")
  %r = tg.relu %n : tensor<1x8x64x64xbf16> loc("/act/Relu")
  %o = tg.cast %r : tensor<1x8x64x64xbf16> to tensor<1x8x64x64xf32> loc("/out/Cast")
  return %loss, %o : tensor<f32>, tensor<1x8x64x64xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor input = memopt::rt::bufferTensor(args, 0, {1, 2, 64, 64});
// CHECK: memopt::rt::Tensor [[XL:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 2, 64, 64}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::cast(input, [[XL]]);
// CHECK: memopt::rt::Tensor [[WL:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {8, 2, 3, 3}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::cast(w, [[WL]]);
// CHECK: memopt::rt::Tensor [[Y:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 8, 64, 64}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::conv([[XL]], [[WL]], {}, [[Y]], {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, memopt::rt::arenaWorkspace(arenas[0], {{[0-9]+}}, {{[0-9]+}}));
// CHECK: memopt::rt::Tensor [[N:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 8, 64, 64}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::Tensor [[MEAN:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {8});
// CHECK: memopt::rt::batchNorm([[Y]], g, b, rm, rv, [[N]], {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, 1e-05, 0.1);
// CHECK: memopt::rt::relu([[N]], [[R:[a-z_0-9]+]]);
// CHECK: memopt::rt::Tensor out = memopt::rt::bufferTensor(results, 1, {1, 8, 64, 64});
// CHECK: memopt::rt::cast([[R]], out);

// -----

// An f16 elementwise chain is one generated kernel on __half pointers:
// loads widen to float, the arithmetic is float, the store rounds to
// nearest even; the launch passes the views' addresses as __half.

func.func @train_step(%a: tensor<2x4xf32> {tg.input = "input"},
                      %b: tensor<2x4xf32> {tg.param = "skip"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "y"}) {
  %al = tg.cast %a : tensor<2x4xf32> to tensor<2x4xf16>
  %bl = tg.cast %b : tensor<2x4xf32> to tensor<2x4xf16>
  %f = tg.fused_elementwise %al, %bl : (tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16> {
  ^bb0(%x: tensor<2x4xf16>, %s: tensor<2x4xf16>):
    %0 = tg.add %x, %s : (tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
    %1 = tg.relu %0 : tensor<2x4xf16>
    tg.yield %1 : tensor<2x4xf16>
  } loc("/block/Fused")
  %y = tg.cast %f : tensor<2x4xf16> to tensor<2x4xf32>
  return %loss, %y : tensor<f32>, tensor<2x4xf32>
}

// CHECK: // tg.fused_elementwise: add, relu
// CHECK-NEXT: static __global__ void [[KERNEL:kernel_[a-z_0-9]+]](const __half *in0, const __half *in1, __half *out, int64_t n) {
// CHECK-NEXT:   for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
// CHECK-NEXT:        i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
// CHECK-NEXT:     const float x0 = __half2float(in0[i]);
// CHECK-NEXT:     const float x1 = __half2float(in1[i]);
// CHECK-NEXT:     const float v0 = x0 + x1;
// CHECK-NEXT:     const float v1 = v0 < 0 ? 0.0f : v0;
// CHECK-NEXT:     out[i] = __float2half_rn(v1);
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor [[A:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {2, 4}, memopt::rt::ElementType::F16);
// CHECK: memopt::rt::Tensor [[F:fused_elementwise_[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {2, 4}, memopt::rt::ElementType::F16);
// CHECK-NEXT: [[KERNEL]]<<<memopt::rt::cuda::launchBlocks(8), memopt::rt::cuda::kLaunchThreads, 0, memopt::rt::cuda::stream()>>>(reinterpret_cast<const __half *>([[A]].data), reinterpret_cast<const __half *>({{[a-z_0-9]+}}.data), reinterpret_cast<__half *>([[F]].data), 8);
// CHECK-NEXT: memopt::rt::cuda::checkLaunch("[[KERNEL]]");
// CHECK: memopt::rt::cast([[F]], y);

// -----

// A bf16 matmul calls the same kernel on bf16 views (cublasGemmEx in the
// runtime); an f16 constant is copied into the arena from its bits.

func.func @train_step(%a: tensor<2x3xf32> {tg.input = "input"},
                      %b: tensor<3x4xf32> {tg.param = "b"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "y"}, tensor<4xf32> {tg.output = "c"}) {
  %al = tg.cast %a : tensor<2x3xf32> to tensor<2x3xbf16>
  %bl = tg.cast %b : tensor<3x4xf32> to tensor<3x4xbf16>
  %m = tg.matmul %al, %bl : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16> loc("/fc/MatMul")
  %y = tg.cast %m : tensor<2x4xbf16> to tensor<2x4xf32>
  %k = tg.constant dense<[1.0, 2.0, -2.0, 0.5]> : tensor<4xf16> loc("/k/Constant")
  %c = tg.cast %k : tensor<4xf16> to tensor<4xf32>
  return %loss, %y, %c : tensor<f32>, tensor<2x4xf32>, tensor<4xf32>
}

// CHECK: static int16_t [[DATA:[a-z_0-9]+]][4] = {15360, 16384, -16384, 14336};
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor [[M:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {2, 4}, memopt::rt::ElementType::BF16);
// CHECK-NEXT: memopt::rt::matmul({{[a-z_0-9]+}}, {{[a-z_0-9]+}}, [[M]]);
// CHECK: memopt::rt::Tensor [[K:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {4}, memopt::rt::ElementType::F16);
// CHECK-NEXT: memopt::rt::constant(reinterpret_cast<const float *>([[DATA]]), [[K]]);

// -----

// fp16 loss scaling: an update marked tg.skip_nonfinite calls the
// runtime's guarded update, which checks the gradient on the GPU.

func.func @train_step(%w: tensor<4xf32> {tg.param = "w"},
                      %g: tensor<4xf32> {tg.input = "input"},
                      %m: tensor<4xf32> {tg.opt_state = "w.exp_avg"},
                      %s: tensor<4xf32> {tg.opt_state = "w.exp_avg_sq"},
                      %step: tensor<i64> {tg.step = "step"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.param = "w"},
        tensor<4xf32> {tg.opt_state = "w.exp_avg"}, tensor<4xf32> {tg.opt_state = "w.exp_avg_sq"}) {
  %nw, %nm, %ns = tg.adam_update %w, %g, %m, %s, step %step {lr = 1.0e-3, tg.skip_nonfinite} : tensor<4xf32>
  return %loss, %nw, %nm, %ns : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::adamUpdateSkipNonFinite(w, input, w_exp_avg, w_exp_avg_sq, step, {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, {{[a-z_0-9]+}}, learning_rate, 0.9, 0.999, 1e-08, 0.0, false);
