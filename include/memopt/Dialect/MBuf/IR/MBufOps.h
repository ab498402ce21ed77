//===- MBufOps.h - Types and operations of mbuf -----------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_MBUF_IR_MBUFOPS_H
#define MEMOPT_DIALECT_MBUF_IR_MBUFOPS_H

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "memopt/Dialect/MBuf/IR/MBufEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "memopt/Dialect/MBuf/IR/MBufOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "memopt/Dialect/MBuf/IR/MBufOps.h.inc"

namespace memopt::mbuf {

/// Where a view's bytes are: the arena op and the byte offset in it, if the
/// view is an mbuf.view or a chain of mbuf.subview on one (and the offsets
/// add up within int64).
struct ArenaPlace {
  ArenaOp arena;
  int64_t offset;
};
std::optional<ArenaPlace> arenaPlace(mlir::Value view);

/// The end of `bytes` bytes at byte `offset`, both at most INT64_MAX (ODS
/// checks offsets, ViewType::verify sizes): exact in uint64.
uint64_t endOfBytes(uint64_t offset, int64_t bytes);

/// The mbuf.view (or other op, or block argument) a view aliases: the end
/// of its chain of mbuf.subview.
mlir::Value rootView(mlir::Value view);

/// Checks the live views of `arena`: none overlaps another that is live at
/// the same time, except tied operands of a kernel (ArenaLiveness.cpp).
mlir::LogicalResult verifyArenaLiveness(ArenaOp arena);

} // namespace memopt::mbuf

#endif // MEMOPT_DIALECT_MBUF_IR_MBUFOPS_H
