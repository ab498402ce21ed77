// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp --split-input-file | FileCheck %s

// Mixed precision on the CPU: bf16 arena views carry their element type,
// tg.cast calls the conversion kernel, the low-precision kernels take the
// bf16 views, and the step's arguments and results stay f32.

func.func @train_step(%x: tensor<1x2x4x4xf32> {tg.input = "input"},
                      %w: tensor<3x2x3x3xf32> {tg.param = "w"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x3x4x4xf32> {tg.output = "out"}) {
  %xl = tg.cast %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4xbf16> loc("/conv/Cast")
  %wl = tg.cast %w : tensor<3x2x3x3xf32> to tensor<3x2x3x3xbf16>
  %y = tg.conv %xl, %wl {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xbf16>, tensor<3x2x3x3xbf16>) -> tensor<1x3x4x4xbf16> loc("/conv/Conv")
  %r = tg.relu %y : tensor<1x3x4x4xbf16> loc("/act/Relu")
  %o = tg.cast %r : tensor<1x3x4x4xbf16> to tensor<1x3x4x4xf32> loc("/out/Cast")
  return %loss, %o : tensor<f32>, tensor<1x3x4x4xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor input = memopt::rt::bufferTensor(args, 0, {1, 2, 4, 4});
// CHECK: memopt::rt::Tensor [[XL:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 2, 4, 4}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::cast(input, [[XL]]);
// CHECK: memopt::rt::Tensor [[WL:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {3, 2, 3, 3}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::cast(w, [[WL]]);
// CHECK: memopt::rt::conv([[XL]], [[WL]], {}, [[Y:[a-z_0-9]+]],
// CHECK: memopt::rt::relu([[Y]], [[R:[a-z_0-9]+]]);
// CHECK: memopt::rt::Tensor out = memopt::rt::bufferTensor(results, 1, {1, 3, 4, 4});
// CHECK: memopt::rt::cast([[R]], out);

// -----

// An f16 constant (tg-amp converts constants at compile time) is stored as
// its bits and viewed as f16.

func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  %c = tg.constant dense<[1.0, 2.0, -2.0, 0.5]> : tensor<4xf16>
  %h = tg.cast %x : tensor<4xf32> to tensor<4xf16>
  %s = tg.add %h, %c : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %o = tg.cast %s : tensor<4xf16> to tensor<4xf32>
  return %loss, %o : tensor<f32>, tensor<4xf32>
}

// CHECK: static int16_t [[DATA:[a-z_0-9]+]][4] = {15360, 16384, -16384, 14336};
// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor [[C:[a-z_0-9]+]](reinterpret_cast<float *>([[DATA]]), {4}, memopt::rt::ElementType::F16);
// CHECK: memopt::rt::add({{[a-z_0-9]+}}, [[C]], {{[a-z_0-9]+}});

// -----

// A 3-D instance norm and PReLU on bf16 tensors (rank 5): the kernels take
// the bf16 views of the input, output and slope, and f32 views of the
// scale, bias and the N x C statistics.

func.func @train_step(%x: tensor<1x2x4x4x4xf32> {tg.input = "input"},
                      %s: tensor<2xf32> {tg.param = "s"},
                      %b: tensor<2xf32> {tg.param = "b"},
                      %a: tensor<2x1x1x1xf32> {tg.param = "a"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x2x4x4x4xf32> {tg.output = "out"},
        tensor<1x2xf32> {tg.output = "mean"}) {
  %xl = tg.cast %x : tensor<1x2x4x4x4xf32> to tensor<1x2x4x4x4xbf16>
  %y:3 = tg.instance_norm %xl, %s, %b
      : (tensor<1x2x4x4x4xbf16>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<1x2x4x4x4xbf16>, tensor<1x2xf32>, tensor<1x2xf32>)
  %al = tg.cast %a : tensor<2x1x1x1xf32> to tensor<2x1x1x1xbf16>
  %p = tg.prelu %y#0, %al : (tensor<1x2x4x4x4xbf16>, tensor<2x1x1x1xbf16>) -> tensor<1x2x4x4x4xbf16>
  %o = tg.cast %p : tensor<1x2x4x4x4xbf16> to tensor<1x2x4x4x4xf32>
  return %loss, %o, %y#1 : tensor<f32>, tensor<1x2x4x4x4xf32>, tensor<1x2xf32>
}

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::Tensor [[XL:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 2, 4, 4, 4}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::cast(input, [[XL]]);
// CHECK: memopt::rt::Tensor [[Y:[a-z_0-9]+]] = memopt::rt::arenaTensor(arenas[0], {{[0-9]+}}, {1, 2, 4, 4, 4}, memopt::rt::ElementType::BF16);
// CHECK: memopt::rt::instanceNorm([[XL]], s, b, [[Y]], mean, [[I:[a-z_0-9]+]], 1e-05);
// CHECK: memopt::rt::prelu([[Y]], [[AL:[a-z_0-9]+]], [[P:[a-z_0-9]+]]);
