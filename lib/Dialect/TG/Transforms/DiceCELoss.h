//===- DiceCELoss.h - nnU-Net's Dice + cross-entropy loss -------*- C++ -*-===//
//
// tg-autodiff's loss=ce+dice is nnU-Net's DC_and_CE_loss with the
// MemoryEfficientSoftDiceLoss that its trainer builds (batch Dice, no
// background, smooth 1e-5, both terms of weight 1): tg.cross_entropy_loss
// plus a subgraph of ordinary tg ops for the Dice term, appended to the
// forward ops and differentiated by their own rules.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DICECELOSS_H
#define MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DICECELOSS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

namespace memopt::tg::detail {

/// nnU-Net's smoothing term of the Dice (nnUNetTrainer._build_loss).
constexpr double kDiceCESmooth = 1e-5;

/// Emits, at `builder`'s insertion point, nnU-Net's DC_and_CE_loss of
/// `logits` (N x C x spatial, C >= 2) against `target`, the class map
/// (N x spatial, class indices as floats):
///   F.cross_entropy(logits, target) - mean over c = 1..C-1 of
///   (2 I_c + smooth) / (P_c + G_c + smooth)
/// with p = softmax(logits) over axis 1, y the one-hot target,
/// I_c = sum p_c y_c, P_c = sum p_c, G_c = sum y_c over the batch and all
/// positions. The result is rank 0.
mlir::Value emitDiceCELoss(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value logits, mlir::Value target);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DICECELOSS_H
