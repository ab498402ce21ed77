//===- Passes.td - Schedule and static memory plan ---------*- tablegen -*-===//
//
// The passes that fix the op order of a training step and its static memory
// plan (docs/passes/schedule.md, docs/passes/plan-memory.md). They share the
// byte accounting of memopt/Analysis/StepMemory.h.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PASSES_TD
#define MEMOPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SetTarget : Pass<"memopt-set-target", "::mlir::ModuleOp"> {
  let summary = "Record the backend, the device profile and the budget as "
                "the module's #memopt.target";
  let description = [{
    Sets `memopt.target = #memopt.target<BACKEND, ...>` on the module, once,
    for every later pass to read (docs/dialects/memopt.md). `in-place`
    overrides the backend's default (true on cpu; cuda allows only false).
    `device` is the device profile in memopt-compile's `--device` syntax
    (`NAME[,KEY=VALUE]...` or a `FILE.json` user profile,
    docs/cost-model.md; quoted where it holds commas:
    `device="rtx2060,memory=6GiB"`); without it the backend's default
    (`cpu` on cpu, `a100-40g` on cuda). `budget` is the predicted peak in
    bytes that tg-remat and tg-offload fit (0: none, they fit the device's
    memory); it may not exceed the device's memory. A module that already
    has another target is an error: the passes before this one planned for
    that one.
  }];
  let dependentDialects = ["::memopt::MemoptDialect"];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "The backend: cpu or cuda (required)">,
    Option<"inPlace", "in-place", "std::string", "\"\"",
           "true or false: whether the memory plan may write results over "
           "dying operands (default: the backend's)">,
    Option<"device", "device", "std::string", "\"\"",
           "The device profile, NAME[,KEY=VALUE]... or FILE.json (default: "
           "the backend's, cpu or a100-40g)">,
    Option<"budget", "budget", "uint64_t", "0",
           "The predicted peak in bytes to fit (0: the device's memory)">,
  ];
}

