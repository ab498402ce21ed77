//===- MemoryPlan.h - The static memory plan as IR attributes ---*- C++ -*-===//
//
// `tg-plan-memory` records its plan on the ops of the step, so that it is
// visible in `memopt-opt` output, checked by FileCheck and read back by the
// code generator:
//
//   %r = tg.relu %x {memopt.offsets = array<i64: 4096>,
//                    memopt.in_place = array<i64: 0>} : ...
//   %c = tg.conv2d ... {memopt.offsets = array<i64: 0>,
//                       memopt.workspace = array<i64: 8192, 1024>}
//   func.func @train_step(...) attributes {memopt.arena_bytes = 9216 : i64}
//
// - `memopt.offsets`: per result, its byte offset in the arena, or -1 for a
//   result that lives elsewhere (a constant, a step result computed in its
//   result buffer);
// - `memopt.in_place`: per result, the operand whose buffer it overwrites,
//   or -1 (present only on ops with such a result);
// - `memopt.sliced_operands` on a tg.concat: the operands that were
//   computed in their slice of its result (the concat copies nothing for
//   them);
// - `memopt.workspace`: offset and bytes of the op's library workspace;
// - `memopt.arena_bytes` on the function: the arena size.
//
// MemoryPlan::read parses the attributes and verifies the plan: two buffers
// live at the same time never share a byte, except a result written in
// place over an operand that dies at its op.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_MEMORYPLAN_H
#define MEMOPT_ANALYSIS_MEMORYPLAN_H

#include "memopt/Analysis/ArenaPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <optional>

namespace memopt {

constexpr llvm::StringLiteral kOffsetsAttr = "memopt.offsets";
constexpr llvm::StringLiteral kInPlaceAttr = "memopt.in_place";
constexpr llvm::StringLiteral kWorkspaceAttr = "memopt.workspace";
constexpr llvm::StringLiteral kSlicedOperandsAttr = "memopt.sliced_operands";
/// The arena size (i64), on the planned function and, after lowering, on
/// the module.
constexpr llvm::StringLiteral kArenaBytesAttr = "memopt.arena_bytes";

/// The plan of one function, as read from its attributes.
class MemoryPlan {
public:
  /// Records `plan` on `function` (a single-block func.func); `workspaces`
  /// gives the workspace bytes of the ops that have one.
  static void write(mlir::func::FuncOp function, const ArenaPlan &plan,
                    const llvm::DenseMap<mlir::Operation *, uint64_t>
                        &workspaces);

  /// Reads and verifies the plan of `function`; emits a diagnostic and
  /// fails when it is missing, malformed or unsafe.
  static mlir::FailureOr<MemoryPlan> read(mlir::func::FuncOp function);

  /// The arena offset of `value`, if it lives in the arena.
  std::optional<uint64_t> offset(mlir::Value value) const;
  /// The arena offset of `op`'s workspace, if it has one.
  std::optional<uint64_t> workspaceOffset(mlir::Operation *op) const;
  uint64_t arenaBytes() const { return total; }

private:
  llvm::DenseMap<mlir::Value, uint64_t> offsets;
  llvm::DenseMap<mlir::Operation *, uint64_t> workspaceOffsets;
  uint64_t total = 0;
};

} // namespace memopt

#endif // MEMOPT_ANALYSIS_MEMORYPLAN_H
