// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc 2>/dev/null | memopt-translate --mlir-to-cpp | FileCheck %s

// A model whose random numbers are additive noise has no evaluation step
// (tg-autodiff's tg.eval_refusal): the Program has no eval_step and says
// why, and the trainer refuses --val-data with that line (exit 2).

// CHECK-NOT: static void eval_step(
// CHECK-LABEL: static const memopt::rt::Program kProgram = {
// CHECK: /*evalStep=*/nullptr,
// CHECK: /*exchangeBytes=*/0,
// CHECK-NEXT: /*evalRefusal=*/"node 'noise' draws random numbers that the model uses other than as a dropout or drop-path mask multiplying the activations (read by tg.add together with the activations), so memopt cannot evaluate it as PyTorch's model.eval() does: export the evaluation model without the random module, or train without --val-data",
// CHECK-NEXT: }
func.func @main(%x: tensor<4x2xf32> {tg.input = "x"}, %p: tensor<4x2xf32> {tg.param = "p"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %a = tg.mul %x, %p : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %u = tg.random_uniform {stream = 0} : tensor<4x2xf32> loc("noise")
  %y = tg.add %a, %u : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
