// RUN: memopt-opt %s -split-input-file -verify-diagnostics -memopt-set-target=target=cuda -tg-annotate-workspaces -tg-plan-memory -convert-tg-to-emitc

// cuDNN pads symmetrically: an asymmetric convolution pad is rejected at
// the op (the CPU target accepts it).
func.func @train_step(%x: tensor<1x1x8x8xf32> {tg.input = "input"},
                      %w: tensor<1x1x3x3xf32> {tg.param = "conv.weight"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<1x1x7x7xf32> {tg.output = "y"}) {
  // expected-error @+1 {{the CUDA backend needs symmetric convolution padding (cuDNN), got pads [0, 0, 1, 1]; pad the input explicitly or use --target=cpu}}
  %y = tg.conv2d %x, %w {pads = array<i64: 0, 0, 1, 1>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x7x7xf32>
  return %loss, %y : tensor<f32>, tensor<1x1x7x7xf32>
}

// -----

// The CUDA runtime has no bf16/fp16 kernels yet: tg.cast names the target
// that has them.
func.func @train_step(%x: tensor<4xf32> {tg.input = "input"}, %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<4xf32> {tg.output = "out"}) {
  // expected-error @+1 {{'tg.cast' op has no CUDA kernel yet: the CUDA runtime computes in float32 only, so a conversion to 'bf16' cannot be lowered; build mixed precision for the CPU (#memopt.target<cpu>, memopt-compile --target=cpu)}}
  %h = tg.cast %x : tensor<4xf32> to tensor<4xbf16>
  %y = tg.cast %h : tensor<4xbf16> to tensor<4xf32>
  return %loss, %y : tensor<f32>, tensor<4xf32>
}
