//===- DeepSupervision.h - One loss per output of a U-Net -------*- C++ -*-===//
//
// Deep supervision (nnU-Net's default): a network with outputs at
// decreasing resolutions trains one loss per output, each against the
// target downsampled to that output's shape. The data keep one target per
// sample, at the full resolution of output #0; tg-autodiff downsamples it
// with ordinary tg ops, so that the decision is visible in the IR.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DEEPSUPERVISION_H
#define MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DEEPSUPERVISION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace memopt::tg::detail {

/// Fails unless `output` can be supervised against the target of `full`
/// (output #0): the same rank, batch and channels, and spatial sizes that
/// divide full's. `why` is then the reason, to be emitted by the caller.
mlir::LogicalResult checkDeepSupervisedShape(mlir::RankedTensorType full,
                                             mlir::RankedTensorType output,
                                             std::string &why);

/// Emits, at `builder`'s insertion point, `target` downsampled to the target
/// shape of `output` by the integer factor of each spatial axis: with
/// `labelMap` (a class map without the channel axis, or a mask) the nearest
/// element as F.interpolate(mode="nearest-exact") picks it (nnU-Net's
/// DownsampleSegForDSTransform): index f * i + f / 2, a strided tg.slice;
/// otherwise the mean of each f-block (F.avg_pool / mode="area"), a
/// tg.reshape and tg.reduce_mean per axis. Returns `target` unchanged when
/// every factor is 1.
mlir::Value emitDownsampledTarget(mlir::OpBuilder &builder, mlir::Location loc,
                                  mlir::Value target,
                                  mlir::RankedTensorType targetType,
                                  bool labelMap);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_TRANSFORMS_DEEPSUPERVISION_H
