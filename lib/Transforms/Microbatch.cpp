//===- Microbatch.cpp - Microbatches and pipeline schedules ---------------===//
//
// tg-microbatch (docs/passes/microbatch.md): each step (or each stage of a
// partitioned step) takes the whole batch and runs its forward and
// backward once per microbatch, in the order of a static schedule
// (PipelineSchedule.h), then updates the weights once:
//   - ops that read no batch data (constants, weight casts, a parameter sent
//     to another stage) run once, first;
//   - ops that read batch data run once per microbatch: the forward and the
//     backward of microbatch k are clones reading slice k of the input and
//     the target; a stage's transfers of microbatch k get tag
//     tag + k * (the step's number of tags);
//   - the copies meet where the step ends: a value an optimizer update
//     reads (a gradient) is the mean of its copies, summed in microbatch
//     order as each backward ends; the loss is their mean, a batch output
//     their concatenation; BatchNorm's running statistics are chained
//     through the copies (copy k reads copy k-1's), so they are updated
//     once per microbatch;
//   - the optimizer updates and what follows them run once, last.
// The memory plan then sees every stashed activation of the microbatches
// in flight and the running sums, so it plans them as they are.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "PipelineSchedule.h"
#include "ScheduleOrder.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <vector>

namespace memopt {
#define GEN_PASS_DEF_MICROBATCH
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kStageAttr = "memopt.stage";
constexpr StringLiteral kMicrobatchAttr = "memopt.microbatch";

bool isOptimizerUpdate(Operation *op) {
  return isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op);
}

/// The step's input or target: the data that splits into microbatches.
bool isBatchArgument(func::FuncOp func, unsigned arg) {
  return func.getArgAttr(arg, "tg.input") || func.getArgAttr(arg, "tg.target");
}

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

class MicrobatchPass : public memopt::impl::MicrobatchBase<MicrobatchPass> {
public:
  using MicrobatchBase::MicrobatchBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (microbatches == 0)
      return emitError(UnknownLoc::get(context))
             << "tg-microbatch: microbatches must be at least 1";
    std::optional<PipelineSchedule> parsed = parsePipelineSchedule(schedule);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << "tg-microbatch: unknown schedule '" << schedule
             << "' (expected gpipe or 1f1b)";
    chosen = *parsed;
    return success();
  }

  void runOnOperation() override;

private:
  /// Sorts `funcs` (the stages of one step, in order) into splits.
  LogicalResult analyze(ArrayRef<func::FuncOp> funcs,
                        std::vector<Split> &splits);
  /// Rewrites `funcs` for `schedule`; their predicted peaks when `peaks`.
  LogicalResult rewrite(ArrayRef<func::FuncOp> funcs, bool training,
                        PipelineSchedule schedule, bool inPlace, bool cuda,
                        SmallVector<uint64_t> *peaks);
  /// Emits `split`'s function in the order `order` of `events`.
  void emit(Split &split, ArrayRef<Event> events, ArrayRef<unsigned> order,
            int64_t tagStride);

  PipelineSchedule chosen = PipelineSchedule::OneFOneB;
};

