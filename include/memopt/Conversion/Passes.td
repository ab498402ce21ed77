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
      offsets of a static arena plan (best-fit by liveness, `ArenaPlan`),
      constants over static arrays; each view is named after its ONNX node
      and op kind (`conv_encoder_layer1_0_conv1`);
    - every op becomes one call of its CPU kernel (`memopt::rt::conv2d`,
      ...), convolutions with a workspace that the plan reserves in the
      arena; its size is queried from the CPU runtime at compile time, or
      for `target=cuda` given by the CUDA backend's workspace policy;
    - the module gets the `memopt::rt::Program` of the model (tensor specs
      from the role attributes, loss index, arena size, the embedded ONNX
      model `memopt_onnx_model` that memopt-compile assembles) and a `main`
      that calls `memopt::rt::trainerMain`.

    A result that updates an argument of the same name is computed in the
    result buffer directly, in place when the trainer passes the argument's
    buffer, if no later op reads the argument; otherwise it is computed in
    the arena and copied at the end of the step.
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
  let options = [
    Option<"modelName", "model-name", "std::string", "\"\"",
           "Name of the model in messages and reports (default: the stem "
           "of the module's tg.onnx_model)">,
    Option<"targetBackend", "target", "std::string", "\"cpu\"",
           "The runtime the step calls: cpu (MemoptRuntimeCPU) or cuda "
           "(MemoptRuntimeCUDA: device memory, workspaces from "
           "memopt/Runtime/CUDA/ConvWorkspace.h, constants copied into the "
           "arena)">,
    Option<"queryWorkspaces", "query-workspaces", "bool", "true",
           "Size convolution workspaces (by asking the CPU runtime, oneDNN, "
           "at compile time for target=cpu); false plans none (for tests of "
           "the IR only: the kernels abort if they need one)">,
  ];
  let statistics = [
    Statistic<"numKernelCalls", "kernel-calls", "Runtime kernel calls emitted">,
    Statistic<"numArenaBytes", "arena-bytes", "Bytes of the arena">,
    Statistic<"numResultCopies", "result-copies",
              "Results copied at the end of the step">,
  ];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
