//===- MicrobatchRewrite.cpp - A step run once per microbatch -------------===//
//
// tg-microbatch's rewrite (MicrobatchRewrite.h, docs/passes/microbatch.md),
// shared with tg-partition, which estimates each candidate stage with it.
//
//===----------------------------------------------------------------------===//

#include "MicrobatchRewrite.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <map>
#include <vector>

using namespace mlir;
using namespace memopt;

bool memopt::isOptimizerUpdate(Operation *op) {
  return isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op);
}

bool memopt::isBatchArgument(func::FuncOp func, unsigned arg) {
  return func.getArgAttr(arg, "tg.input") || func.getArgAttr(arg, "tg.target");
}

namespace memopt {
namespace detail {

/// How the microbatches' copies of a value read after them combine.
enum class Combine { Mean, Concat, Last };

/// One function of a step, sorted for microbatching.
struct Split {
  func::FuncOp func;
  /// In program order: run once first, per microbatch (forward and
  /// backward parts, and all of them), once last.
  SmallVector<Operation *> once, forward, backward, perMicrobatch, tail;
  DenseSet<Operation *> inForward, inPerMicrobatch, inTail;
  /// Per-microbatch values read once last, with their combination.
  llvm::MapVector<Value, Combine> boundary;
};

/// One event of a function's program (see PipelineSchedule.h).
struct Event {
  enum Kind { Once, Op, UnitEnd } kind;
  Operation *op = nullptr;
  PipelineUnit unit{false, 0};
};

} // namespace detail
} // namespace memopt

using namespace memopt::detail;

namespace {

std::optional<int64_t> transferTag(Operation *op) {
  if (auto send = dyn_cast<tg::SendOp>(op))
    return send.getTag();
  if (auto recv = dyn_cast<tg::RecvOp>(op))
    return recv.getTag();
  return std::nullopt;
}

bool isForwardTransfer(Operation *op) {
  if (auto send = dyn_cast<tg::SendOp>(op))
    return send.getForward();
  if (auto recv = dyn_cast<tg::RecvOp>(op))
    return recv.getForward();
  return false;
}

/// Sorts `funcs` (the stages of one step, in order) into splits; a stage
/// `alone` takes every receive for batch data (its senders are not built).
LogicalResult analyze(ArrayRef<func::FuncOp> funcs, bool alone,
                      std::vector<Split> &splits) {
  // The ops that read batch data, through the step's transfers too.
  DenseSet<Operation *> dependent;
  DenseSet<int64_t> dependentTags;
  for (bool changed = true; changed;) {
    changed = false;
    for (func::FuncOp func : funcs) {
      for (Operation &op : func.getBody().front().without_terminator()) {
        if (dependent.contains(&op))
          continue;
        bool reads = false;
        if (auto recv = dyn_cast<tg::RecvOp>(op))
          reads = alone || dependentTags.contains(recv.getTag());
        for (Value operand : op.getOperands()) {
          if (auto arg = dyn_cast<BlockArgument>(operand))
            reads |= isBatchArgument(func, arg.getArgNumber());
          else
            reads |= dependent.contains(operand.getDefiningOp());
        }
        if (!reads)
          continue;
        dependent.insert(&op);
        if (auto send = dyn_cast<tg::SendOp>(op))
          dependentTags.insert(send.getTag());
        changed = true;
      }
    }
  }

  for (func::FuncOp func : funcs) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("tg-microbatch: expected a function with one "
                            "block");
    Split &split = splits.emplace_back();
    split.func = func;
    StepPhases phases(func);
    Block &body = func.getBody().front();
    for (Operation &op : body.without_terminator()) {
      bool afterUpdate =
          isOptimizerUpdate(&op) ||
          llvm::any_of(op.getOperands(), [&](Value operand) {
            return split.inTail.contains(operand.getDefiningOp());
          });
      if (afterUpdate) {
        if (transferTag(&op))
          return op.emitOpError("tg-microbatch: a transfer after the "
                                "optimizer updates cannot run once per step");
        split.tail.push_back(&op);
        split.inTail.insert(&op);
      } else if (dependent.contains(&op)) {
        split.perMicrobatch.push_back(&op);
        split.inPerMicrobatch.insert(&op);
        if (phases.phase(&op) == StepPhase::Forward || isForwardTransfer(&op)) {
          split.forward.push_back(&op);
          split.inForward.insert(&op);
        } else {
          split.backward.push_back(&op);
        }
      } else {
        split.once.push_back(&op);
      }
    }
    // The forward of a microbatch runs before its backward.
    for (Operation *op : split.forward)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && split.inPerMicrobatch.contains(def) &&
            !split.inForward.contains(def))
          return op->emitOpError("tg-microbatch: a forward op reads a "
                                 "backward value");
    // Where the copies meet.
    Operation *terminator = body.getTerminator();
    for (Operation *op : split.perMicrobatch) {
      for (OpResult result : op->getResults()) {
        bool readByTail = false;
        SmallVector<unsigned> returned;
        for (OpOperand &use : result.getUses()) {
          if (use.getOwner() == terminator)
            returned.push_back(use.getOperandNumber());
          else if (split.inTail.contains(use.getOwner()))
            readByTail = true;
        }
        if (!readByTail && returned.empty())
          continue;
        if (updatedOperand(result)) {
          split.boundary[result] = Combine::Last;
          continue;
        }
        std::optional<Combine> combine;
        if (readByTail)
          combine = Combine::Mean;
        for (unsigned index : returned) {
          auto type = cast<RankedTensorType>(result.getType());
          std::optional<Combine> asResult;
          if (func.getResultAttr(index, "tg.output"))
            asResult = type.getRank() == 0 ? Combine::Mean : Combine::Concat;
          if (!asResult || (combine && *combine != *asResult))
            return op->emitOpError("tg-microbatch: result #")
                   << index << " of @" << func.getSymName()
                   << " is neither a gradient, a loss, a batch output nor a "
                      "running statistic: its microbatches cannot be combined";
          combine = asResult;
        }
        split.boundary[result] = *combine;
      }
    }
  }
  return success();
}

} // namespace

