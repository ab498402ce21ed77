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

#include <type_traits>

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

/// The name of the attribute that holds a decision AttrT: on a function
/// #memopt.stage, #memopt.schedule, #memopt.microbatch, #memopt.remat and
/// #memopt.offload; on an op #memopt.offload_copy and
/// #memopt.offload_results.
template <typename AttrT>
constexpr llvm::StringLiteral decisionAttrName() {
  if constexpr (std::is_same_v<AttrT, StageAttr>)
    return MemoptDialect::kStageAttrName;
  else if constexpr (std::is_same_v<AttrT, ScheduleAttr>)
    return MemoptDialect::kScheduleAttrName;
  else if constexpr (std::is_same_v<AttrT, MicrobatchAttr>)
    return MemoptDialect::kMicrobatchAttrName;
  else if constexpr (std::is_same_v<AttrT, RematAttr>)
    return MemoptDialect::kRematAttrName;
  else if constexpr (std::is_same_v<AttrT, OffloadAttr>)
    return MemoptDialect::kOffloadAttrName;
  else if constexpr (std::is_same_v<AttrT, OffloadCopyAttr>)
    return MemoptDialect::kOffloadCopyAttrName;
  else {
    static_assert(std::is_same_v<AttrT, OffloadResultsAttr>,
                  "not a decision attribute");
    return MemoptDialect::kOffloadResultsAttrName;
  }
}

/// The decision AttrT that its pass recorded on `function`, or null:
/// getDecision<StageAttr>(f) is tg-partition's stage of f.
template <typename AttrT>
AttrT getDecision(mlir::Operation *function) {
  return function->getAttrOfType<AttrT>(decisionAttrName<AttrT>());
}

/// Records `decision` on `function`.
template <typename AttrT>
void setDecision(mlir::Operation *function, AttrT decision) {
  function->setAttr(decisionAttrName<AttrT>(), decision);
}

/// Removes the decision AttrT from `op` once it has been acted on (the
/// #memopt.offload_results handoff).
template <typename AttrT>
void removeDecision(mlir::Operation *op) {
  op->removeAttr(decisionAttrName<AttrT>());
}

} // namespace memopt

#endif // MEMOPT_DIALECT_MEMOPT_IR_MEMOPTDIALECT_H
