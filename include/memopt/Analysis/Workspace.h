//===- Workspace.h - Library workspace sizes of tg ops -----------*- C++ -*-===//
//
// The oneDNN convolutions of the CPU runtime need a scratchpad whose size
// depends on the implementation oneDNN picks for the CPU at hand. The CPU
// backend compiles on the machine that trains, so the memory planner asks
// the runtime itself at compile time and reserves exactly that. An op
// describes its kernel (tg::KernelOpInterface::getWorkspaceBytes) and the
// target's tg::WorkspacePolicy sizes it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_WORKSPACE_H
#define MEMOPT_ANALYSIS_WORKSPACE_H

#include "memopt/Dialect/TG/IR/TGInterfaces.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace memopt {

/// The backend whose kernels the workspace is sized for.
enum class WorkspaceTarget { CPU, CUDA };

/// The workspace bytes of an op as tg-annotate-workspaces records them
/// (an i64, present only when not 0).
constexpr llvm::StringLiteral kWorkspaceBytesAttr = "memopt.workspace_bytes";

/// Marks a convolution that tg-remat planned with its lean workspace (a
/// unit attribute beside the smaller `memopt.workspace_bytes`): the CUDA
/// runtime picks an algorithm that fits it or runs in slices, the CPU
/// runtime computes a filter gradient in pieces, and the cost model
/// charges the device's `lean` slowdown (docs/passes/remat.md).
constexpr llvm::StringLiteral kLeanWorkspaceAttr = "memopt.lean_workspace";

/// The lean workspace an op could run in, as tg-annotate-workspaces
/// records it with lean=true (an i64, present only when smaller than
/// `memopt.workspace_bytes`): what tg-remat may give the op under
/// --workspaces=lean.
constexpr llvm::StringLiteral kLeanWorkspaceBytesAttr =
    "memopt.lean_workspace_bytes";

/// The OpenMP thread count that the CPU workspaces of a function were sized
/// for (an i64 on the function, set by tg-annotate-workspaces when it
/// annotated a CPU workspace): oneDNN's scratchpads grow with the threads,
/// so the training binary runs its kernels with exactly this many.
constexpr llvm::StringLiteral kWorkspaceThreadsAttr =
    "memopt.workspace_threads";

/// The threads the `target` runtime's kernels run on in this process (CPU:
/// OpenMP's count, which the workspace queries see); 0 for CUDA, whose
/// workspaces do not depend on host threads.
int workspaceThreads(WorkspaceTarget target);

/// The scratch bytes `op`'s kernel needs while it runs, as recorded by
/// tg-annotate-workspaces; 0 for an op without the attribute. Everything
/// after the annotation (schedule, plan, cost model, timeline) asks this.
uint64_t workspaceBytes(mlir::Operation *op);

/// The lean workspace bytes of `op` as tg-annotate-workspaces recorded
/// them; workspaceBytes(op) where it recorded none.
uint64_t leanWorkspaceBytes(mlir::Operation *op);

/// The scratch bytes that the `target` runtime's kernel of `op` needs while
/// it runs, 0 for an op without a workspace: the op describes its kernel
/// (tg::KernelOpInterface::getWorkspaceBytes) and the target's policy sizes
/// it; with `lean`, the policy's lean workspace (WorkspacePolicy::
/// leanConvolution). Only tg-annotate-workspaces calls it.
mlir::FailureOr<uint64_t> queryWorkspaceBytes(mlir::Operation *op,
                                              WorkspaceTarget target,
                                              bool lean = false);

/// The CPU runtime's policy: oneDNN asked at compile time. Fails (with a
/// diagnostic at the op) for a convolution when memopt was built without
/// the CPU runtime.
const tg::WorkspacePolicy &cpuWorkspacePolicy();

/// The lean workspace of a CUDA convolution whose full workspace is
/// `fullBytes` (memopt/Runtime/CUDA/ConvWorkspace.h): at most `fullBytes`.
uint64_t cudaLeanWorkspaceBytes(uint64_t fullBytes);

/// The CUDA runtime's policy for a convolution
/// (memopt/Runtime/CUDA/ConvWorkspace.h: computed from the shapes, no GPU
/// needed). Fails (with a diagnostic) on padding cuDNN cannot do.
const tg::WorkspacePolicy &cudaWorkspacePolicy();

} // namespace memopt

#endif // MEMOPT_ANALYSIS_WORKSPACE_H
