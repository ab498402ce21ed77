//===- ArenaPlan.h - Static arena offsets by liveness -----------*- C++ -*-===//
//
// A simple static memory plan for a single-block function: every value that
// lives in the arena (and the scratch workspace of every op that needs one)
// gets a byte offset, chosen best-fit by decreasing size over the live
// intervals of the op order (as XLA's heap simulator); buffers whose
// intervals overlap never overlap in memory. A result that an elementwise
// kernel may write over an operand dying at its op (inPlaceCandidates) can
// share that operand's buffer. `tg-plan-memory` runs it (planStepArena) and
// converts the step into buffers at its places (TGToMBuf.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_ARENAPLAN_H
#define MEMOPT_ANALYSIS_ARENAPLAN_H

#include "memopt/Analysis/Workspace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>

namespace memopt {

class ArenaPlan {
public:
  /// Every offset is a multiple of this (and every buffer is padded to it),
  /// the alignment oneDNN wants for its workspace.
  static constexpr uint64_t kAlignment = 64;

  /// Plans the single block of `function`. `valueBytes(v)` is the size of
  /// op result `v` in the arena, 0 for a value that lives elsewhere (a
  /// result buffer, a constant); `workspaceBytes(op)` is the scratch memory
  /// `op` needs while it runs (0: none). A value is live from its defining
  /// op to its last use (mlir::Liveness); a workspace during its op only.
  /// With `inPlace`, a result takes the buffer of the first of its
  /// inPlaceCandidates that lives in the arena, has its size and is last
  /// used by the result's op; the buffer then lives until the result's last
  /// use. Also with `inPlace`, the operands of a tg.concat that
  /// concatSlices allows are computed in their slice of its result: one
  /// buffer from the first operand's op to the last use of any of them.
  static ArenaPlan compute(mlir::Operation *function,
                           llvm::function_ref<uint64_t(mlir::Value)> valueBytes,
                           llvm::function_ref<uint64_t(mlir::Operation *)>
                               workspaceBytes,
                           bool inPlace);

  /// The arena offset of `value`, if it lives in the arena.
  std::optional<uint64_t> offset(mlir::Value value) const;
  /// The arena offset of `op`'s workspace, if it has one.
  std::optional<uint64_t> workspaceOffset(mlir::Operation *op) const;
  /// The operand whose buffer `result` overwrites, if any.
  std::optional<unsigned> inPlaceOperand(mlir::OpResult result) const;
  /// The operands of tg.concat `concat` computed in their slice of its
  /// result (concatSlices), which the concat need not copy.
  llvm::ArrayRef<unsigned> slicedOperands(mlir::Operation *concat) const;
  /// The arena size: the end of the highest buffer.
  uint64_t totalBytes() const { return total; }

private:
  llvm::DenseMap<mlir::Value, uint64_t> valueOffsets;
  llvm::DenseMap<mlir::Value, unsigned> inPlaceOperands;
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<unsigned, 2>> sliced;
  llvm::DenseMap<mlir::Operation *, uint64_t> workspaceOffsets;
  uint64_t total = 0;
};

/// The plan of a training step as tg-plan-memory makes it, with the
/// workspace bytes of the ops that need one.
struct StepArenaPlan {
  ArenaPlan plan;
  llvm::DenseMap<mlir::Operation *, uint64_t> workspaces;
};

/// Plans the single block of `step`: arguments, constants and results
/// computed in their result buffer (resultBufferPlacements) outside the
/// arena, every other value and the workspaces of `target`'s kernels
/// (none without `queryWorkspaces`) in it. Fails after a diagnostic when a
/// workspace query fails.
mlir::FailureOr<StepArenaPlan> planStepArena(mlir::func::FuncOp step,
                                             WorkspaceTarget target,
                                             bool queryWorkspaces,
                                             bool inPlace);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_ARENAPLAN_H
