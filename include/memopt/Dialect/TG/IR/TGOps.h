//===- TGOps.h - Operations of the tg dialect -------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TG_IR_TGOPS_H
#define MEMOPT_DIALECT_TG_IR_TGOPS_H

#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/IR/TGInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "memopt/Dialect/TG/IR/TGEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "memopt/Dialect/TG/IR/TGAttrs.h.inc"

#define GET_OP_CLASSES
#include "memopt/Dialect/TG/IR/TGOps.h.inc"

#endif // MEMOPT_DIALECT_TG_IR_TGOPS_H
