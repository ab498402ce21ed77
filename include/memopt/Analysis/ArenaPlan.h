//===- ArenaPlan.h - Static arena offsets by liveness -----------*- C++ -*-===//
//
// A simple static memory plan for a single-block function: every buffer of
// the MemorySimulator's layout (the values that share it, or an op's
// workspace) gets a byte offset, chosen best-fit over the live intervals
// of the op order (as XLA's heap simulator); buffers whose intervals
// overlap never overlap in memory. `tg-plan-memory` runs it
// (planStepArena) and records it in the IR (recordStepArenaPlan);
// `convert-tg-to-mbuf` reads it back (readStepArenaPlan) and converts the
// step into buffers at its places (TGToMBuf.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_ARENAPLAN_H
#define MEMOPT_ANALYSIS_ARENAPLAN_H

#include "memopt/Analysis/ArenaPacking.h"
#include "memopt/Analysis/MemorySimulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace memopt {

struct StepArenaPlan;

class ArenaPlan {
public:
  /// Every offset is a multiple of this (and every buffer is padded to it),
  /// the alignment oneDNN wants for its workspace.
  static constexpr uint64_t kAlignment = 64;

  /// Plans the given order of `simulator`'s function: its layout says
  /// which values share a buffer (a result written in place over an
  /// operand that dies at its op, the operands of a tg.concat computed in
  /// their slices of its result) and how long each buffer and workspace
  /// lives; this places them best-fit.
  static ArenaPlan compute(const MemorySimulator &simulator);
  /// compute(simulator).totalBytes() from the layout of the simulator's
  /// given order, without the offsets: faster, for searches that only
  /// compare arena sizes (tg-remat's trials).
  static uint64_t computeTotal(const MemorySimulator::Layout &layout);
  /// The live interval of each of `layout`'s buffers, which computeTotal
  /// packs (kept by a search that packs them later).
  static llvm::SmallVector<LiveInterval>
  liveIntervals(const MemorySimulator::Layout &layout);
  /// Whether computeTotal(layout) is at most `limit` (packsWithin): for
  /// searches that only test a fit.
  static bool fitsWithin(const MemorySimulator::Layout &layout,
                         uint64_t limit);

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
  friend mlir::FailureOr<StepArenaPlan>
  readStepArenaPlan(mlir::func::FuncOp step, llvm::StringRef pass);

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

/// Plans the single block of `step` in its op order (MemorySimulator):
/// arguments, constants and results computed in their result buffer
/// (resultBufferPlacements) outside the arena, every other value and the
/// workspaces tg-annotate-workspaces recorded (memopt::workspaceBytes) in
/// it; `inPlace` as the module's #memopt.target allows.
StepArenaPlan planStepArena(mlir::func::FuncOp step, bool inPlace);

/// The plan in the IR, as tg-plan-memory records it and convert-tg-to-mbuf
/// reads it (docs/passes/plan-memory.md#the-plan-in-the-ir): the arena's
/// bytes on the function (i64), and on each op that has a place a
/// dictionary of `offsets` (one per result, -1 for a result outside the
/// arena), `in_place` (one per result: the operand it overwrites, or -1),
/// `sliced` (a concat's operands computed in their slice of its result)
/// and `workspace` (the offset of the op's workspace), each only when it
/// says something.
constexpr llvm::StringLiteral kArenaSizeAttr = "memopt.arena_size";
constexpr llvm::StringLiteral kPlaceAttr = "memopt.place";

/// Records `plan` on `step` and its ops (kArenaSizeAttr, kPlaceAttr).
void recordStepArenaPlan(mlir::func::FuncOp step, const ArenaPlan &plan);

/// The plan recordStepArenaPlan recorded on `step`, with the workspace
/// bytes of its ops. Checks it against the ops (one offset per result, an
/// operand that exists, every place inside the arena, 64-byte aligned);
/// emits `<pass>: ...` at the op and fails on a missing or malformed one.
mlir::FailureOr<StepArenaPlan> readStepArenaPlan(mlir::func::FuncOp step,
                                                 llvm::StringRef pass);

/// Removes the record from `step` and its ops.
void eraseStepArenaPlan(mlir::func::FuncOp step);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_ARENAPLAN_H
