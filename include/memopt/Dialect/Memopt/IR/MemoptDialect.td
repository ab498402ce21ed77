//===- MemoptDialect.td - memopt's core dialect ------------*- tablegen -*-===//
//
// The small dialect of what every memopt pass shares about a compilation:
// today the target, a module attribute that the pipeline (or
// -memopt-set-target) sets once and every pass reads (docs/dialects/memopt.md).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_TD
#define MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Memopt_Dialect : Dialect {
  let name = "memopt";
  let cppNamespace = "::memopt";
  let summary = "memopt's core dialect: compilation-wide attributes";
  let description = [{
    Holds the attributes that describe a whole compilation rather than one
    op. `#memopt.target` on the module (`memopt.target`) says which backend
    the step is compiled for and what that allows; the passes read it
    instead of taking their own target options, so that they cannot
    disagree. The other `memopt.*` attributes on ops (the schedule, the
    memory plan, workspace sizes, costs) are discardable attributes whose
    passes document them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute that holds the #memopt.target.
    static constexpr llvm::StringLiteral kTargetAttrName = "memopt.target";
  }];
}

def Memopt_Backend : I32EnumAttr<"Backend", "the runtime a step runs on", [
    I32EnumAttrCase<"cpu", 0>,
    I32EnumAttrCase<"cuda", 1>,
  ]> {
  let cppNamespace = "::memopt";
  let genSpecializedAttr = 0;
}

def Memopt_TargetAttr : AttrDef<Memopt_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The backend a step is compiled for and what it allows";
  let description = [{
    ```mlir
    module attributes {memopt.target = #memopt.target<cpu>} { ... }
    module attributes {memopt.target = #memopt.target<cpu, in_place = false>} { ... }
    module attributes {memopt.target = #memopt.target<cuda>} { ... }
    ```

    - `backend`: `cpu` (oneDNN and plain loops, MemoptRuntimeCPU) or `cuda`
      (cuDNN, cuBLAS and generated kernels, MemoptRuntimeCUDA);
    - `in_place`: whether the memory plan may write a result over an
      operand that dies at its op (elementwise ops, BatchNorm) and compute
      concat operands in their slice of the result. Default: true on cpu,
      false on cuda, whose kernels are not checked for in-place writes
      (cuDNN BatchNorm); `in_place = true` on cuda is an error.

    The workspace policy follows from the backend: on cpu the memory
    planner asks oneDNN at compile time, on cuda it applies the CUDA
    runtime's policy (memopt/Runtime/CUDA/ConvWorkspace.h). Only
    `tg-annotate-workspaces` applies it.
  }];
  let parameters = (ins EnumParameter<Memopt_Backend>:$backend,
                        "bool":$inPlace);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::memopt::Backend":$backend), [{
      return $_get($_ctxt, backend, backend == ::memopt::Backend::cpu);
    }]>,
  ];
  let skipDefaultBuilders = 0;
  let extraClassDeclaration = [{
    /// Whether in_place has the backend's default value (then it is not
    /// printed).
    bool hasDefaultInPlace() const;
  }];
}

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_TD