def Remat : Pass<"tg-remat", "::mlir::func::FuncOp"> {
  let summary = "Recompute forward values in the backward instead of "
                "storing them";
  let description = [{
    Rematerialization (docs/passes/remat.md). The strategy chooses which
    forward values of the training step are recomputed in the backward
    rather than kept alive from the forward; each such value's defining op
    (and the recomputed ancestors it needs, read from stored values) is
    cloned right before the value's first backward use, the backward uses
    are rewired to the clone, and the clones carry `memopt.recompute`.
    Only deterministic, side-effect free forward ops are recomputed (never
    dropout, optimizer updates or running-statistics updates: a recomputed
    `tg.batch_norm` reads the forward's saved statistics in place of the
    running statistics and its running-statistics results stay unused).

    - `none`: nothing is recomputed (the pass changes nothing);
    - `sqrt`: Chen et al. 2016: the forward ops, in program order, are cut
      into segments of ceil(sqrt(n)) ops; a value read by a forward op of
      a later segment (a segment boundary, a skip connection), returned, or
      made by an op that cannot be recomputed is stored; every other
      forward value the backward reads is recomputed from the stored values
      of its own segment;
    - `auto`: the least predicted recompute time whose predicted peak fits
      the target's budget (without one, the memory of its device), by a
      greedy heuristic: the
      budget less the persistent bytes (weights, optimizer state, inputs
      and outputs: what the report adds to the arena) is the arena target;
      each round simulates the rewritten step (MemorySimulator, program
      order, with the workspaces tg-annotate-workspaces recorded) and
      recomputes the value with the most peak bytes removed per second of
      recompute (CostModel on the target's device), cheap ops first, until the planned
      arena (ArenaPlan) fits. It also nests chosen values (recomputed once
      per clone that needs them and once for their own readers, instead of
      one clone living from the first reader to the last: Rotor's nested
      recomputation) where that lowers the peak. With `cuts`, a second
      greedy may also cut a chosen value's shared clone: the readers after
      a gap in which it counts at the peak share a fresh clone (one more
      recomputation, where nesting would add one per clone that reads it);
      the faster of the two plans that fit is taken. With
      `lean-workspaces` (a cuda target), a backward convolution at the
      peak may instead get its lean workspace (an eighth of the full one,
      at least 4 MiB: `memopt.workspace_bytes` lowered, the op marked
      `memopt.lean_workspace`), priced at the device's `lean` slowdown of
      its roofline time. A budget the greedy cannot reach is an error
      naming the smallest budget it reached;
    - `optimal`: the least predicted recompute time whose planned arena
      fits `budget`, exactly for its model: a mixed-integer linear program
      in Checkmate's formulation (per recompute unit, whether it is
      recomputed; per value and stage, whether its clone is made there and
      whether it is live; the live bytes of every interval at most the
      budget) over a coarsened graph (a BatchNorm and its ReLU are one
      unit), solved by CBC within `time-limit` seconds. The rewritten step
      is then planned for real (ArenaPlan, in tg-schedule's order); while
      its arena exceeds the target the program's budget is lowered by the
      excess and solved again. The proven optimality gap is recorded.
      The units that nest (last forward readers in order, first backward
      readers in reverse; skips stored) form a chain that a Rotor-style
      dynamic program solves exactly for the rewrite, bytes in 256 bins:
      where the whole step is such a chain its plan is taken without CBC,
      else it replaces the program's plan when faster (`milp.solver`: dp,
      milp or auto, the greedy's plan when faster). A budget below the
      least peak reached is an error naming the smallest budget reached.

    The decision is recorded on the function: `memopt.remat = {strategy,
    [segment_ops], [budget_bytes, persistent_bytes, planned_arena_bytes,
    rounds], [milp: the plan's solver and program, for optimal],
    recomputed_values,
    recomputed_ops, [nested_values], [cuts], [lean_workspaces,
    lean_workspace_bytes], stored_values, flops_added,
    seconds_added, simulated_peak_bytes = {before, after}}` (peaks of the
    program order by the MemorySimulator, with the workspaces annotated so
    far). tg-schedule keeps every recomputed op right before the first op
    that depends on it.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"strategy", "strategy", "std::string", "\"none\"",
           "Which values to recompute: none, sqrt, auto or optimal">,
    Option<"timeLimit", "time-limit", "double", "4.0",
           "optimal: the seconds CBC may spend on all its programs">,
    Option<"offload", "offload", "bool", "false",
           "auto: decide per value keep, recompute or offload to host "
           "memory in one greedy (the offloaded values are marked "
           "`memopt.offload`; tg-offload inserts their copies after "
           "tg-schedule)">,
    Option<"cuts", "cuts", "bool", "true",
           "auto: also run the greedy that may cut shared clones (a fresh "
           "clone for the readers after a gap) and take the faster plan">,
    Option<"leanWorkspaces", "lean-workspaces", "bool", "false",
           "auto, cuda target: a backward convolution at the peak may get "
           "its lean workspace (slower: the device's `lean` factor) "
           "instead of more recomputation">,
  ];
  let statistics = [
    Statistic<"numBytesSaved", "bytes-saved",
              "Simulated peak of the given order before minus after">,
    Statistic<"numFlopsAdded", "flops-added",
              "FLOPs of the recomputed ops">,
    Statistic<"numRecomputedOps", "recomputed-ops",
              "Ops cloned into the backward">,
    Statistic<"numLeanWorkspaces", "lean-workspaces",
              "Convolutions planned with their lean workspace">,
  ];
}

def Offload : Pass<"tg-offload", "::mlir::func::FuncOp"> {
  let summary = "Offload forward values to host memory and prefetch them "
                "back before the backward";
  let description = [{
    docs/passes/offload.md. Runs on the scheduled step (after tg-schedule)
    and keeps its order: for every chosen value, a forward value that the
    backward reads, it inserts `tg.offload_start` after the value's last
    use before its first backward use, `tg.offload_wait` where the copy
    is predicted complete (the device bytes are released there), then
    `tg.prefetch_start` as late as the host link allows without stalling
    and `tg.prefetch_wait` right before the first backward reader, which,
    with every later reader, now reads the prefetched tensor. The link is
    priced by the target's device profile (`link`, one copy at a time per
    direction, overlapping compute).

    The values: those tg-remat's joint planner marked `memopt.offload`
    (`tg-remat{strategy=auto offload=true}`), else, with `strategy=auto`,
    its own greedy over the same simulator, offloading only: the least
    predicted stall whose predicted peak fits the target's budget (without
    one, the memory of its device). The decision is recorded on the function as
    `memopt.offload = {planner, values, d2h_bytes, h2d_bytes, host_bytes,
    stall_seconds, ...}` and on each `tg.offload_start` as
    `memopt.offload = {bytes, seconds}`.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"strategy", "strategy", "std::string", "\"none\"",
           "none (insert only the copies tg-remat marked) or auto (choose "
           "the values to fit the target's budget when nothing is "
           "marked)">,
  ];
  let statistics = [
    Statistic<"numOffloaded", "offloaded-values",
              "Values offloaded to host memory">,
    Statistic<"numBytesOffloaded", "bytes-offloaded",
              "Bytes copied to host memory (and back)">,
  ];
}

def Amp : Pass<"tg-amp", "::mlir::ModuleOp"> {
  let summary = "Mixed precision: run the forward ops in bf16 or fp16 by "
                "the precision table, with f32 master weights";
  let description = [{
    Rewrites each forward function (before `tg-autodiff`) so that the ops
    the precision table (docs/passes/amp.md) marks `low` run in `mode`'s
    type (bf16 or f16) with their operands cast there, the ops marked
    `fp32` take f32 operands, and the ops marked `follow` run in their
    operands' type: low as soon as one of them is low (for
    `tg.batch_norm` and `tg.instance_norm` only the input counts: the
    per-channel parameters and statistics stay f32). Each op's result
    types are inferred again from its new operands.

    Casts are `tg.cast` ops placed before the first op that needs them and
    shared by every later one, so each tensor converts at most once per
    type. Constants are converted at compile time (a new `tg.constant`), not
    cast. The function's arguments (data, f32 parameters: the master
    weights) and results keep their f32 types: low results are cast to f32
    before the return, so that the loss sees f32.

    `tg-autodiff` then differentiates the casts (a cast's gradient is the
    gradient cast back): every backward op runs in its forward op's type,
    the weight gradients reach the optimizer in f32 through the cast of the
    weight, and the low copy of each weight is made once per step. The
    module gets `memopt.amp = "bf16"` (or `"fp16"`), which the compile
    report shows.

    `fp32-ops` and `low-ops` move ops of the table (`tg.conv` or
    `conv`) to fp32 or to low. A name outside the table, or given
    twice, is an error. So are a non-f32 float argument, an op the table
    does not know (a gradient or optimizer op: the pass runs before
    `tg-autodiff`) and a module `tg-amp` already converted.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"mode", "mode", "::memopt::AmpMode",
           "::memopt::AmpMode::bf16", "The low-precision type",
           [{::llvm::cl::values(
             clEnumValN(::memopt::AmpMode::bf16, "bf16",
                        "bfloat16 (f32's range; no loss scaling needed)"),
             clEnumValN(::memopt::AmpMode::fp16, "fp16",
                        "IEEE half precision"))}]>,
    ListOption<"fp32Ops", "fp32-ops", "std::string",
               "Ops of the table to run in fp32 (comma-separated)">,
    ListOption<"lowOps", "low-ops", "std::string",
               "Ops of the table to run in low precision (comma-separated)">,
  ];
  let statistics = [
    Statistic<"numCasts", "casts", "tg.cast ops inserted">,
    Statistic<"numConstants", "converted-constants",
              "Constants converted at compile time">,
    Statistic<"numLowOps", "low-precision-ops",
              "Ops that run in bf16 or fp16">,
  ];
}

