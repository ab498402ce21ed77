//===- TGToMBuf.h - Value-semantics tg step to buffers ----------*- C++ -*-===//
//
// `convert-tg-to-mbuf`: a single-block func.func of tg ops becomes the same
// step in the mbuf dialect, as the arena plan that tg-plan-memory recorded
// on it (ArenaPlan.h, readStepArenaPlan) places it. See
// docs/passes/tg-to-mbuf.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H
#define MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

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

#define GEN_PASS_DECL_CONVERTTGTOMBUF
#include "memopt/Conversion/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_CONVERSION_TGTOMBUF_TGTOMBUF_H
