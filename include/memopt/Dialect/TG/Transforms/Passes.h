//===- Passes.h - Passes on the tg dialect ----------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H
#define MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace memopt::tg {

/// The loss that tg-autodiff differentiates: a tg loss op on the forward
/// output and the target, a subgraph of tg ops on them (ceDice: nnU-Net's
/// cross-entropy plus soft Dice; msssim: 1 - MS-SSIM; msssimL1: its mix
/// with L1), or the forward function's own scalar output.
enum class LossKind {
  mse,
  l1,
  bce,
  ce,
  dice,
  ceDice,
  msssim,
  msssimL1,
  graph
};

/// tg-autodiff's `deep-supervision`: one loss per forward output, each
/// against the target downsampled to that output's shape, weighted
/// (docs/passes/autodiff.md#deep-supervision).
struct DeepSupervision {
  /// halving: 1, 1/2, 1/4, ... by output, normalized to sum 1; nnunet: the
  /// same with the last (lowest-resolution) output's weight 0, as nnU-Net
  /// trains; given: `weights`, one per output, as written.
  enum class Scheme { halving, nnunet, given };
  Scheme scheme = Scheme::halving;
  llvm::SmallVector<double> weights;

  /// The weight of each of `numOutputs` outputs; nullopt with `error` set
  /// when the scheme does not fit that many.
  std::optional<llvm::SmallVector<double>>
  weightsFor(unsigned numOutputs, std::string &error) const;
};

/// Parses `nnunet`, `halving` or `W0,W1,...` (non-negative numbers, one of
/// them positive); nullopt with `error` set otherwise.
std::optional<DeepSupervision> parseDeepSupervision(llvm::StringRef spec,
                                                    std::string &error);

/// The module attribute (a string) by which tg-autodiff{eval-step=true}
/// says why it emitted no @eval_step: the model uses random numbers other
/// than as a mask multiplying the activations. convert-tg-to-emitc passes
/// it to the trainer (Program::evalRefusal), which refuses --val-data with
/// it.
constexpr llvm::StringLiteral kEvalRefusalAttrName = "tg.eval_refusal";

/// The torch.optim optimizer whose update tg-autodiff emits.
enum class OptimizerKind { sgd, adam, adamw };

#define GEN_PASS_DECL
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"

} // namespace memopt::tg

#endif // MEMOPT_DIALECT_TG_TRANSFORMS_PASSES_H
