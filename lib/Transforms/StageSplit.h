//===- StageSplit.h - What each pipeline stage holds ------------*- C++ -*-===//
//
// Internal to lib/Transforms: tg-partition's split of a step into stage
// functions, independent of how the cuts are chosen (Partition.cpp;
// docs/passes/partition.md). Every op of a step is anchored to a position
// in the forward order, independently of where the cuts fall:
//   - a forward op at its own position;
//   - a parameter, running statistic or optimizer state (an argument the
//     step updates) at its first forward reader, and an optimizer update
//     at its parameter's anchor, so that one stage reads and returns it;
//   - a backward op at the latest forward position that holds a forward
//     value it reads (its producer or a forward reader, which has it too),
//     since the backward of a layer reads that layer's values; without
//     such a read (a gradient sum, a concat's gradient slices) at the
//     earliest anchor of its operands, where the gradient flows next;
//   - anything else at the earliest anchor of its users.
// A stage is a range of forward positions and holds the ops anchored in
// it, so the content of a stage, and its simulated peak, depends only on
// its own range. Constants are cloned into every stage that reads them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_STAGESPLIT_H
#define MEMOPT_LIB_TRANSFORMS_STAGESPLIT_H

#include "memopt/Analysis/StepPhases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace memopt {

/// Arguments the step updates (parameters, running statistics, optimizer
/// state): one stage owns each.
bool isOwned(mlir::func::FuncOp step, unsigned arg);

/// The anchors of one step (see the file comment).
class StepAnchors {
public:
  explicit StepAnchors(mlir::func::FuncOp step);

  mlir::func::FuncOp step;
  StepPhases phases;
  llvm::SmallVector<mlir::Operation *> forward;
  llvm::DenseMap<mlir::Operation *, unsigned> opAnchor;
  /// Owned arguments only.
  llvm::DenseMap<unsigned, unsigned> argAnchor;

  /// The anchor of the stage that computes or owns `value`; nothing for a
  /// constant or an argument every stage may read (data, step, seed).
  std::optional<unsigned> ownerAnchor(mlir::Value value) const {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      auto it = argAnchor.find(arg.getArgNumber());
      return it == argAnchor.end() ? std::nullopt
                                   : std::optional(it->second);
    }
    auto it = opAnchor.find(value.getDefiningOp());
    return it == opAnchor.end() ? std::nullopt : std::optional(it->second);
  }
};

/// Builds the function of a stage for the stage map `stageOf` (anchor ->
/// stage), transfers numbered in program order.
class StageBuilder {
public:
  StageBuilder(const StepAnchors &anchors,
               llvm::function_ref<unsigned(unsigned)> stageOf)
      : anchors(anchors), stageOf(stageOf) {}

  /// The function of stage `stage`, named `name`, not inserted anywhere
  /// (the caller inserts or erases it); `sendBytes` gets what it sends.
  mlir::func::FuncOp build(unsigned stage, llvm::StringRef name,
                           uint64_t &sendBytes);

private:
  std::optional<unsigned> ownerStage(mlir::Value value) const {
    std::optional<unsigned> anchor = anchors.ownerAnchor(value);
    return anchor ? std::optional(stageOf(*anchor)) : std::nullopt;
  }

  const StepAnchors &anchors;
  llvm::function_ref<unsigned(unsigned)> stageOf;
};

} // namespace memopt

#endif // MEMOPT_LIB_TRANSFORMS_STAGESPLIT_H
