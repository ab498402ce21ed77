//===- TGDialect.cpp - Training-graph dialect -----------------------------===//

#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt::tg;

#include "memopt/Dialect/TG/IR/TGOpsDialect.cpp.inc"
#include "memopt/Dialect/TG/IR/TGEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "memopt/Dialect/TG/IR/TGAttrs.cpp.inc"

void TGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "memopt/Dialect/TG/IR/TGOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "memopt/Dialect/TG/IR/TGAttrs.cpp.inc"
      >();
}

Operation *TGDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// The role attributes (tg.input, tg.param, tg.state, tg.output) name an ONNX
/// value, so they must be non-empty strings on a function whose signature
/// they describe.
static LogicalResult verifyRoleAttr(Operation *op, NamedAttribute attr,
                                    bool isResult) {
  StringRef name = attr.getName().getValue();
  bool isArgRole = name == TGDialect::kInputAttrName ||
                   name == TGDialect::kParamAttrName ||
                   name == TGDialect::kStateAttrName;
  bool isResultRole = name == TGDialect::kOutputAttrName;
  if (!isArgRole && !isResultRole)
    return op->emitError() << "unknown tg attribute '" << name << "'";
  if (isResult && !isResultRole)
    return op->emitError() << "'" << name
                           << "' marks a function argument, not a result";
  if (!isResult && !isArgRole)
    return op->emitError() << "'" << name
                           << "' marks a function result, not an argument";
  auto str = dyn_cast<StringAttr>(attr.getValue());
  if (!str || str.getValue().empty())
    return op->emitError() << "'" << name
                           << "' must be a non-empty string naming an ONNX value";
  return success();
}

LogicalResult TGDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned, NamedAttribute attr) {
  return verifyRoleAttr(op, attr, /*isResult=*/false);
}

LogicalResult TGDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned,
                                                     NamedAttribute attr) {
  return verifyRoleAttr(op, attr, /*isResult=*/true);
}
