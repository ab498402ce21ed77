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

def Schedule : Pass<"tg-schedule", "::mlir::func::FuncOp"> {
  let summary = "Order the ops of a step for the smallest simulated memory "
                "peak";
  let description = [{
    Simulates the arena of several candidate orders of the function's ops
    and keeps the one with the smallest peak (the given order on a tie).
    The simulation counts what the memory plan places in the arena (op
    results that are neither constants nor computed in a step result
    buffer, results written in place over a dying operand counted once) and
    the library workspace of the running op. Candidates:

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
    Option<"target", "target", "std::string", "\"cpu\"",
           "The backend whose workspaces to size: cpu (asks oneDNN at "
           "compile time) or cuda (the CUDA runtime's policy, "
           "memopt/Runtime/CUDA/ConvWorkspace.h)">,
    Option<"queryWorkspaces", "query-workspaces", "bool", "true",
           "Count library workspaces, sized by the CPU runtime at compile "
           "time">,
    Option<"inPlace", "in-place", "bool", "true",
           "Count results written in place over a dying operand once, as "
           "tg-plan-memory places them">,
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
  let summary = "Static arena offsets of every temporary, in the IR";
  let description = [{
    Plans one arena for the function's op order (ArenaPlan): liveness by
    `mlir::Liveness`, buffers placed best-fit by decreasing size, 64-byte
    aligned. Arguments, constants and step results computed in their result
    buffer live outside the arena; a result of an elementwise op or of
    BatchNorm (forward or backward) is written in place over an operand of
    its type that dies at the op; the operands of a `tg.concat` whose
    operands are contiguous slabs of its result are computed in their slice
    of it; library workspaces (oneDNN convolutions) are buffers of their
    op's duration, sized by the target's runtime at compile time.

    The function is then converted into the mbuf dialect at these places
    (docs/dialects/mbuf.md): arguments and results become views of the
    caller's buffers, `mbuf.arena 0` holds the plan, every value is an
    `mbuf.view` at its offset (an `mbuf.subview` of the concat result for a
    sliced operand, `mbuf.result` for a result computed in its buffer) and
    every op an `mbuf.kernel` writing its result views, tied to the operand
    it overwrites. With target=cuda, constants get arena space after the
    plan. The mbuf verifier checks that no two live views overlap.
  }];
  let dependentDialects = ["::memopt::tg::TGDialect",
                           "::memopt::mbuf::MBufDialect"];
  let options = [
    Option<"target", "target", "std::string", "\"cpu\"",
           "The backend whose workspaces to size: cpu (asks oneDNN at "
           "compile time) or cuda (the CUDA runtime's policy, "
           "memopt/Runtime/CUDA/ConvWorkspace.h)">,
    Option<"queryWorkspaces", "query-workspaces", "bool", "true",
           "Size convolution workspaces by asking the CPU runtime (oneDNN) "
           "at compile time; false plans none (for tests of the IR only: "
           "the kernels abort if they need one)">,
    Option<"inPlace", "in-place", "bool", "true",
           "Write elementwise and BatchNorm results over a dying operand, "
           "and concat operands into their slice of the result">,
  ];
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
