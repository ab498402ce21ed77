// RUN: memopt-opt %s -tg-autodiff=loss=ce -split-input-file -verify-diagnostics

// The diagnostics of the segmentation losses of tg-autodiff.

// Cross-entropy over one class is always 0.
// expected-error @+1 {{loss=ce needs at least 2 classes on axis 1 of the output, got 'tensor<2x1x3x3xf32>'; use loss=bce or loss=dice for one channel}}
func.func @main(%x: tensor<2x1x3x3xf32> {tg.input = "input"},
                %w: tensor<1x1x1x1xf32> {tg.param = "w"})
    -> (tensor<2x1x3x3xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<2x1x3x3xf32>, tensor<1x1x1x1xf32>) -> tensor<2x1x3x3xf32>
  return %0 : tensor<2x1x3x3xf32>
}

// -----

// expected-error @+1 {{loss=ce needs logits N x C x ... (rank >= 2), got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32> {tg.input = "input"},
                %w: tensor<3xf32> {tg.param = "w"})
    -> (tensor<3xf32> {tg.output = "output"}) {
  %0 = tg.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