void MicrobatchRewrite::emit(Split &split, ArrayRef<Event> events,
                             ArrayRef<unsigned> order, int64_t tagStride) {
  func::FuncOp func = split.func;
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();
  OpBuilder builder(terminator);
  unsigned m = microbatches;

  // The whole batch comes in; each microbatch reads its slice, sliced
  // again for the backward so that the forward's slice is not stashed.
  DenseMap<unsigned, int64_t> sliceRows;
  for (BlockArgument arg : body.getArguments()) {
    if (!isBatchArgument(func, arg.getArgNumber()))
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> shape(type.getShape());
    sliceRows[arg.getArgNumber()] = shape[0];
    shape[0] *= m;
    arg.setType(type.clone(shape));
  }
  std::map<std::tuple<unsigned, unsigned, bool>, Value> slices;
  auto sliceOf = [&](BlockArgument arg, const PipelineUnit &unit) {
    Value &slice =
        slices[{arg.getArgNumber(), unit.microbatch, unit.backward}];
    if (slice)
      return slice;
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t rows = sliceRows[arg.getArgNumber()];
    SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
        steps(type.getRank(), 1);
    starts[0] = rows * unit.microbatch;
    ends[0] = starts[0] + rows;
    slice = tg::SliceOp::create(builder, arg.getLoc(), arg, starts, ends,
                                steps);
    return slice;
  };

  SmallVector<IRMapping> copies(m);
  DenseMap<Value, Value> sums;
  DenseMap<Value, SmallVector<Value>> parts;
  for (unsigned index : order) {
    const Event &event = events[index];
    if (event.kind == Event::Once) {
      event.op->moveBefore(terminator);
      continue;
    }
    unsigned k = event.unit.microbatch;
    IRMapping &copy = copies[k];
    if (event.kind == Event::Op) {
      Operation *op = event.op;
      for (Value operand : op->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand);
            arg && sliceRows.count(arg.getArgNumber()))
          copy.map(arg, sliceOf(arg, event.unit));
      Operation *clone = builder.clone(*op, copy);
      ++clonedOps;
      if (auto send = dyn_cast<tg::SendOp>(clone))
        send.setTagAttr(
            builder.getI64IntegerAttr(send.getTag() + k * tagStride));
      else if (auto recv = dyn_cast<tg::RecvOp>(clone))
        recv.setTagAttr(
            builder.getI64IntegerAttr(recv.getTag() + k * tagStride));
      // Running statistics: copy k updates what copy k-1 updated.
      if (k > 0)
        for (OpResult result : op->getResults())
          if (Value updated = updatedOperand(result);
              updated && !split.inPerMicrobatch.contains(
                             updated.getDefiningOp()))
            for (OpOperand &operand : op->getOpOperands())
              if (operand.get() == updated)
                clone->setOperand(operand.getOperandNumber(),
                                  copies[k - 1].lookup(result));
      continue;
    }
    // The end of a unit: its copies of the values read last join the sums.
    for (auto [value, combine] : split.boundary) {
      if (split.inForward.contains(value.getDefiningOp()) ==
          event.unit.backward)
        continue;
      Value mine = copy.lookup(value);
      if (combine == Combine::Concat) {
        parts[value].push_back(mine);
      } else if (combine == Combine::Last || k == 0) {
        sums[value] = mine;
      } else {
        sums[value] =
            tg::AddOp::create(builder, value.getLoc(), sums[value], mine);
        ++accumulations;
      }
    }
  }

  // The values read last, then what runs once last.
  for (auto [value, combine] : split.boundary) {
    Value joined = sums.lookup(value);
    if (combine == Combine::Concat) {
      joined = tg::ConcatOp::create(builder, value.getLoc(), parts[value], 0);
    } else if (combine == Combine::Mean && m > 1) {
      auto type = cast<RankedTensorType>(value.getType());
      Value scale = tg::ConstantOp::createScalar(
          builder, value.getLoc(), type.getElementType(), 1.0 / m);
      joined = tg::MulOp::create(builder, value.getLoc(), joined, scale);
    }
    value.replaceUsesWithIf(joined, [&](OpOperand &use) {
      return use.getOwner() == terminator ||
             split.inTail.contains(use.getOwner());
    });
  }
  for (Operation *op : split.tail)
    op->moveBefore(terminator);
  for (Operation *op : llvm::reverse(split.perMicrobatch))
    op->erase();
  func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                 terminator->getOperandTypes()));
}

