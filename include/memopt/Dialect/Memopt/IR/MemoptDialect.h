//===- MemoptDialect.h - memopt's core dialect ------------------*- C++ -*-===//
//
// The memopt dialect and #memopt.target, the module attribute that every
// pass reads to learn the backend and what it allows, the device profile
// (#memopt.device) and the budget.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_H
#define MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_H

#include "memopt/Analysis/DeviceProfile.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h.inc"
#include "memopt/Dialect/Memopt/IR/MemoptEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "memopt/Dialect/Memopt/IR/MemoptAttrs.h.inc"

namespace memopt {

/// The #memopt.target of the module that holds `op` (or of `op` itself, a
/// module). When it is missing, emits `<pass>: the module has no
/// memopt.target; ...` at `op` naming the fix, and fails.
mlir::FailureOr<TargetAttr> lookupTarget(mlir::Operation *op,
                                         llvm::StringRef pass);

/// The #memopt.stage of `function` (a pipeline stage of tg-partition), or
/// null.
StageAttr getStage(mlir::Operation *function);

/// Records `stage` on `function`.
void setStage(mlir::Operation *function, StageAttr stage);

/// The #memopt.schedule tg-schedule recorded on `function`, or null.
ScheduleAttr getSchedule(mlir::Operation *function);

/// Records `schedule` on `function`.
void setSchedule(mlir::Operation *function, ScheduleAttr schedule);

} // namespace memopt

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_H