def RecomputeCasts : Pass<"tg-recompute-casts", "::mlir::func::FuncOp"> {
  let summary = "Recompute the low-precision copies of arguments in the "
                "backward";
  let description = [{
    Mixed precision (tg-amp) casts the f32 weights (and the input) to
    bf16/fp16 once in the forward; the convolutions' backward reads the
    same copies, which would stay live from the forward to the backward
    (48.9 MB for the ResNet-34 U-Net's 24.4 M parameters). This pass gives
    the backward its own cast of each such argument: every backward read of
    a forward `tg.cast` of a function argument is rewired to a clone of the
    cast, created right before the first backward reader and marked
    `memopt.recompute` (tg-schedule keeps it there), the rewrite tg-remat
    uses. A cast is cheap and deterministic, so the recomputed copy is bit
    for bit the forward's. A function without a backward (eval_step) or
    without such casts is unchanged. docs/passes/recompute-casts.md.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let statistics = [
    Statistic<"numRecomputedCasts", "recomputed-casts",
              "Casts of arguments cloned into the backward">,
    Statistic<"numBytesRecast", "bytes-recast",
              "Bytes of the cast copies recomputed instead of kept">,
  ];
}

def LossScale : Pass<"tg-loss-scale", "::mlir::ModuleOp"> {
  let summary = "fp16 dynamic loss scaling: scaled seed, unscaled and "
                "skippable updates";
  let description = [{
    For fp16 mixed precision (tg-amp mode=fp16), after tg-autodiff: adds
    the argument `%S {tg.loss_scale = "loss_scale"}` (`tensor<f32>`, which
    the trainer sets before each step), seeds the loss's backward with it
    instead of 1.0, moves the optimizer updates to the end of the step and
    gives each its gradient divided by `S + 0 * sum(all gradients)`: `S`
    itself, or NaN when one gradient holds an inf or a NaN, so that the
    updates, marked `tg.skip_nonfinite`, are skipped all together (their
    kernel leaves the parameter and the optimizer state untouched) or none.
    The trainer halves `S` after a skipped step and doubles it after 2000
    clean ones. Every update then follows every gradient (the schedule
    computes them all first, as PyTorch's GradScaler needs them). Needs a
    loss whose backward is seeded with 1.0 (mse, l1, bce, ce, dice); a
    function without updates is unchanged, except `@eval_step`, which
    takes the training step's arguments and gets the (unused) scale too.
    docs/passes/loss-scale.md.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let statistics = [
    Statistic<"numScaledUpdates", "scaled-updates",
              "Optimizer updates given unscaled, skippable gradients">,
  ];
}

def AnnotateWorkspaces : Pass<"tg-annotate-workspaces", "::mlir::func::FuncOp"> {
  let summary = "Record each op's library workspace bytes for the target";
  let description = [{
    Sizes the scratch memory that the kernel of every op of the function
    needs on the module's `#memopt.target` and records it on the op as
    `memopt.workspace_bytes = N : i64` (only where N > 0): on cpu by asking
    oneDNN (the CPU runtime) at compile time, on cuda by the CUDA runtime's
    policy (memopt/Runtime/CUDA/ConvWorkspace.h). This pass is the only
    place that sizes workspaces; `tg-schedule`, `tg-plan-memory`,
    `tg-estimate-cost` and the compile report read the attribute, and an op
    without it has no workspace. It fails at an op whose workspace cannot
    be sized (a convolution when memopt was built without the CPU runtime,
    padding cuDNN cannot do).

    With `lean=true` (the pipeline's --workspaces=lean) it also records the
    lean workspace of each op that has a smaller one, as
    `memopt.lean_workspace_bytes = M : i64`: on cuda a smaller cuDNN
    workspace (any convolution), on cpu a filter gradient computed in
    pieces (memopt/Runtime/CPU/ConvWorkspace.h). `tg-remat` may then give
    the op that workspace.
  }];
  let dependentDialects = ["::memopt::MemoptDialect"];
  let options = [
    Option<"lean", "lean", "bool", "false",
           "Also record the lean workspace of ops that have a smaller one">,
  ];
  let statistics = [
    Statistic<"numAnnotated", "ops-with-workspace",
              "Ops that need a library workspace">,
    Statistic<"numLargest", "largest-workspace-bytes",
              "Bytes of the largest workspace">,
    Statistic<"numLean", "ops-with-lean-workspace",
              "Ops with a smaller lean workspace">,
  ];
}

def Partition : Pass<"tg-partition", "::mlir::ModuleOp"> {
  let summary = "Split each step into contiguous pipeline stages, one "
                "function per device";
  let description = [{
    Model parallelism (docs/passes/partition.md). The forward ops of each
    function, in program order, are cut into `stages` contiguous segments;
    every other op follows the forward op it belongs to (a backward op the
    last stage that holds a forward value it reads, an optimizer update the
    stage that owns its parameter), so each segment's forward, backward and
    update run on one device. Each function `@F` becomes `@F_stage0` ...
    `@F_stage<N-1>`, each with the arguments and results it owns (roles
    kept) and `memopt.stage = #memopt.stage<index = I, stages = N, of = "F", ...>`; every value
    read across a cut (activations, skip connections, gradients, a shared
    parameter) becomes a `tg.send` in the stage that computes it and a
    `tg.recv` in the stage that reads it, at the place of its first reader
    in the unpartitioned order, so that every stage keeps its transfers in
    one global order (a blocking exchange cannot deadlock).

    The cuts minimize the largest stage's predicted peak (persistent bytes
    plus the MemorySimulator's arena peak of the stage in the order that
    tg-schedule will choose,
    workspaces as `tg-annotate-workspaces` recorded them), then its
    predicted time (the cost model on the target's device): a binary search over the
    bound with greedy segments. Each stage records its
    `simulated_peak_bytes`, `persistent_bytes`, `seconds`, `send_bytes`
    and its first and last forward op (`forward_ops = [first, end)`).
    With `microbatches` > 1 the cost of a training stage is its peak once
    `tg-microbatch` runs its microbatches in `schedule` (the stage alone,
    as stage k of the partition: under 1F1B it holds min(M, S-k) of
    them), so the cuts balance the pipelined stages.
    Training steps go first; a step that updates nothing (eval_step) takes
    their cuts through the parameters it reads, so each parameter has one
    owner. A function with fewer forward ops than `stages` is an error.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"stages", "stages", "unsigned", "1",
           "Number of stages (devices); 1 leaves the module alone">,
    Option<"microbatches", "microbatches", "unsigned", "1",
           "Microbatches that tg-microbatch will run per step: a training "
           "stage's cost is then its peak under `schedule`">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "Schedule of the microbatches (gpipe or 1f1b)">,
  ];
  let statistics = [
    Statistic<"numTransfers", "transfers",
              "Values sent from one stage to another">,
    Statistic<"numSendBytes", "send-bytes", "Bytes sent between stages">,
    Statistic<"numWorstPeak", "worst-stage-peak-bytes",
              "Largest predicted stage peak">,
  ];
}

def Microbatch : Pass<"tg-microbatch", "::mlir::ModuleOp"> {
  let summary = "Run each step once per microbatch in a pipeline schedule, "
                "accumulating gradients";
  let description = [{
    Microbatches and pipelining (docs/passes/microbatch.md). The step
    (each step function; with `tg-partition` each stage of it) is compiled
    for one microbatch; the pass makes it take the whole batch
    (`microbatches` times the rows of its `tg.input` and `tg.target`) and
    run its forward and backward once per microbatch on slice k, then its
    optimizer updates once:
    - ops that read no batch data run once, first;
    - per microbatch, clones of the forward and backward ops; a transfer of
      microbatch k gets tag `tag + k * T` (T: the step's number of tags);
    - a value an optimizer update reads (a gradient) is the mean of its
      copies, summed in microbatch order as each backward ends; the loss
      (a rank-0 `tg.output`) their mean, a batch output their
      concatenation; BatchNorm's running statistics chained through the
      copies (updated once per microbatch);
    - the updates and what reads them, once, last.
    The units of a stage follow `schedule`: `gpipe` (all forwards, then
    all backwards) or `1f1b` (stage i of S: S-1-i warm-up forwards, then
    one forward and one backward alternating, then the rest of the
    backwards). The stages' blocking transfers are put in one global order
    by running the programs with rendezvous transfers (a send that would
    deadlock is postponed), so no exchange deadlocks. Each function gets
    `memopt.microbatch = {microbatches, in_flight, order}`, and a training
    step of several stages also `schedule` and each stage's simulated peak
    under both schedules (`peak_bytes_gpipe`, `peak_bytes_1f1b`).
    Runs after `tg-partition` and before `tg-data-parallel`.
    `microbatches` = 1 leaves the module alone.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"microbatches", "microbatches", "unsigned", "1",
           "Microbatches per step; 1 leaves the module alone">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "Order of the stages' microbatches: gpipe or 1f1b">,
  ];
  let statistics = [
    Statistic<"numClonedOps", "cloned-ops",
              "Ops cloned for a microbatch">,
    Statistic<"numAccumulations", "accumulations",
              "Adds that sum a value over microbatches">,
    Statistic<"numPostponedSends", "postponed-sends",
              "Sends moved later to keep the transfers deadlock-free">,
  ];
}

def DataParallel : Pass<"tg-data-parallel", "::mlir::ModuleOp"> {
  let summary = "Average gradients, running statistics and the loss over "
                "data-parallel replicas";
  let description = [{
    Data parallelism (docs/passes/data-parallel.md): `replicas` processes
    run each training step on their own slices of the batch (the step's
    batch is one slice). In every function that updates parameters, the
    pass inserts a `tg.all_reduce` (the mean over the replicas):
    - on the gradient operand of every optimizer update (`tg.sgd_update`,
      `tg.adam_update`), right before it, so that every replica applies
      the gradient of the whole batch's mean loss;
    - on every other result that updates an argument in place (BatchNorm's
      running statistics), right after its op, so that every replica keeps
      the same state;
    - on the loss (the rank-0 `tg.output` result), before the return.
    BatchNorm normalizes with the statistics of the replica's own slice.
    The module gets `memopt.data_parallel = N`, from which the lowering
    builds the multi-process main. Runs after `tg-partition`, on each stage.
    `replicas` = 1 leaves the module alone.

    `zero` (ZeRO stage 1): each replica keeps and updates 1/N of every
    parameter's optimizer state. The update reads `tg.shard`s of the
    parameter and of the averaged gradient (this replica's part), the
    optimizer-state arguments and results shrink to that part, and
    `tg.all_gather` rebuilds the updated parameter from every replica's.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    Option<"replicas", "replicas", "unsigned", "1",
           "Data-parallel replicas (processes per stage)">,
    Option<"zero", "zero", "bool", "false",
           "Shard the optimizer state over the replicas (ZeRO stage 1)">,
  ];
  let statistics = [
    Statistic<"numAllReduces", "all-reduces", "tg.all_reduce ops inserted">,
    Statistic<"numAllReduceBytes", "all-reduce-bytes",
              "Bytes each replica reduces per step">,
    Statistic<"numStateBytes", "zero-state-bytes",
              "Optimizer-state bytes each replica keeps with zero">,
  ];
}

def Schedule : Pass<"tg-schedule", "::mlir::func::FuncOp"> {
  let summary = "Order the ops of a step for the smallest simulated memory "
                "peak";
  let description = [{
    Simulates the arena of several candidate orders of the function's ops
    and keeps the one with the smallest peak (the given order on a tie).
    The simulation (MemorySimulator) counts what the memory plan places in
    the arena (op results that are neither constants nor computed in a step
    result buffer, results written in place over a dying operand counted
    once when the module's `#memopt.target` allows in-place writes) and the
    library workspace of the running op as `tg-annotate-workspaces`
    recorded it (none where it did not run). Candidates:

    - `given`: the order as it is;
    - `free-first`: list scheduling that always runs the ready op that frees
      the most bytes net of what it allocates (ties: the given order);
    - `frees-asap`: the given order, except that an op that frees at least
      what it allocates runs as soon as it is ready (weight gradients are
      consumed by their optimizer update at once, backward ops run before
      the next allocation).

    Dependencies are the use-def edges, the given order of ops with side
    effects, and, for an op that updates an argument in place (optimizer
    updates, BatchNorm running statistics), every other reader of that
    argument first. The decision is recorded on the function:
    `memopt.schedule = {strategy = "...", simulated_peak_bytes = N,
    candidates = {given = N, ...}}`.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect"];
  let options = [
    ListOption<"strategies", "strategies", "std::string",
               "Candidate orders to simulate: given, free-first, frees-asap "
               "(default: all)">,
  ];
  let statistics = [
    Statistic<"numGivenPeak", "given-peak-bytes",
              "Simulated peak of the given order">,
    Statistic<"numChosenPeak", "simulated-peak-bytes",
              "Simulated peak of the chosen order">,
    Statistic<"numMovedOps", "moved-ops",
              "Ops whose position changed">,
  ];
}

def PlanMemory : Pass<"tg-plan-memory", "::mlir::func::FuncOp"> {
  let summary = "Static arena offsets of every temporary, recorded in the IR";
  let description = [{
    Plans one arena for the function's op order (ArenaPlan): lifetimes and
    shared buffers from the MemorySimulator, buffers placed best-fit in the
    best of four orders (ArenaPacking.h: largest, largest area, longest-lived
    first, and by breadth: the fullest position's buffers first), 64-byte
    aligned. Arguments, constants and step results computed in their result
    buffer live outside the arena; a result of an elementwise op or of
    BatchNorm (forward or backward) is written in place over an operand of
    its type that dies at the op; the operands of a `tg.concat` whose
    operands are contiguous slabs of its result are computed in their slice
    of it; library workspaces (oneDNN convolutions) are buffers of their
    op's duration, of the size `tg-annotate-workspaces` recorded (none
    where it did not run). In-place writes and concat slices are used when
    the module's `#memopt.target` allows in-place writes (cpu by default,
    never cuda).

    The plan is recorded in the IR, for `convert-tg-to-mbuf` to read
    (docs/passes/plan-memory.md#the-plan-in-the-ir): the arena's bytes as
    `memopt.arena_size` on the function, and on each op with a place a
    `memopt.place` dictionary of `offsets` (one per result, -1 outside the
    arena), `in_place` (the operand each result overwrites, -1 for none),
    `sliced` (a concat's operands computed in their slice) and `workspace`
    (the workspace's offset). Planning again replaces the record.
  }];
  let dependentDialects = ["::memopt::MemoptDialect",
                           "::memopt::tg::TGDialect"];
  let statistics = [
    Statistic<"numArenaBytes", "arena-bytes", "Bytes of the arena">,
    Statistic<"numArenaValues", "arena-values", "Values in the arena">,
    Statistic<"numInPlace", "in-place-results",
              "Results written over an operand in place">,
    Statistic<"numSliced", "sliced-operands",
              "Concat operands computed in their slice of the result">,
  ];
}

#endif // MEMOPT_TRANSFORMS_PASSES_TD
