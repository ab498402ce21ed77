//===- TGDialect.h - Training-graph dialect ---------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TG_IR_TGDIALECT_H
#define MEMOPT_DIALECT_TG_IR_TGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "memopt/Dialect/TG/IR/TGOpsDialect.h.inc"

#endif // MEMOPT_DIALECT_TG_IR_TGDIALECT_H
