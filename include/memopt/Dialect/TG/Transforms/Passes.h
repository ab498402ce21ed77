//===- Passes.h - Passes on the tg dialect ----------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H
#define MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace memopt::tg {

/// The loss that tg-autodiff differentiates: a tg loss op on the forward
/// output and the target, a subgraph of tg ops on them (msssim: 1 -
/// MS-SSIM; msssimL1: its mix with L1), or the forward function's own
/// scalar output.
enum class LossKind { mse, l1, bce, ce, dice, msssim, msssimL1, graph };

/// The torch.optim optimizer whose update tg-autodiff emits.
enum class OptimizerKind { sgd, adam, adamw };

/// Mixed precision: none (f32 throughout), or tg-amp's low-precision type.
enum class AmpMode { none, bf16, fp16 };

#define GEN_PASS_DECL
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"

} // namespace memopt::tg

#endif // MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H
