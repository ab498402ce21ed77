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
    %0 = tg.conv2d %x, %w {memopt.cost = {bytes = 1344 : i64,
        flops = 3456 : i64, phase = "forward", seconds = 5.0e-06 : f64}} ...
    ```

    `flops` and `bytes` (read + written) come from the op's shapes and
    attributes; `workspace` (bytes, present when non-zero) is what the CPU
    runtime reports for a convolution; `seconds` is the roofline time on
    the device: max(flops / peak FLOP/s, bytes / bandwidth) + launch
    overhead; `phase` is the op's part of the training step (forward,
    backward or optimizer, `memopt/Analysis/StepPhases.h`). The function
    gets the totals: `memopt.cost = {device, bytes, seconds, forward_flops,
    backward_flops, optimizer_flops}`.

    The device is a profile name with optional overrides, the syntax of
    `memopt-compile --device` (docs/cost-model.md), e.g.
    `tg-estimate-cost{device="rtx2060,memory=6GiB"}` (quoted: the commas
    belong to the value); a bad one is an error
    that lists the accepted forms.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"cpu\"",
           "Device profile: NAME[,KEY=VALUE]... (cpu, rtx2060, a100-40g, "
           "h100 or custom)">,
  ];
  let statistics = [
    Statistic<"numCostedOps", "costed-ops", "Ops annotated with a cost">,
  ];
}

#endif // MEMOPT_ANALYSIS_PASSES_TD
