//===- CostModel.h - FLOPs, bytes and time of tg ops ------------*- C++ -*-===//
//
// The one cost model every memory pass reads (docs/cost-model.md). Per tg op
// that runs a kernel: floating-point operations, bytes read and written
// (each op's tg::KernelOpInterface), the library workspace it needs, and
// its predicted time on a device profile by the roofline
// max(FLOPs / peak FLOP/s, bytes / bandwidth) plus the launch overhead.
// Convolutions (forward, backward-data, backward-filter, transposed),
// matmul/gemm, BatchNorm, pooling and resize have exact formulas; the
// other ops count FLOPs per element (docs/cost-model.md has the table).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_COSTMODEL_H
#define MEMOPT_ANALYSIS_COSTMODEL_H

#include "memopt/Analysis/DeviceProfile.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/TG/IR/TGInterfaces.h" // tensorBytes(Type)

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <functional>

namespace memopt {

struct OpCost {
  uint64_t flops = 0;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t workspaceBytes = 0;
  double seconds = 0;

  uint64_t bytes() const { return bytesRead + bytesWritten; }
};

class CostModel {
public:
  /// The library workspace `op` needs (0: none): memopt::workspaceBytes,
  /// what tg-annotate-workspaces recorded.
  using WorkspaceFn = std::function<uint64_t(mlir::Operation *)>;

  CostModel(DeviceProfile profile, WorkspaceFn workspace)
      : device(std::move(profile)), workspace(std::move(workspace)) {}

  /// The cost of one op of the step. Ops without tg::KernelOpInterface
  /// (constants, ops outside the tg dialect) cost nothing: they run no
  /// kernel.
  OpCost cost(mlir::Operation *op) const;

  /// The seconds that running `op` on its lean workspace adds to its
  /// roofline time (DeviceProfile::leanSlowdown): what cost() charges
  /// for an op marked `memopt.lean_workspace`, and what tg-remat weighs
  /// before marking one.
  double leanSeconds(mlir::Operation *op) const;

  const DeviceProfile &profile() const { return device; }

private:
  DeviceProfile device;
  WorkspaceFn workspace;
};

/// The cost of a whole step, by phase (indexed by StepPhase).
struct StepCost {
  /// By StepPhase, recomputation (tg-remat's clones) apart.
  uint64_t flops[3] = {0, 0, 0};
  double seconds[3] = {0, 0, 0};
  uint64_t recomputeFlops = 0;
  double recomputeSeconds = 0;
  /// What the lean workspaces add to the seconds above (in their phase;
  /// CostModel::leanSeconds).
  double leanSeconds = 0;
  uint64_t bytes = 0;

  uint64_t totalFlops() const {
    return flops[0] + flops[1] + flops[2] + recomputeFlops;
  }
  double totalSeconds() const {
    return seconds[0] + seconds[1] + seconds[2] + recomputeSeconds;
  }
};

/// Costs every op of `step` in order and sums by phase (an op marked as
/// recomputation in its own sum); `each` (optional)
/// sees every op that runs a kernel with its cost and phase (a fused
/// elementwise op once, not the ops of its body).
StepCost estimateStepCost(
    mlir::func::FuncOp step, const CostModel &model, const StepPhases &phases,
    llvm::function_ref<void(mlir::Operation *, const OpCost &, StepPhase)>
        each = nullptr);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_COSTMODEL_H
