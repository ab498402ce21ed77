//===- MemoptDialect.td - memopt's core dialect ------------*- tablegen -*-===//
//
// The small dialect of what every memopt pass shares about a compilation:
// today the target (backend, device profile, budget), a module attribute
// that the pipeline (or -memopt-set-target) sets once and every pass reads
// (docs/dialects/memopt.md).
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
    the step is compiled for and what that allows, the device profile the
    cost model prices it on (`#memopt.device`) and the memory budget; the
    passes read it instead of taking their own target, device and budget
    options, so that they cannot disagree. The other `memopt.*` attributes on ops (the schedule, the
    memory plan, workspace sizes, costs) are discardable attributes whose
    passes document them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute that holds the #memopt.target.
    static constexpr llvm::StringLiteral kTargetAttrName = "memopt.target";
    /// The function attribute that holds a pipeline stage's #memopt.stage.
    static constexpr llvm::StringLiteral kStageAttrName = "memopt.stage";
    /// The function attribute that holds tg-schedule's #memopt.schedule.
    static constexpr llvm::StringLiteral kScheduleAttrName = "memopt.schedule";
    /// The function attribute that holds tg-microbatch's #memopt.microbatch.
    static constexpr llvm::StringLiteral kMicrobatchAttrName =
        "memopt.microbatch";
  }];
}

def Memopt_Backend : I32EnumAttr<"Backend", "the runtime a step runs on", [
    I32EnumAttrCase<"cpu", 0>,
    I32EnumAttrCase<"cuda", 1>,
  ]> {
  let cppNamespace = "::memopt";
  let genSpecializedAttr = 0;
}

def Memopt_DeviceAttr : AttrDef<Memopt_Dialect, "Device"> {
  let mnemonic = "device";
  let summary = "The device profile the cost model prices a step on";
  let description = [{
    ```mlir
    #memopt.device<"h100">
    #memopt.device<"rtx2060", memory = 6442450944>
    #memopt.device<"mygpu", memory = 8589934592, fp32 = 6.5e12, bandwidth = 3.36e11, link = 1.2e10>
    ```

    The numbers of `memopt/Analysis/DeviceProfile.h` (docs/cost-model.md),
    in base units: `memory` (bytes), `fp32`, `tf32`, `bf16`, `fp16`
    (FLOP/s; 0: no such tensor cores), `bandwidth`, `link` (bytes/s),
    `launch` (seconds per kernel), `lean` (the lean-workspace slowdown).
    A built-in profile's name (cpu, rtx2060, a100-40g, h100) gives its
    numbers, and only those that differ are printed; any other name starts
    from zeros (lean 2) and must give memory, fp32 and bandwidth. The
    verifier wants memory, fp32 and bandwidth positive, the others finite
    and not negative, lean from 1 to 1e6.
  }];
  let parameters = (ins StringRefParameter<"the profile's name">:$name,
                        "uint64_t":$memory,
                        APFloatParameter<"peak fp32 FLOP/s">:$fp32,
                        APFloatParameter<"tf32 tensor-core FLOP/s">:$tf32,
                        APFloatParameter<"bf16 tensor-core FLOP/s">:$bf16,
                        APFloatParameter<"fp16 tensor-core FLOP/s">:$fp16,
                        APFloatParameter<"memory bytes/s">:$bandwidth,
                        APFloatParameter<"host link bytes/s">:$link,
                        APFloatParameter<"seconds per kernel">:$launch,
                        APFloatParameter<"lean-workspace slowdown">:$lean);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "const ::memopt::DeviceProfile &":$profile)>,
  ];
  let extraClassDeclaration = [{
    /// The numbers as the cost model takes them.
    ::memopt::DeviceProfile getProfile() const;

    /// The profile `backend` uses when none is given
    /// (::memopt::defaultDeviceName: cpu, or a100-40g on cuda).
    static DeviceAttr getDefault(::mlir::MLIRContext *context,
                                 ::memopt::Backend backend);
  }];
}

def Memopt_TargetAttr : AttrDef<Memopt_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The backend a step is compiled for and what it allows";
  let description = [{
    ```mlir
    module attributes {memopt.target = #memopt.target<cpu>} { ... }
    module attributes {memopt.target = #memopt.target<cpu, in_place = false>} { ... }
    module attributes {memopt.target = #memopt.target<cuda>} { ... }
    module attributes {memopt.target = #memopt.target<cuda,
        device = #memopt.device<"rtx2060">, budget = 6442450944>} { ... }
    ```

    - `backend`: `cpu` (oneDNN and plain loops, MemoptRuntimeCPU) or `cuda`
      (cuDNN, cuBLAS and generated kernels, MemoptRuntimeCUDA);
    - `in_place`: whether the memory plan may write a result over an
      operand that dies at its op (elementwise ops, BatchNorm) and compute
      concat operands in their slice of the result. Default: true on cpu,
      false on cuda, whose kernels are not checked for in-place writes
      (cuDNN BatchNorm); `in_place = true` on cuda is an error;
    - `device`: the `#memopt.device` every pass prices ops on and, without
      a budget, fits into. Default: `cpu` on cpu, `a100-40g` on cuda
      (printed only when it is not the default);
    - `budget`: the predicted peak in bytes that tg-remat and tg-offload
      fit (0, not printed: none given, they fit the device's memory); at
      most the device's memory.

    The workspace policy follows from the backend: on cpu the memory
    planner asks oneDNN at compile time, on cuda it applies the CUDA
    runtime's policy (memopt/Runtime/CUDA/ConvWorkspace.h). Only
    `tg-annotate-workspaces` applies it.
  }];
  let parameters = (ins EnumParameter<Memopt_Backend>:$backend,
                        "bool":$inPlace,
                        "::memopt::DeviceAttr":$device,
                        "uint64_t":$budget);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::memopt::Backend":$backend), [{
      return $_get($_ctxt, backend, backend == ::memopt::Backend::cpu,
                   ::memopt::DeviceAttr::getDefault($_ctxt, backend), 0);
    }]>,
  ];
  let skipDefaultBuilders = 0;
  let extraClassDeclaration = [{
    /// Whether in_place has the backend's default value (then it is not
    /// printed).
    bool hasDefaultInPlace() const;

    /// The device's numbers as the cost model takes them.
    ::memopt::DeviceProfile getDeviceProfile() const {
      return getDevice().getProfile();
    }

    /// The predicted peak in bytes to fit: the budget, or without one the
    /// device's memory.
    uint64_t getPeakLimit() const {
      return getBudget() ? getBudget() : getDevice().getMemory();
    }
  }];
}

