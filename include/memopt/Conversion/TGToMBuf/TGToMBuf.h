//===- TGToMBuf.h - Value-semantics tg step to buffers ----------*- C++ -*-===//
//
// The conversion at the heart of `tg-plan-memory`: a single-block func.func
// of tg ops becomes the same step in the mbuf dialect, as an arena plan
// (ArenaPlan) places it. See docs/passes/plan-memory.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H
#define MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H

#include "memopt/Analysis/ArenaPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace memopt {

/// Rewrites `step` (single block, static float tensors, planned by `plan`)
/// into mbuf: arguments and results become views of the caller's buffers,
/// arena 0 (device memory of device 0) holds every value and workspace at
/// its planned offset, and each tg op becomes an mbuf.kernel that writes
/// its result views (tied to the operand it overwrites in place, or to the
/// concat result it was computed in a slice of). Constants become
/// mbuf.constant, or with `constantsInArena` (a device backend, whose
/// kernels cannot read the program's static data) arena views after the
/// plan's bytes, filled by a kernel. Emits a diagnostic and fails on a
/// value the plan gives no place.
mlir::LogicalResult convertTGToMBuf(mlir::func::FuncOp step,
                                    const StepArenaPlan &plan,
                                    bool constantsInArena);

} // namespace memopt

#endif // MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H
