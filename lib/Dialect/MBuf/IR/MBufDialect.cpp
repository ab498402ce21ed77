//===- MBufDialect.cpp - Buffer-level dialect -----------------------------===//

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt::mbuf;

#include "memopt/Dialect/MBuf/IR/MBufEnums.cpp.inc"
#include "memopt/Dialect/MBuf/IR/MBufOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "memopt/Dialect/MBuf/IR/MBufOpsTypes.cpp.inc"

void MBufDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "memopt/Dialect/MBuf/IR/MBufOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "memopt/Dialect/MBuf/IR/MBufOpsTypes.cpp.inc"
      >();
}