def Memopt_StageAttr : AttrDef<Memopt_Dialect, "Stage"> {
  let mnemonic = "stage";
  let summary = "A pipeline stage: which one, of which step, and its cost";
  let description = [{
    ```mlir
    func.func @train_step_stage0(...) attributes {memopt.stage =
        #memopt.stage<index = 0, stages = 2, of = "train_step",
                      forward_begin = 0, forward_end = 8,
                      persistent_bytes = 4096, simulated_peak_bytes = 9216,
                      seconds = 1.0e-05 : f64, send_bytes = 1024>} { ... }
    ```

    What tg-partition decided for the function of one stage
    (docs/passes/partition.md): its `index` among `stages`, the step it
    was cut from (`of`), its forward ops `[forward_begin, forward_end)`
    in the step's program order, and what the partition predicted for it:
    `persistent_bytes`, `simulated_peak_bytes`, `seconds` and
    `send_bytes`. Only `index` and `stages` are required (the others
    default to 0 and no step). The verifier wants 0 <= index < stages and
    forward_begin <= forward_end; `tg.send`/`tg.recv` read it to check
    their peer stage.
  }];
  let parameters = (ins "int64_t":$index, "int64_t":$stages,
                        OptionalParameter<"::mlir::StringAttr">:$of,
                        DefaultValuedParameter<"int64_t", "0">:$forward_begin,
                        DefaultValuedParameter<"int64_t", "0">:$forward_end,
                        DefaultValuedParameter<"uint64_t", "0">:$persistent_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$simulated_peak_bytes,
                        OptionalParameter<"::mlir::FloatAttr">:$seconds,
                        DefaultValuedParameter<"uint64_t", "0">:$send_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_ScheduleAttr : AttrDef<Memopt_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "The op order tg-schedule chose and the peaks it compared";
  let description = [{
    ```mlir
    func.func @train_step(...) attributes {memopt.schedule =
        #memopt.schedule<strategy = "free-first", simulated_peak_bytes = 6144,
                         candidates = {"free-first" = 6144 : i64,
                                       "frees-asap" = 6144 : i64,
                                       given = 9216 : i64}>} { ... }
    ```

    What tg-schedule decided for a function (docs/passes/schedule.md):
    the `strategy` whose order it applied, that order's
    `simulated_peak_bytes`, and the simulated peak of every candidate
    order it compared (`candidates`, bytes by strategy name). The verifier
    wants every candidate an integer number of bytes, and the strategy
    among the candidates with the simulated peak as its bytes.
  }];
  let parameters = (ins "::mlir::StringAttr":$strategy,
                        "uint64_t":$simulated_peak_bytes,
                        "::mlir::DictionaryAttr":$candidates);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_MicrobatchAttr : AttrDef<Memopt_Dialect, "Microbatch"> {
  let mnemonic = "microbatch";
  let summary = "How tg-microbatch runs a step's microbatches";
  let description = [{
    ```mlir
    func.func @train_step_stage0(...) attributes {memopt.microbatch =
        #memopt.microbatch<microbatches = 4, in_flight = 2,
                           order = "F0 F1 B0 F2 B1 F3 B2 B3", schedule = "1f1b",
                           peak_bytes_gpipe = 655838464,
                           peak_bytes_1f1b = 391577088>} { ... }
    ```

    What tg-microbatch decided for a function (docs/passes/microbatch.md):
    its `microbatches`, how many are `in_flight` at most (their forward
    run, their backward not yet), the `order` of its forward (F) and
    backward (B) units, and for a training step in pipeline stages the
    `schedule` and the simulated peak under either schedule (0: not
    simulated). The verifier wants at least one microbatch, in_flight at
    most microbatches, and a schedule of gpipe or 1f1b.
  }];
  let parameters = (ins "int64_t":$microbatches, "int64_t":$in_flight,
                        "::mlir::StringAttr":$order,
                        OptionalParameter<"::mlir::StringAttr">:$schedule,
                        DefaultValuedParameter<"uint64_t", "0">:$peak_bytes_gpipe,
                        DefaultValuedParameter<"uint64_t", "0">:$peak_bytes_1f1b);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_TD
