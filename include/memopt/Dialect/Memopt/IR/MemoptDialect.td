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
    /// The function attribute that holds tg-remat's #memopt.remat.
    static constexpr llvm::StringLiteral kRematAttrName = "memopt.remat";
    /// The function attribute that holds tg-offload's #memopt.offload.
    static constexpr llvm::StringLiteral kOffloadAttrName = "memopt.offload";
    /// The tg.offload_start attribute that holds its #memopt.offload_copy.
    static constexpr llvm::StringLiteral kOffloadCopyAttrName =
        "memopt.offload_copy";
    /// The attribute of a forward op whose results tg-remat's joint planner
    /// offloads (#memopt.offload_results), for tg-offload to copy.
    static constexpr llvm::StringLiteral kOffloadResultsAttrName =
        "memopt.offload_results";
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

def Memopt_RematMilpAttr : AttrDef<Memopt_Dialect, "RematMilp"> {
  let mnemonic = "remat_milp";
  let summary = "The program remat=optimal solved: budget, objective, bound";
  let description = [{
    ```mlir
    #memopt.remat_milp<budget_bytes = 2684, solver = "dp", status = "optimal",
        objective_seconds = 2.0e-06 : f64, bound_seconds = 2.0e-06 : f64,
        gap = 0.0 : f64, solves = 1, units = 6, stages = 1, chain_units = 6,
        chain_solves = 1, bin_bytes = 1>
    ```

    What tg-remat's `optimal` planner solved (docs/passes/remat.md): the
    arena `budget_bytes` it fitted, whose plan it took (`solver`: `dp`,
    `milp`, `auto` when the greedy's was faster, `none` when nothing had
    to be recomputed) with the solver's `status`, the plan's
    `objective_seconds`, the proven lower `bound_seconds` and their
    relative `gap`, and the size of what it solved: `solves` programs of
    `units` values in `stages`, `chain_units` and `chain_solves` of the
    chain DP, bytes rounded to `bin_bytes`. The verifier wants a known
    solver and a gap from 0 to 1.
  }];
  let parameters = (ins "uint64_t":$budget_bytes,
                        "::mlir::StringAttr":$solver,
                        "::mlir::StringAttr":$status,
                        "::mlir::FloatAttr":$objective_seconds,
                        "::mlir::FloatAttr":$bound_seconds,
                        "::mlir::FloatAttr":$gap,
                        "uint64_t":$solves, "uint64_t":$units,
                        "uint64_t":$stages, "uint64_t":$chain_units,
                        "uint64_t":$chain_solves, "uint64_t":$bin_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_RematAttr : AttrDef<Memopt_Dialect, "Remat"> {
  let mnemonic = "remat";
  let summary = "What tg-remat recomputed, under which budget, at what cost";
  let description = [{
    ```mlir
    func.func @train_step(...) attributes {memopt.remat = #memopt.remat<
        strategy = "auto", budget_bytes = 5100, persistent_bytes = 2148,
        planned_arena_bytes = 2944, rounds = 1, recomputed_values = 1,
        recomputed_ops = 2, stored_values = 5, flops_added = 1032,
        seconds_added = 1.0e-08 : f64, simulated_peak_bytes_before = 4288,
        simulated_peak_bytes_after = 3776>} { ... }
    ```

    What tg-remat decided for a training step (docs/passes/remat.md): the
    `strategy`; for `auto` and `optimal` the predicted peak it fitted
    (`budget_bytes`), the `persistent_bytes` beside the arena and the
    `planned_arena_bytes` of its plan; `sqrt`'s `segment_ops`; `auto`'s
    greedy `rounds`, whether its plan is the greedy run past the budget
    and pruned back to it (`overshoot`) and how many `exchanges` (a value
    stored again) made it faster; `optimal`'s program (`milp`, a
    #memopt.remat_milp). Then what the rewrite did: `recomputed_values`
    (backward reads rewired to clones), `recomputed_ops` (clones),
    `stored_values`, `nested_values` (recomputed more than once),
    `private_clones` (clones private to their reader where the plan
    writes in place), `cuts` (shared clones ended part-way), the
    `flops_added` and `seconds_added`, the simulated peak before and
    after, the convolutions given their lean workspace
    (`lean_workspaces`, `lean_workspace_bytes`) and with `offload=true`
    the values it offloads (`offloaded_values`, `offloaded_bytes`;
    #memopt.offload_results marks them). Zero counts are not printed.
    The verifier wants a strategy of sqrt, auto or optimal, segment_ops
    only with sqrt, rounds, overshoot and exchanges only with auto, and
    milp only with optimal.
  }];
  let parameters = (ins "::mlir::StringAttr":$strategy,
                        DefaultValuedParameter<"uint64_t", "0">:$budget_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$persistent_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$planned_arena_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$segment_ops,
                        DefaultValuedParameter<"uint64_t", "0">:$rounds,
                        DefaultValuedParameter<"bool", "false">:$overshoot,
                        DefaultValuedParameter<"uint64_t", "0">:$exchanges,
                        OptionalParameter<"::memopt::RematMilpAttr">:$milp,
                        "uint64_t":$recomputed_values,
                        "uint64_t":$recomputed_ops,
                        "uint64_t":$stored_values,
                        DefaultValuedParameter<"uint64_t", "0">:$nested_values,
                        DefaultValuedParameter<"bool", "false">:$private_clones,
                        DefaultValuedParameter<"uint64_t", "0">:$cuts,
                        "uint64_t":$flops_added,
                        "::mlir::FloatAttr":$seconds_added,
                        "uint64_t":$simulated_peak_bytes_before,
                        "uint64_t":$simulated_peak_bytes_after,
                        DefaultValuedParameter<"uint64_t", "0">:$lean_workspaces,
                        DefaultValuedParameter<"uint64_t", "0">:$lean_workspace_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$offloaded_values,
                        DefaultValuedParameter<"uint64_t", "0">:$offloaded_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_OffloadAttr : AttrDef<Memopt_Dialect, "Offload"> {
  let mnemonic = "offload";
  let summary = "What tg-offload moved to the host and what it costs";
  let description = [{
    ```mlir
    func.func @train_step(...) attributes {memopt.offload = #memopt.offload<
        planner = "tg-offload", budget_bytes = 5100, persistent_bytes = 2148,
        planned_arena_bytes = 2944, rounds = 1, values = 1, d2h_bytes = 512,
        h2d_bytes = 512, host_bytes = 512,
        link_bytes_per_second = 5.12e+10 : f64,
        compute_seconds = 1.0e-06 : f64, stall_seconds = 0.0 : f64>} { ... }
    ```

    What tg-offload decided for a training step (docs/passes/offload.md):
    whose choice of values it copied (`planner`: `tg-offload`'s own
    offload=auto plan, with its `budget_bytes`, `persistent_bytes`,
    `planned_arena_bytes` and greedy `rounds`, or `tg-remat`'s joint
    plan), how many `values` (`synchronous` of them waited for at once),
    the bytes copied each way and held on the host, the host link's
    bandwidth, and the predicted compute and stall seconds of the step.
    Zero counts are not printed. The verifier wants a planner of
    tg-offload or tg-remat, at most `values` synchronous ones and a
    positive link bandwidth.
  }];
  let parameters = (ins "::mlir::StringAttr":$planner,
                        DefaultValuedParameter<"uint64_t", "0">:$budget_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$persistent_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$planned_arena_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$rounds,
                        DefaultValuedParameter<"uint64_t", "0">:$values,
                        DefaultValuedParameter<"uint64_t", "0">:$synchronous,
                        DefaultValuedParameter<"uint64_t", "0">:$d2h_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$h2d_bytes,
                        DefaultValuedParameter<"uint64_t", "0">:$host_bytes,
                        "::mlir::FloatAttr":$link_bytes_per_second,
                        "::mlir::FloatAttr":$compute_seconds,
                        "::mlir::FloatAttr":$stall_seconds);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_OffloadCopyAttr : AttrDef<Memopt_Dialect, "OffloadCopy"> {
  let mnemonic = "offload_copy";
  let summary = "One offloaded value's copy: its bytes and one-way seconds";
  let description = [{
    ```mlir
    %host = tg.offload_start %x {memopt.offload_copy = #memopt.offload_copy<
        bytes = 512, seconds = 1.0e-08 : f64>} : tensor<1x2x8x8xf32>
    %host = tg.offload_start %y {memopt.offload_copy = #memopt.offload_copy<
        bytes = 512, seconds = 5.12e-04 : f64, synchronous = true>} : ...
    ```

    tg-offload's record on each `tg.offload_start`: the `bytes` copied
    (aligned to the arena's alignment), the `seconds` one way takes on the
    host link, and whether the copy is waited for at once
    (`synchronous`). The verifier wants seconds not negative.
  }];
  let parameters = (ins "uint64_t":$bytes, "::mlir::FloatAttr":$seconds,
                        DefaultValuedParameter<"bool", "false">:$synchronous);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Memopt_OffloadResultsAttr : AttrDef<Memopt_Dialect, "OffloadResults"> {
  let mnemonic = "offload_results";
  let summary = "The results of an op that tg-remat's joint planner offloads";
  let description = [{
    ```mlir
    %y:5 = tg.batch_norm ... {memopt.offload_results =
        #memopt.offload_results<results = array<i64: 4>>}
    %z = tg.relu %a {memopt.offload_results =
        #memopt.offload_results<synchronous = array<i64: 0>>}
    ```

    tg-remat's handoff to tg-offload (docs/passes/offload.md): the result
    numbers of a forward op whose values its joint planner (`offload=true`)
    chose to offload, asynchronously (`results`) or waited for at once
    (`synchronous`). tg-offload inserts their copies once tg-schedule
    has fixed the order, and removes the attribute. The verifier wants
    each list in increasing order, the two disjoint and not both empty,
    and every number a result of the op that carries it.
  }];
  let parameters = (ins OptionalParameter<"::mlir::DenseI64ArrayAttr">:$results,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$synchronous);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<int64_t>":$results,
                     "::llvm::ArrayRef<int64_t>":$synchronous)>,
  ];
  let extraClassDeclaration = [{
    /// The result numbers offloaded synchronously, or asynchronously.
    ::llvm::ArrayRef<int64_t> getNumbers(bool synchronous) const;
  }];
}

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_TD
