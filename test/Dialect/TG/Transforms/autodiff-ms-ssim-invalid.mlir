// RUN: memopt-opt %s -tg-autodiff=loss=ms-ssim -split-input-file -verify-diagnostics

// MS-SSIM needs 5 scales: the smaller side must exceed (11 - 1) * 2^4 = 160,
// as pytorch_msssim asserts.

// expected-error @+1 {{loss=ms-ssim needs images of at least 161x161 (5 scales: the 11-wide Gaussian window must fit after 4 halvings, as pytorch_msssim asserts), but the model's output is 160x256; train at a larger size or use loss=l1}}
func.func @main(%x: tensor<1x1x160x256xf32> {tg.input = "input"},
                %w: tensor<1x1x1x1xf32> {tg.param = "w"})
    -> (tensor<1x1x160x256xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<1x1x160x256xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x160x256xf32>
  return %0 : tensor<1x1x160x256xf32>
}

// -----

// expected-error @+1 {{loss=ms-ssim needs N x C x H x W images, got 'tensor<2x200xf32>'}}
func.func @main(%x: tensor<2x200xf32> {tg.input = "input"},
                %w: tensor<2x200xf32> {tg.param = "w"})
    -> (tensor<2x200xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<2x200xf32>, tensor<2x200xf32>) -> tensor<2x200xf32>
  return %0 : tensor<2x200xf32>
}

// -----

// expected-error @+1 {{'func.func' op loss=ms-ssim takes the loss of a single output, but the function has 2 outputs; for outputs at decreasing resolutions pass deep-supervision=nnunet, halving or W0,W1,... (one loss per output against the target downsampled to its shape), otherwise export the model with the one output to train}}
func.func @main(%x: tensor<1x1x176x176xf32> {tg.input = "input"},
                %w: tensor<1x1x1x1xf32> {tg.param = "w"})
    -> (tensor<1x1x176x176xf32> {tg.output = "a"}, tensor<1x1x176x176xf32> {tg.output = "b"}) {
  %0 = tg.mul %x, %w : (tensor<1x1x176x176xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x176x176xf32>
  return %0, %0 : tensor<1x1x176x176xf32>, tensor<1x1x176x176xf32>
}