LogicalResult MicrobatchPass::analyze(ArrayRef<func::FuncOp> funcs,
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
          reads = dependentTags.contains(recv.getTag());
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

void MicrobatchPass::emit(Split &split, ArrayRef<Event> events,
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
      ++numClonedOps;
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
        ++numAccumulations;
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

LogicalResult MicrobatchPass::rewrite(ArrayRef<func::FuncOp> funcs,
                                      bool training, PipelineSchedule schedule,
                                      bool inPlace, bool cuda,
                                      SmallVector<uint64_t> *peaks) {
  std::vector<Split> splits;
  if (failed(analyze(funcs, splits)))
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
    units[s] = scheduleUnits(schedule, s, stages, microbatches, training);
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
  FailureOr<SmallVector<SmallVector<unsigned>>> orders =
      orderTransfers(programs);
  func::FuncOp first = splits.front().func;
  if (failed(orders))
    return first.emitError("tg-microbatch: the stages' transfers of @")
           << first.getSymName() << " have no deadlock-free order under the "
           << stringifyPipelineSchedule(schedule) << " schedule";
  Builder attrs(first.getContext());
  for (auto [s, split] : llvm::enumerate(splits)) {
    SmallVector<unsigned> &order = (*orders)[s];
    for (auto [position, index] : llvm::enumerate(order))
      numPostponedSends += position != index && events[s][index].op &&
                           isa<tg::SendOp>(events[s][index].op);
    emit(split, events[s], order, tagStride);
    SmallVector<NamedAttribute> fields{
        attrs.getNamedAttr("microbatches",
                           attrs.getI64IntegerAttr(microbatches)),
        attrs.getNamedAttr("in_flight",
                           attrs.getI64IntegerAttr(inFlight(units[s]))),
        attrs.getNamedAttr("order", attrs.getStringAttr(formatUnits(units[s])))};
    if (training && stages > 1)
      fields.push_back(attrs.getNamedAttr(
          "schedule", attrs.getStringAttr(stringifyPipelineSchedule(schedule))));
    split.func->setAttr(kMicrobatchAttr, attrs.getDictionaryAttr(fields));
    if (peaks) {
      MemorySimulator simulator(split.func, inPlace);
      ScheduleChoice order = chooseSchedule(simulator);
      peaks->push_back(persistentDeviceBytes(split.func, cuda) +
                       order.peaks[order.best].second);
    }
  }
  return success();
}

void MicrobatchPass::runOnOperation() {
  if (microbatches <= 1)
    return;
  ModuleOp module = getOperation();
  // The functions of each step: its stages in order, or the step alone.
  llvm::MapVector<StringRef, SmallVector<std::pair<int64_t, func::FuncOp>>>
      steps;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // A middle stage reads no batch data, only what the others send.
    auto stage = func->getAttrOfType<DictionaryAttr>(kStageAttr);
    if (!stage &&
        !llvm::any_of(llvm::seq(0u, func.getNumArguments()),
                      [&](unsigned i) { return isBatchArgument(func, i); }))
      continue;
    auto of = stage ? stage.getAs<StringAttr>("of") : StringAttr();
    auto index = stage ? stage.getAs<IntegerAttr>("index") : IntegerAttr();
    if (of && index)
      steps[of.getValue()].push_back({index.getInt(), func});
    else
      steps[func.getSymName()].push_back({0, func});
  }
  Builder attrs(module.getContext());
  for (auto &[name, members] : steps) {
    llvm::sort(members, llvm::less_first());
    SmallVector<func::FuncOp> funcs =
        llvm::to_vector(llvm::make_second_range(members));
    FailureOr<TargetAttr> target = lookupTarget(funcs.front(), "tg-microbatch");
    if (failed(target))
      return signalPassFailure();
    bool inPlace = target->getInPlace();
    bool cuda = target->getBackend() == Backend::cuda;
    bool training = llvm::any_of(funcs, [](func::FuncOp func) {
      return llvm::any_of(func.getBody().front(), [](Operation &op) {
        return isOptimizerUpdate(&op);
      });
    });
    if (!training || funcs.size() == 1) {
      if (failed(rewrite(funcs, training, chosen, inPlace, cuda, nullptr)))
        return signalPassFailure();
      continue;
    }
    // Pipeline stages: each stage's simulated peak under both schedules,
    // the other one's on copies.
    PipelineSchedule other = chosen == PipelineSchedule::GPipe
                                 ? PipelineSchedule::OneFOneB
                                 : PipelineSchedule::GPipe;
    SmallVector<func::FuncOp> trial = llvm::map_to_vector(
        funcs, [](func::FuncOp func) { return func.clone(); });
    SmallVector<uint64_t> otherPeaks, chosenPeaks;
    LogicalResult tried =
        rewrite(trial, training, other, inPlace, cuda, &otherPeaks);
    for (func::FuncOp func : trial)
      func.erase();
    if (failed(tried) ||
        failed(rewrite(funcs, training, chosen, inPlace, cuda, &chosenPeaks)))
      return signalPassFailure();
    for (auto [s, func] : llvm::enumerate(funcs)) {
      uint64_t mine = chosenPeaks[s], theirs = otherPeaks[s];
      bool gpipe = chosen == PipelineSchedule::GPipe;
      NamedAttrList fields(func->getAttrOfType<DictionaryAttr>(kMicrobatchAttr));
      fields.set("peak_bytes_gpipe",
                 attrs.getI64IntegerAttr(gpipe ? mine : theirs));
      fields.set("peak_bytes_1f1b",
                 attrs.getI64IntegerAttr(gpipe ? theirs : mine));
      func->setAttr(kMicrobatchAttr, fields.getDictionary(module.getContext()));
    }
  }
}

} // namespace
