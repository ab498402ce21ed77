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

/// The name of the function attribute that holds a decision AttrT
/// (#memopt.stage, #memopt.schedule, #memopt.microbatch).
template <typename AttrT>
struct DecisionAttrName;
template <>
struct DecisionAttrName<StageAttr> {
  static constexpr llvm::StringLiteral value = MemoptDialect::kStageAttrName;
};
template <>
struct DecisionAttrName<ScheduleAttr> {
  static constexpr llvm::StringLiteral value =
      MemoptDialect::kScheduleAttrName;
};
template <>
struct DecisionAttrName<MicrobatchAttr> {
  static constexpr llvm::StringLiteral value =
      MemoptDialect::kMicrobatchAttrName;
};

/// The decision AttrT that its pass recorded on `function`, or null:
/// getDecision<StageAttr>(f) is tg-partition's stage of f.
template <typename AttrT>
AttrT getDecision(mlir::Operation *function) {
  return function->getAttrOfType<AttrT>(DecisionAttrName<AttrT>::value);
}

/// Records `decision` on `function`.
template <typename AttrT>
void setDecision(mlir::Operation *function, AttrT decision) {
  function->setAttr(DecisionAttrName<AttrT>::value, decision);
}

} // namespace memopt

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_H
