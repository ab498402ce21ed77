//===- MSSSIM.h - The MS-SSIM loss as a tg subgraph -------------*- C++ -*-===//
//
// tg-autodiff's loss=ms-ssim and loss=ms-ssim+l1 are not loss ops: they are
// subgraphs of ordinary tg ops (depthwise Gaussian convolutions, 2x2
// average pooling, elementwise arithmetic, reductions) that tg-autodiff
// appends to the forward ops and differentiates by their own gradient
// rules, so that every memory pass sees them as it sees the model.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_TRANSFORMS_MSSSIM_H
#define MEMOPT_LIB_DIALECT_TG_TRANSFORMS_MSSSIM_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

namespace memopt::tg::detail {

/// The smallest image side that MS-SSIM takes is one more than this: the
/// 11-wide window must fit after the 4 halvings, (11 - 1) * 2^4 (the
/// assertion of pytorch_msssim.ms_ssim).
constexpr int64_t kMSSSIMMinSideExclusive = 160;

/// The weight of the MS-SSIM term in loss=ms-ssim+l1 (Zhao et al. 2017).
constexpr double kMSSSIMMixAlpha = 0.84;

/// Fails unless `output` is an N x C x H x W float tensor with both H and W
/// above kMSSSIMMinSideExclusive; `why` is then the reason, to be emitted
/// by the caller.
mlir::LogicalResult checkMSSSIMShape(mlir::RankedTensorType output,
                                     std::string &why);

/// Emits, at `builder`'s insertion point, 1 - MS-SSIM(prediction, target)
/// as pytorch_msssim.ms_ssim(X, Y, data_range=1, size_average=True)
/// computes it, or with `withL1` 0.84 * (1 - MS-SSIM) + 0.16 * mean |X - Y|.
/// Both operands have checkMSSSIMShape's shape; the result is rank 0.
mlir::Value emitMSSSIMLoss(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value prediction, mlir::Value target,
                           bool withL1);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_TRANSFORMS_MSSSIM_H
