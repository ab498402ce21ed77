// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc

// cuDNN pads symmetrically: an asymmetric convolution pad is rejected at
// the op (the CPU target accepts it).
func.func @train_step(%x: tensor<1x1x8x8xf32> {tg.input = "input"},
                      %w: tensor<1x1x3x3xf32> {tg.param = "conv.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x7x7xf32> {tg.output = "y"}) {
  // expected-error @+1 {{cuDNN needs symmetric convolution padding (the begin and the end of each spatial axis equal); pad the input explicitly or use --target=cpu (got rank 4, pads [0, 0, 1, 1])}}
  %y = tg.conv %x, %w {pads = array<i64: 0, 0, 1, 1>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x7x7xf32>
  return %loss, %y : tensor<f32>, tensor<1x1x7x7xf32>
}

// -----

// The same for a 3-D convolution: its depth padded at the end only.
func.func @train_step(%x: tensor<1x1x8x8x8xf32> {tg.input = "input"},
                      %w: tensor<1x1x3x3x3xf32> {tg.param = "conv.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x7x8x8xf32> {tg.output = "y"}) {
  // expected-error @+1 {{cuDNN needs symmetric convolution padding (the begin and the end of each spatial axis equal); pad the input explicitly or use --target=cpu (got rank 5, pads [0, 1, 1, 1, 1, 1])}}
  %y = tg.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 1, 1, 1, 1, 1>} : (tensor<1x1x8x8x8xf32>, tensor<1x1x3x3x3xf32>) -> tensor<1x1x7x8x8xf32>
  return %loss, %y : tensor<f32>, tensor<1x1x7x8x8xf32>
}

// -----

// Mixed precision lowers for CUDA, but an op the precision table leaves
// low needs a low-precision kernel: softmax has none, on either backend.
func.func @train_step(%x: tensor<2x4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "out"}) {
  %h = tg.cast %x : tensor<2x4xf32> to tensor<2x4xbf16>
  // expected-error @+1 {{'tg.softmax' has no bf16/f16 kernel; keep it in f32 with --amp-fp32-ops=softmax}}
  %s = tg.softmax %h {axis = 1} : tensor<2x4xbf16>
  %y = tg.cast %s : tensor<2x4xbf16> to tensor<2x4xf32>
  return %loss, %y : tensor<f32>, tensor<2x4xf32>
}
