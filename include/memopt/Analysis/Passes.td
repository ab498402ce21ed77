//===- Passes.td - Analyses of the training step -----------*- tablegen -*-===//
//
// Passes that annotate the IR with what the analyses compute, so that
// memopt-opt prints it and lit tests check it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_PASSES_TD
#define MEMOPT_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EstimateCost : Pass<"tg-estimate-cost", "::mlir::func::FuncOp"> {
  let summary = "Annotate every tg op with its predicted cost on a device";
  let description = [{
    Runs the cost model (`memopt/Analysis/CostModel.h`) on every tg op of
    the function and attaches the answer:

    ```mlir
    %0 = tg.conv %x, %w {memopt.cost = {bytes = 1344 : i64,
        flops = 3456 : i64, phase = "forward", seconds = 5.0e-06 : f64}} ...
    ```

    `flops` and `bytes` (read + written) come from the op's shapes and
    attributes; `workspace` (bytes, present when non-zero) is what the CPU
    runtime reports for a convolution; `seconds` is the roofline time on
    the target's device: max(flops / peak FLOP/s, bytes / bandwidth) + launch
    overhead; `phase` is the op's part of the training step (forward,
    backward or optimizer, `memopt/Analysis/StepPhases.h`). The function
    gets the totals: `memopt.cost = {device, bytes, seconds, forward_flops,
    backward_flops, optimizer_flops}`.

    The device is the module's `#memopt.target` device
    (`-memopt-set-target='target=cpu device="rtx2060,memory=6GiB"'`,
    docs/cost-model.md); a module without a target is an error.
  }];
  let statistics = [
    Statistic<"numCostedOps", "costed-ops", "Ops annotated with a cost">,
  ];
}

#endif // MEMOPT_ANALYSIS_PASSES_TD
