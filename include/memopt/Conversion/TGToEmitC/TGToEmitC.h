//===- TGToEmitC.h - tg training step to EmitC ------------------*- C++ -*-===//
//
// `convert-tg-to-emitc` lowers the training step to EmitC calls of the CPU
// runtime; `mlir::emitc::translateToCpp` prints the result as C++. See
// docs/passes/tg-to-emitc.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_TGTOEMITC_TGTOEMITC_H
#define MEMOPT_CONVERSION_TGTOEMITC_TGTOEMITC_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>

namespace memopt {

/// The module attribute (i64) that convert-tg-to-emitc sets to the bytes of
/// all arenas of the program.
constexpr llvm::StringLiteral kArenaBytesAttr = "memopt.arena_bytes";

/// The bytes of the largest tensor that `func` (a training step or pipeline
/// stage, in tg ops or in mbuf) exchanges with other processes: the view of
/// a send or receive, the result of an all-reduce or all-gather (0 when it
/// exchanges nothing). The generated Program records it
/// (Program::exchangeBytes): it sizes the CUDA exchange's staging buffer.
uint64_t largestExchangeBytes(mlir::Operation *func);

#define GEN_PASS_DECL_CONVERTTGTOEMITC
#include "memopt/Conversion/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_CONVERSION_TGTOEMITC_TGTOEMITC_H
