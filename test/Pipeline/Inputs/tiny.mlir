// The model of training-pipeline.mlir, for option-rules.test.
module attributes {tg.onnx_model = "tiny.onnx"} {
  func.func @main(%x: tensor<1x2x4x4xf32> {tg.input = "input"}, %w: tensor<2x2x1x1xf32> {tg.param = "conv.weight"}) -> (tensor<1x2x4x4xf32> {tg.output = "output"}) {
    %y = tg.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %z = tg.relu %y : tensor<1x2x4x4xf32>
    %t = tg.tanh %z : tensor<1x2x4x4xf32>
    %s = tg.sigmoid %t : tensor<1x2x4x4xf32>
    return %s : tensor<1x2x4x4xf32>
  }
}
