//===- Passes.h - Schedule and static memory plan ---------------*- C++ -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_H
#define MEMOPT_TRANSFORMS_PASSES_H

#include "memopt/Dialect/MBuf/IR/MBufDialect.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace memopt {

/// Mixed precision: none (f32 throughout), or tg-amp's low-precision type.
enum class AmpMode { none, bf16, fp16 };

#define GEN_PASS_DECL
#include "memopt/Transforms/Passes.h.inc"

/// The most pipeline stages (tg-partition), microbatches (tg-microbatch)
/// and data-parallel replicas (tg-data-parallel) the passes accept: above
/// what a training run of memopt's models needs, and low enough that the
/// compile stays within seconds and the report within kilobytes (the
/// microbatches are unrolled in the step; the report lists every rank).
inline constexpr unsigned kMaxStages = 64;
inline constexpr unsigned kMaxMicrobatches = 256;
inline constexpr unsigned kMaxDataParallel = 1024;

#define GEN_PASS_REGISTRATION
#include "memopt/Transforms/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_TRANSFORMS_PASSES_H
