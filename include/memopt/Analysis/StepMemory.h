//===- StepMemory.h - Where the training step's tensors live -----*- C++ -*-===//
//
// The byte accounting that the scheduler, the memory planner, the plan's
// verifier and the code generator share:
//
// - arguments live in the trainer's argument buffers, constants in the
//   binary; a step result whose op may compute it directly in its result
//   buffer lives there (resultBufferPlacements); every other op result lives
//   in the arena;
// - some kernels may write a result over an operand that dies at the op
//   (inPlaceCandidates): elementwise ops and BatchNorm read every element
//   before they write it.
//
// What a kernel may overwrite or update is the op's own fact
// (tg::KernelOpInterface); updatedOperand and inPlaceCandidates ask it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_STEPMEMORY_H
#define MEMOPT_ANALYSIS_STEPMEMORY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace memopt {

/// The bytes of a statically shaped tensor value (elements x element size).
uint64_t tensorBytes(mlir::Value value);

/// Succeeds when `step` has one block, the steps every memory pass takes;
/// otherwise emits `<pass>: expected a function with one block` and fails.
mlir::LogicalResult checkOneBlock(mlir::func::FuncOp step,
                                  llvm::StringRef pass);

/// The tg role attribute (`tg.param = "name"`, ...) among argument or
/// result attributes.
std::optional<mlir::NamedAttribute> roleOf(mlir::DictionaryAttr attrs);

/// The operand that the kernel of `result`'s op updates in place when the
/// trainer passes the operand's buffer for the result (an optimizer
/// update's parameter and state, batch_norm's running statistics); null for
/// other results.
mlir::Value updatedOperand(mlir::OpResult result);

/// The op results of `step` that are computed directly in a result buffer,
/// with the index of that result: the first return of an op result that is
/// not a constant, unless it updates an argument (same role and name) that
/// an op after its producer still reads, or that its producer reads other
/// than as the updated operand. Depends on the op order.
llvm::DenseMap<mlir::Value, unsigned>
resultBufferPlacements(mlir::func::FuncOp step);

/// Whether the op result `value` lives in the arena under `resultBuffers`:
/// a float tensor that is neither a constant, nor the host copy of an
/// offloaded tensor (tg.offload_start: the host pool), nor a result
/// computed in its buffer.
bool livesInArena(mlir::Value value,
                  const llvm::DenseMap<mlir::Value, unsigned> &resultBuffers);

/// The operands of `result`'s op whose buffer the kernel may write `result`
/// over (same type; every element read before it is written), in order of
/// preference. Whether the operand dies at the op is the caller's concern.
llvm::SmallVector<unsigned, 2> inPlaceCandidates(mlir::OpResult result);

/// Where a value lives inside the result of the tg.concat that reads it.
struct ConcatSlice {
  mlir::Operation *concat;
  uint64_t offset; // bytes from the start of the concat's result
};

/// The byte offset of each operand's slab inside the result of `concat`
/// (a tg.concat), or nothing when the operands are not contiguous slabs.
std::optional<llvm::SmallVector<uint64_t>>
concatOperandOffsets(mlir::Operation *concat);

/// The op results of `body` that are computed in their slice of a
/// tg.concat's result: the concat's result and the operand live in the
/// arena (`inArena`), the operand is an op result other than a concat,
/// read once by the concat, and its slice starts at a multiple of
/// `alignment`; the first concat that reads a value takes it.
llvm::DenseMap<mlir::Value, ConcatSlice>
concatSlices(mlir::Block &body, llvm::function_ref<bool(mlir::Value)> inArena,
             uint64_t alignment);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_STEPMEMORY_H
