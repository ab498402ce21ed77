//===- MBufDialect.h - Buffer-level dialect ---------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_H
#define MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_H

#include "mlir/IR/Dialect.h"

#include "memopt/Dialect/MBuf/IR/MBufOpsDialect.h.inc"

#endif // MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_H
