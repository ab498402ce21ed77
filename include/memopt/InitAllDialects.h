//===- InitAllDialects.h - Register every dialect memopt uses ---*- C++ -*-===//

#ifndef MEMOPT_INITALLDIALECTS_H
#define MEMOPT_INITALLDIALECTS_H

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace memopt {
/// Adds memopt's dialects and the upstream dialects its IR contains.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<MemoptDialect, tg::TGDialect, mbuf::MBufDialect,
                  mlir::func::FuncDialect,
                  mlir::emitc::EmitCDialect>();
}
} // namespace memopt

#endif // MEMOPT_INITALLDIALECTS_H
