//===- TGFusedOps.td - Fused elementwise chains ------------*- tablegen -*-===//
//
// Ops that group other tg ops so that a backend computes them in one
// kernel. `tg-fuse-elementwise` forms them; the CUDA code generation emits
// one `__global__` kernel per group. Included at the end of TGOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGFUSEDOPS_TD
#define MEMOPT_DIALECT_TG_IR_TGFUSEDOPS_TD

include "memopt/Dialect/TG/IR/TGOps.td"

def TG_FusedElementwiseOp : TG_Op<"fused_elementwise",
    [Pure, IsolatedFromAbove, SingleBlock, TG_Kernel<>]> {
  let summary = "A chain of same-shape elementwise ops computed in one pass";
  let description = [{
    The body computes `output` from `inputs` with elementwise tg ops whose
    operands and results all have the output's shape (no broadcasting):
    relu, sigmoid, tanh, neg, exp, log, sqrt, abs, sign, leaky_relu, clip,
    add, sub, mul, div and the activation gradients relu_backward,
    sigmoid_backward, tanh_backward, leaky_relu_backward, clip_backward.
    The block's arguments are the inputs; `tg.yield` returns the output.
    The intermediate values of the body are never stored: a backend
    evaluates the whole body per element, reading each input once and
    writing the output once.

    ```mlir
    %y = tg.fused_elementwise %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
    ^bb0(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>):
      %0 = tg.add %x, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
      %1 = tg.relu %0 : tensor<2x4xf32>
      tg.yield %1 : tensor<2x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<TG_Tensor>:$inputs);
  let results = (outs TG_Tensor:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $output) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `op` may be part of a fused elementwise body (its kind is
    /// one of the list above; shapes are checked separately).
    static bool isFusable(::mlir::Operation *op);
    /// The value the body yields.
    ::mlir::Value getYielded();
  }];
}

def TG_YieldOp : TG_Op<"yield",
    [Pure, Terminator, HasParent<"FusedElementwiseOp">]> {
  let summary = "The value of a fused body";
  let arguments = (ins TG_Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // MEMOPT_DIALECT_TG_IR_TGFUSEDOPS_TD
