// RUN: memopt-opt %s -verify-diagnostics -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc

// The CPU target has no kernel for a fused body: tg-fuse-elementwise is for
// the CUDA backend only.
func.func @train_step(%a: tensor<2x4xf32> {tg.input = "input"},
                      %b: tensor<2x4xf32> {tg.param = "skip"},
                      %loss: tensor<f32> {tg.input = "loss"})
    -> (tensor<f32> {tg.output = "loss"}, tensor<2x4xf32> {tg.output = "y"}) {
  // expected-error @+1 {{tg.fused_elementwise needs #memopt.target<cuda> (run tg-fuse-elementwise for the CUDA backend only)}}
  %y = tg.fused_elementwise %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>):
    %0 = tg.add %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tg.yield %0 : tensor<2x4xf32>
  }
  return %loss, %y : tensor<f32>, tensor<2x4xf32>
}
