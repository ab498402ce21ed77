//===- MemoptDialect.cpp - memopt's core dialect --------------------------===//

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;

#include "memopt/Dialect/Memopt/IR/MemoptDialect.cpp.inc"
#include "memopt/Dialect/Memopt/IR/MemoptEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "memopt/Dialect/Memopt/IR/MemoptAttrs.cpp.inc"

void MemoptDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "memopt/Dialect/Memopt/IR/MemoptAttrs.cpp.inc"
      >();
}

/// `memopt.target` is a #memopt.target on a module; the other `memopt.*`
/// attributes belong to the passes that write them (they check them when
/// they read them back).
LogicalResult MemoptDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on the module, not on '"
                           << op->getName() << "'";
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #memopt.target<cpu|cuda>, got "
                           << attr.getValue();
  return success();
}
