//===- Passes.td - Conversions out of the tg dialect -------*- tablegen -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_TD
#define MEMOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTGToEmitC : Pass<"convert-tg-to-emitc", "::mlir::ModuleOp"> {
  let summary = "Lower the training step to EmitC calls of the CPU runtime";
  let description = [{
    Turns `@train_step` (tg ops on tensors, as `tg-autodiff` emits it) into
    EmitC that `mlir::emitc::translateToCpp` prints as the C++ of a training
    binary:

    - every tensor becomes a `memopt::rt::Tensor` view: arguments and
      results over the step's `args` / `results` buffers, temporaries at the
      arena offsets of the memory plan that `tg-plan-memory` recorded
      (`memopt.offsets`, verified as `tg-verify-memory-plan` does),
      constants over static arrays; each view is named after its ONNX node
      and op kind (`conv_encoder_layer1_0_conv1`);
    - every op becomes one call of its CPU kernel (`memopt::rt::conv2d`,
      ...), convolutions with the workspace of the plan
      (`memopt.workspace`; tg-plan-memory sizes it for the target);
    - the module gets the `memopt::rt::Program` of the model (tensor specs
      from the role attributes, loss index, arena size, the embedded ONNX
      model `memopt_onnx_model` that memopt-compile assembles) and a `main`
      that calls `memopt::rt::trainerMain`.

    The runtime the step calls is the module's `#memopt.target`: cpu
    (MemoptRuntimeCPU) or cuda (MemoptRuntimeCUDA: device memory,
    constants copied into the arena after the plan's temporaries); a module
    without one is an error.

    A step result that the plan keeps out of the arena is computed in its
    result buffer directly (in place when the trainer passes the buffer of
    the argument it updates); a result in the arena is copied at the end of
    the step.
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
  let options = [
    Option<"modelName", "model-name", "std::string", "\"\"",
           "Name of the model in messages and reports (default: the stem "
           "of the module's tg.onnx_model)">,
  ];
  let statistics = [
    Statistic<"numKernelCalls", "kernel-calls", "Runtime kernel calls emitted">,
    Statistic<"numArenaBytes", "arena-bytes", "Bytes of the arena">,
    Statistic<"numResultCopies", "result-copies",
              "Results copied at the end of the step">,
  ];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
