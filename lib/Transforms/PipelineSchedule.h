//===- PipelineSchedule.h - Microbatch orders of pipeline stages -*- C++ -*-===//
//
// Internal to lib/Transforms: tg-microbatch's static schedules
// (docs/passes/microbatch.md), independent of the IR.
//   - the units a stage runs: the forward or backward of one microbatch,
//     in the order of GPipe (all forwards, then all backwards) or 1F1B
//     (PipeDream-flush: S-1-i warm-up forwards on stage i of S, then one
//     forward and one backward alternating, then the remaining backwards);
//   - the order of each stage's blocking transfers: every stage must
//     perform its transfers as a subsequence of one global order, or a
//     blocking exchange can deadlock (stage 0 sending microbatch 1's
//     activation while stage 1 sends microbatch 0's gradient).
//     orderTransfers finds such an order by running the stages' programs
//     with rendezvous transfers, and where every stage waits on a send,
//     postpones the send of the highest such stage (it happens later in
//     that stage's program).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_PIPELINESCHEDULE_H
#define MEMOPT_LIB_TRANSFORMS_PIPELINESCHEDULE_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace memopt {

enum class PipelineSchedule { GPipe, OneFOneB };

/// "gpipe" or "1f1b".
llvm::StringRef stringifyPipelineSchedule(PipelineSchedule schedule);
std::optional<PipelineSchedule> parsePipelineSchedule(llvm::StringRef name);

/// The forward or the backward of one microbatch.
struct PipelineUnit {
  bool backward;
  unsigned microbatch;
};

/// The units of stage `stage` of `stages` for `microbatches` microbatches;
/// forwards only (in microbatch order) when `hasBackward` is false.
llvm::SmallVector<PipelineUnit> scheduleUnits(PipelineSchedule schedule,
                                              unsigned stage, unsigned stages,
                                              unsigned microbatches,
                                              bool hasBackward);

/// The most microbatches whose forward has run and whose backward has not
/// (whose activations the stage holds at once).
unsigned inFlight(llvm::ArrayRef<PipelineUnit> units);

/// "F0 F1 B0 ...".
std::string formatUnits(llvm::ArrayRef<PipelineUnit> units);

/// One event of a stage's program: local work, or a blocking transfer
/// identified by `key` (the send and its receive share it).
struct ProgramEvent {
  std::optional<int64_t> key;
  bool send = false;
};

/// For each stage's program, the order (indices into it) in which it
/// performs its events so that every stage's transfers are a subsequence
/// of one global order: the given order, except for sends moved later.
/// Fails when the programs wait on each other even so (a receive before
/// the send it needs), or a transfer has no partner.
mlir::FailureOr<llvm::SmallVector<llvm::SmallVector<unsigned>>>
orderTransfers(llvm::ArrayRef<llvm::SmallVector<ProgramEvent>> programs);

} // namespace memopt

#endif // MEMOPT_LIB_TRANSFORMS_PIPELINESCHEDULE_H
