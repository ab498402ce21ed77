//===- MicrobatchRewrite.h - A step run once per microbatch -----*- C++ -*-===//
//
// Internal to lib/Transforms: tg-microbatch's rewrite of the functions of
// one step (docs/passes/microbatch.md; the file comment of Microbatch.cpp
// says what it does), also used by tg-partition to estimate a candidate
// stage under its schedule.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_MICROBATCHREWRITE_H
#define MEMOPT_LIB_TRANSFORMS_MICROBATCHREWRITE_H

#include "PipelineSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace memopt {

bool isOptimizerUpdate(mlir::Operation *op);

/// The step's input or target: the data that splits into microbatches.
bool isBatchArgument(mlir::func::FuncOp func, unsigned arg);

namespace detail {
struct Split;
struct Event;
} // namespace detail

struct MicrobatchRewrite {
  unsigned microbatches;
  PipelineSchedule schedule;
  /// A training step (with backward units) rather than an evaluation step.
  bool training;
  /// tg-partition's estimate: the one function given is stage `first` of
  /// `second` alone; its transfers keep the unit order (its peers are not
  /// built, so there is no global order to find).
  std::optional<std::pair<unsigned, unsigned>> alone = std::nullopt;

  uint64_t clonedOps = 0, accumulations = 0, postponedSends = 0;

  /// Rewrites `funcs`, the functions of one step (its stages in order, or
  /// the step alone), and records `memopt.microbatch` on each.
  mlir::LogicalResult run(llvm::ArrayRef<mlir::func::FuncOp> funcs);

private:
  void emit(detail::Split &split, llvm::ArrayRef<detail::Event> events,
            llvm::ArrayRef<unsigned> order, int64_t tagStride);
};

} // namespace memopt

#endif // MEMOPT_LIB_TRANSFORMS_MICROBATCHREWRITE_H
