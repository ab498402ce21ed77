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

namespace {
/// Where a role attribute may appear: arguments only (data, target, step,
/// seed),
/// results only (outputs) or both (the persistent state that a training step
/// reads and yields updated).
enum class RolePlace { Argument, Result, Both };
} // namespace

static std::optional<RolePlace> rolePlace(StringRef name) {
  if (name == TGDialect::kInputAttrName || name == TGDialect::kTargetAttrName ||
      name == TGDialect::kStepAttrName || name == TGDialect::kSeedAttrName ||
      name == TGDialect::kLossScaleAttrName)
    return RolePlace::Argument;
  if (name == TGDialect::kOutputAttrName)
    return RolePlace::Result;
  if (name == TGDialect::kParamAttrName || name == TGDialect::kStateAttrName ||
      name == TGDialect::kOptStateAttrName)
    return RolePlace::Both;
  return std::nullopt;
}

/// The role attributes name an ONNX value (an optimizer state names its
/// parameter and slot), so they must be non-empty strings on a function
/// whose signature they describe.
static LogicalResult verifyRoleAttr(Operation *op, NamedAttribute attr,
                                    bool isResult) {
  StringRef name = attr.getName().getValue();
  std::optional<RolePlace> place = rolePlace(name);
  if (!place)
    return op->emitError() << "unknown tg attribute '" << name << "'";
  if (isResult && *place == RolePlace::Argument)
    return op->emitError() << "'" << name
                           << "' marks a function argument, not a result";
  if (!isResult && *place == RolePlace::Result)
    return op->emitError() << "'" << name
                           << "' marks a function result, not an argument";
  auto str = dyn_cast<StringAttr>(attr.getValue());
  if (!str || str.getValue().empty())
    return op->emitError() << "'" << name
                           << "' must be a non-empty string naming an ONNX value";
  if (name == TGDialect::kOptStateAttrName) {
    auto [param, slot] = str.getValue().rsplit('.');
    if (param.empty() ||
        !llvm::is_contained({TGDialect::kMomentumBufferSlot,
                             TGDialect::kExpAvgSlot, TGDialect::kExpAvgSqSlot},
                            slot))
      return op->emitError()
             << "'" << name << "' must name '<parameter>.<slot>' with slot "
             << TGDialect::kMomentumBufferSlot << ", " << TGDialect::kExpAvgSlot
             << " or " << TGDialect::kExpAvgSqSlot << ", got '"
             << str.getValue() << "'";
  }
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
