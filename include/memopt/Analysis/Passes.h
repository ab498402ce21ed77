//===- Passes.h - Analyses of the training step -----------------*- C++ -*-===//

#ifndef MEMOPT_ANALYSIS_PASSES_H
#define MEMOPT_ANALYSIS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace memopt {

#define GEN_PASS_DECL
#include "memopt/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Analysis/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_ANALYSIS_PASSES_H
