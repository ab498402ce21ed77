//===- Passes.td - Conversions out of the tg dialect -------*- tablegen -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_TD
#define MEMOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTGToEmitC : Pass<"convert-tg-to-emitc", "::mlir::ModuleOp"> {
  let summary = "Lower the training step to EmitC calls of the CPU runtime";
  let description = [{
    Turns `@train_step` (and `@eval_step`) in the mbuf dialect, as
    `tg-plan-memory` converts them, into EmitC that
    `mlir::emitc::translateToCpp` prints as the C++ of a training binary.
    It reads places from the mbuf ops alone:

    - every view becomes a `memopt::rt::Tensor`: function arguments and
      `mbuf.result` over the step's `args` / `results` buffers,
      `mbuf.view` / `mbuf.subview` at their offset of `arenas[index]`,
      `mbuf.constant` over a static array; each view is named after the
      ONNX node and op kind of the kernel that writes it first
      (`conv_encoder_layer1_0_conv1`);
    - every `mbuf.kernel` becomes one call of the kernel of its tg op
      (`memopt::rt::conv`, ...) on its views, with its workspace view;
    - the module gets the `memopt::rt::Program` of the model (tensor specs
      from the role attributes, loss index, the arenas with their sizes and
      memory spaces, the name of the weights file the binary reads its
      initial weights from, `weights-file`) and a `main` that calls
      `memopt::rt::trainerMain`.

    The runtime the step calls is the module's `#memopt.target`: cpu
    (MemoptRuntimeCPU) or cuda (MemoptRuntimeCUDA: device memory, constants
    in the arena views that tg-plan-memory placed after the plan); a module
    without one is an error.

    A returned view other than the `mbuf.result` of its index is copied
    into the result buffer at the end of the step. Asynchronous copies,
    sends and receives are rejected: this backend has no lowering of them
    yet.

    Every identifier comes from one name scope per C++ scope (the file,
    each function), so the file compiles whatever the ONNX names are. A
    step of more than `max-calls-per-function` kernel calls becomes part
    functions of at most that many calls, called in order, so that the C++
    compiler's time grows linearly with the model.
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
  let options = [
    Option<"modelName", "model-name", "std::string", "\"\"",
           "Name of the model in messages and reports (default: the stem "
           "of the module's tg.onnx_model)">,
    Option<"weightsFile", "weights-file", "std::string", "\"\"",
           "The ONNX file the binary reads its initial weights from: a "
           "name beside the binary, or an absolute path (memopt-compile: "
           "BIN.weights.onnx; empty: the binary needs --weights)">,
    Option<"maxCallsPerFunction", "max-calls-per-function", "unsigned",
           /*default=*/"128",
           "Split a step with more kernel calls into part functions of at "
           "most this many calls each, so that the C++ compiler's time "
           "grows linearly with the model (0: never split)">,
  ];
  let statistics = [
    Statistic<"numKernelCalls", "kernel-calls", "Runtime kernel calls emitted">,
    Statistic<"numArenaBytes", "arena-bytes", "Bytes of the arena">,
    Statistic<"numStepParts", "step-parts",
              "Part functions the step functions were split into">,
    Statistic<"numResultCopies", "result-copies",
              "Results copied at the end of the step">,
  ];
}

def ConvertTGToMBuf : Pass<"convert-tg-to-mbuf", "::mlir::func::FuncOp"> {
  let summary = "The planned step in buffers, at the places tg-plan-memory "
                "recorded";
  let description = [{
    Converts a function of tg ops into the mbuf dialect
    (docs/dialects/mbuf.md) at the places of the memory plan that
    `tg-plan-memory` recorded on it (`memopt.arena_size` on the function,
    `memopt.place` on the ops; docs/passes/plan-memory.md), and removes the
    record: arguments and results become views of the caller's buffers,
    `mbuf.arena 0` holds the plan, every value is an `mbuf.view` at its
    offset (an `mbuf.subview` of the concat result for a sliced operand,
    `mbuf.result` for a result computed in its buffer) and every op an
    `mbuf.kernel` writing its result views, tied to the operand it
    overwrites. Offloaded tensors' host copies (tg-offload) are views of
    `mbuf.arena 1` in pinned host memory. With a cuda `#memopt.target`,
    constants get arena space after the plan. The mbuf verifier then checks
    that no two live views overlap.

    A function without a plan, a malformed record, a value the plan gives
    no place, a dynamic shape or an element type that no view holds is an
    error at the function or op. External functions are left alone.
  }];
  let dependentDialects = ["::memopt::mbuf::MBufDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Ops converted into mbuf.kernel">,
  ];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
