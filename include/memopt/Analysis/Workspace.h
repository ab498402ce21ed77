//===- Workspace.h - Library workspace sizes of tg ops -----------*- C++ -*-===//
//
// The oneDNN convolutions of the CPU runtime need a scratchpad whose size
// depends on the implementation oneDNN picks for the CPU at hand. The CPU
// backend compiles on the machine that trains, so the memory planner asks
// the runtime itself at compile time and reserves exactly that.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_WORKSPACE_H
#define MEMOPT_ANALYSIS_WORKSPACE_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace memopt {

/// The scratch bytes that the CPU runtime's kernel of `op` needs while it
/// runs, 0 for an op without a workspace. Fails (with a diagnostic at `op`)
/// for a convolution when memopt was built without the CPU runtime.
mlir::FailureOr<uint64_t> queryWorkspaceBytes(mlir::Operation *op);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_WORKSPACE_H
