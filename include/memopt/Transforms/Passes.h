//===- Passes.h - Schedule and static memory plan ---------------*- C++ -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_H
#define MEMOPT_TRANSFORMS_PASSES_H

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace memopt {

#define GEN_PASS_DECL
#include "memopt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Transforms/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_TRANSFORMS_PASSES_H