LogicalResult MicrobatchRewrite::run(ArrayRef<func::FuncOp> funcs) {
  std::vector<Split> splits;
  if (failed(analyze(funcs, alone.has_value(), splits)))
    return failure();
  // Tags of microbatch k follow those of microbatch k-1.
  int64_t tagStride = 0;
  for (func::FuncOp func : funcs)
    func.walk([&](Operation *op) {
      if (std::optional<int64_t> tag = transferTag(op))
        tagStride = std::max(tagStride, *tag + 1);
    });

  unsigned stages = funcs.size();
  SmallVector<SmallVector<Event>> events(stages);
  SmallVector<SmallVector<ProgramEvent>> programs(stages);
  SmallVector<SmallVector<PipelineUnit>> units(stages);
  for (auto [s, split] : llvm::enumerate(splits)) {
    units[s] = alone ? scheduleUnits(schedule, alone->first, alone->second,
                                     microbatches, training)
                     : scheduleUnits(schedule, s, stages, microbatches,
                                     training);
    for (Operation *op : split.once)
      events[s].push_back({Event::Once, op});
    for (const PipelineUnit &unit : units[s]) {
      for (Operation *op : unit.backward ? split.backward : split.forward)
        events[s].push_back({Event::Op, op, unit});
      events[s].push_back({Event::UnitEnd, nullptr, unit});
    }
    for (const Event &event : events[s]) {
      ProgramEvent &program = programs[s].emplace_back();
      if (event.op)
        if (std::optional<int64_t> tag = transferTag(event.op)) {
          program.key = *tag + event.unit.microbatch * tagStride;
          program.send = isa<tg::SendOp>(event.op);
        }
    }
  }
  // A stage alone keeps its transfers in unit order: its peers are not
  // built.
  FailureOr<SmallVector<SmallVector<unsigned>>> orders =
      alone ? FailureOr<SmallVector<SmallVector<unsigned>>>(
                  SmallVector<SmallVector<unsigned>>{llvm::to_vector(
                      llvm::seq<unsigned>(0, programs.front().size()))})
            : orderTransfers(programs);
  func::FuncOp first = splits.front().func;
  if (failed(orders))
    return first.emitError("tg-microbatch: the stages' transfers of @")
           << first.getSymName() << " have no deadlock-free order under the "
           << stringifyPipelineSchedule(schedule) << " schedule";
  Builder attrs(first.getContext());
  for (auto [s, split] : llvm::enumerate(splits)) {
    SmallVector<unsigned> &order = (*orders)[s];
    for (auto [position, index] : llvm::enumerate(order))
      postponedSends += position != index && events[s][index].op &&
                           isa<tg::SendOp>(events[s][index].op);
    emit(split, events[s], order, tagStride);
    StringAttr scheduleName;
    if (training && (stages > 1 || alone))
      scheduleName = attrs.getStringAttr(stringifyPipelineSchedule(schedule));
    setDecision(split.func,
                MicrobatchAttr::get(attrs.getContext(), microbatches,
                                    inFlight(units[s]),
                                    attrs.getStringAttr(formatUnits(units[s])),
                                    scheduleName, 0, 0));
  }
  return success();
}

