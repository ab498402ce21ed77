//===- TGInterfaces.td - Per-op facts of the tg dialect ----*- tablegen -*-===//
//
// What the passes need to know about an op, asked of the op itself rather
// than looked up in a type switch per pass: its gradient (autodiff) and the
// facts of its kernel (cost model, memory planner, schedule,
// rematerialization). A new op states them where it is defined; the passes
// do not change.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGINTERFACES_TD
#define MEMOPT_DIALECT_TG_IR_TGINTERFACES_TD

include "mlir/IR/OpBase.td"

def TG_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::memopt::tg";
  let description = [{
    A differentiable op: it emits its vector-Jacobian product, the
    gradients of its operands given the gradients of its results, following
    PyTorch's autograd formula so that a compiled step reproduces a PyTorch
    step. `tg-autodiff` asks every forward op on the path from a parameter
    to the loss; an op without this interface is not differentiable and
    autodiff reports it at the op.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits at the insertion point of `builder` the gradients of the
        operands that `wanted` selects, given `resultGrads` (one per result;
        null for a result that the loss does not depend on). Fills
        `operandGrads` (one entry per operand, of the operand's type) for
        the wanted operands; an entry may stay null when the gradient is
        zero. A gradient the op cannot give (e.g. through statistics) is an
        op error and a failure. Every op is built with its result type given,
        never inferred, so that a mistake shows as a verifier error.
      }],
      "::mlir::LogicalResult", "emitGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGrads,
           "::llvm::ArrayRef<bool>":$wanted,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGrads)>,
  ];
}

def TG_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::memopt::tg";
  let description = [{
    An op that runs as one kernel of the training step. Its facts are what
    the cost model, the schedule, the memory planner and rematerialization
    read: FLOPs and bytes moved, the operands a result may overwrite, the
    operand whose buffer a result updates, the library workspace per target
    and whether recomputing it is cheap. Ops that run no kernel (constants,
    the terminator of a fused body) do not implement it.
  }];
  let methods = [
    InterfaceMethod<[{
        The floating-point operations of one execution
        (docs/cost-model.md): 0 for data movement.
      }],
      "uint64_t", "getFlops">,
    InterfaceMethod<[{
        Whether recomputing the op in the backward pass is cheaper than
        keeping its result: a bounded number of operations per element it
        reads (elementwise, shape, pooling, normalization with given
        statistics), no randomness and no state update. Convolutions and
        matrix products are not.
      }],
      "bool", "isCheapToRecompute">,
    InterfaceMethod<[{
        The bytes the kernel reads: by default every tensor operand once.
      }],
      "uint64_t", "getBytesRead", (ins), [{}], [{
        uint64_t bytes = 0;
        for (::mlir::Type type : $_op->getOperandTypes())
          bytes += ::memopt::tensorBytes(type);
        return bytes;
      }]>,
    InterfaceMethod<[{
        The bytes the kernel writes: by default every tensor result once.
      }],
      "uint64_t", "getBytesWritten", (ins), [{}], [{
        uint64_t bytes = 0;
        for (::mlir::Type type : $_op->getResultTypes())
          bytes += ::memopt::tensorBytes(type);
        return bytes;
      }]>,
    InterfaceMethod<[{
        The operands whose buffer the kernel may write result `result` over,
        in order of preference: the kernel reads every element of the
        operand before it writes that element of the result, and the operand
        has the result's type. Whether the operand dies at the op is the
        caller's concern. By default, for an elementwise op with one type
        for operands and results, every operand; otherwise none.
      }],
      "::llvm::SmallVector<unsigned, 2>", "getInPlaceOperands",
      (ins "unsigned":$result), [{}], [{
        return ::memopt::tg::detail::sameTypeElementwiseOperands(
            $_op, result);
      }]>,
    InterfaceMethod<[{
        The operand that the kernel updates in place when the trainer passes
        the operand's buffer for result `result` (an optimizer update's
        parameter and state, batch_norm's running statistics); null for
        other results (the default).
      }],
      "::mlir::Value", "getUpdatedOperand", (ins "unsigned":$result), [{}],
      [{ return ::mlir::Value(); }]>,
    InterfaceMethod<[{
        The scratch bytes the kernel needs while it runs, as `policy` (the
        target's runtime: oneDNN asked at compile time on the CPU, the
        runtime's rule on CUDA) sizes it. 0 by default; a failure has been
        reported at the op.
      }],
      "::mlir::FailureOr<uint64_t>", "getWorkspaceBytes",
      (ins "const ::memopt::tg::WorkspacePolicy &":$policy), [{}],
      [{ return uint64_t(0); }]>,
  ];
}

#endif // MEMOPT_DIALECT_TG_IR_TGINTERFACES_TD
