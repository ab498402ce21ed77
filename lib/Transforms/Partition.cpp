//===- Partition.cpp - Contiguous pipeline stages of a step ---------------===//
//
// tg-partition (docs/passes/partition.md). Every op of a step is anchored
// to a position in the forward order, independently of where the cuts
// fall:
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

#include "memopt/Transforms/Passes.h"

#include "ScheduleOrder.h"

#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/MemoryTimeline.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace memopt {
#define GEN_PASS_DEF_PARTITION
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kStageAttr = "memopt.stage";

/// A constant: cloned where it is read, never sent.
bool isFree(Operation *op) {
  return op->getNumOperands() == 0 && isMemoryEffectFree(op);
}

/// Arguments the step updates: one stage owns each.
bool isOwned(func::FuncOp step, unsigned arg) {
  return step.getArgAttr(arg, "tg.param") ||
         step.getArgAttr(arg, "tg.state") ||
         step.getArgAttr(arg, "tg.opt_state");
}

/// The anchor of a backward op (see StepAnchors), if it reads a forward
/// value: the latest position that holds all of them, at most `ceiling`,
/// else the latest that holds all of them, else the latest that holds one.
template <typename Holders>
std::optional<unsigned> backwardAnchor(Operation &op, Holders &holders,
                                       unsigned ceiling) {
  std::optional<llvm::SmallSetVector<unsigned, 4>> common;
  std::optional<unsigned> latest;
  for (Value operand : op.getOperands()) {
    llvm::SmallSetVector<unsigned, 4> held = holders(operand);
    if (held.empty())
      continue;
    latest = std::max(latest.value_or(0), *llvm::max_element(held));
    if (!common)
      common = held;
    else
      common->remove_if([&](unsigned p) { return !held.contains(p); });
  }
  if (!common)
    return std::nullopt;
  std::optional<unsigned> best, bestUnder;
  for (unsigned p : *common) {
    best = std::max(best.value_or(p), p);
    if (p <= ceiling)
      bestUnder = std::max(bestUnder.value_or(p), p);
  }
  return bestUnder ? bestUnder : best ? best : latest;
}

/// The anchors of one step (see the file comment).
class StepAnchors {
public:
  explicit StepAnchors(func::FuncOp step);

  func::FuncOp step;
  StepPhases phases;
  SmallVector<Operation *> forward;
  DenseMap<Operation *, unsigned> opAnchor;
  /// Owned arguments only.
  DenseMap<unsigned, unsigned> argAnchor;

  /// The anchor of the stage that computes or owns `value`; nothing for a
  /// constant or an argument every stage may read (data, step, seed).
  std::optional<unsigned> ownerAnchor(Value value) const {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto it = argAnchor.find(arg.getArgNumber());
      return it == argAnchor.end() ? std::nullopt
                                   : std::optional(it->second);
    }
    auto it = opAnchor.find(value.getDefiningOp());
    return it == opAnchor.end() ? std::nullopt : std::optional(it->second);
  }
};

StepAnchors::StepAnchors(func::FuncOp step) : step(step), phases(step) {
  Block &body = step.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : body.without_terminator())
    if (!isFree(&op) && phases.phase(&op) == StepPhase::Forward) {
      position[&op] = forward.size();
      opAnchor[&op] = forward.size();
      forward.push_back(&op);
    }
  // The forward positions that hold `value`: its producer and its forward
  // readers (an argument the step does not update holds nothing).
  auto holders = [&](Value value) {
    llvm::SmallSetVector<unsigned, 4> held;
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && !isOwned(step, arg.getArgNumber()))
      return held;
    if (Operation *def = value.getDefiningOp())
      if (auto it = position.find(def); it != position.end())
        held.insert(it->second);
    for (Operation *user : value.getUsers())
      if (auto it = position.find(user); it != position.end())
        held.insert(it->second);
    return held;
  };
  // The least anchor among `users` in `anchorOf`, if any has one.
  auto firstAnchor = [](Value value, const DenseMap<Operation *, unsigned>
                                         &anchorOf) -> std::optional<unsigned> {
    std::optional<unsigned> first;
    for (Operation *user : value.getUsers())
      if (auto it = anchorOf.find(user); it != anchorOf.end())
        first = std::min(first.value_or(it->second), it->second);
    return first;
  };
  for (BlockArgument arg : body.getArguments())
    if (isOwned(step, arg.getArgNumber()))
      if (std::optional<unsigned> first = firstAnchor(arg, position))
        argAnchor[arg.getArgNumber()] = *first;

  // The gradient of a forward op reads only that op's operands and
  // results, so its anchor holds every forward value it reads; autodiff
  // emits the gradients in reverse forward order, so the anchors of
  // backward ops do not increase (the ceiling) unless nothing else fits.
  unsigned ceiling = forward.empty() ? 0 : forward.size() - 1;
  SmallVector<Operation *> pending;
  for (Operation &op : body.without_terminator()) {
    if (isFree(&op) || position.count(&op))
      continue;
    std::optional<unsigned> anchor;
    auto param = isa<tg::SGDUpdateOp, tg::AdamUpdateOp>(op)
                     ? dyn_cast<BlockArgument>(op.getOperand(0))
                     : BlockArgument();
    if (param && argAnchor.count(param.getArgNumber()))
      anchor = argAnchor.lookup(param.getArgNumber());
    else if ((anchor = backwardAnchor(op, holders, ceiling)))
      ceiling = *anchor;
    if (!anchor)
      for (Value operand : op.getOperands())
        if (std::optional<unsigned> owner = ownerAnchor(operand))
          anchor = std::min(anchor.value_or(*owner), *owner);
    if (anchor)
      opAnchor[&op] = *anchor;
    else
      pending.push_back(&op);
  }
  for (Operation *op : llvm::reverse(pending)) {
    std::optional<unsigned> anchor;
    for (Value result : op->getResults())
      if (std::optional<unsigned> first = firstAnchor(result, opAnchor))
        anchor = std::min(anchor.value_or(*first), *first);
    opAnchor[op] = anchor.value_or(forward.empty() ? 0 : forward.size() - 1);
  }
  // An optimizer state read by nothing but its update.
  for (BlockArgument arg : body.getArguments())
    if (isOwned(step, arg.getArgNumber()) &&
        !argAnchor.count(arg.getArgNumber()))
      if (std::optional<unsigned> first = firstAnchor(arg, opAnchor))
        argAnchor[arg.getArgNumber()] = *first;
}

/// Builds the functions of the stages in `build` for the stage map
/// `stageOf` (anchor -> stage), transfers numbered in program order.
class StageBuilder {
public:
  StageBuilder(const StepAnchors &anchors,
               function_ref<unsigned(unsigned)> stageOf)
      : anchors(anchors), stageOf(stageOf) {}

  /// The function of stage `stage`, named `name`, not inserted anywhere
  /// (the caller inserts or erases it); `sendBytes` gets what it sends.
  func::FuncOp build(unsigned stage, StringRef name, uint64_t &sendBytes);

private:
  std::optional<unsigned> ownerStage(Value value) const {
    std::optional<unsigned> anchor = anchors.ownerAnchor(value);
    return anchor ? std::optional(stageOf(*anchor)) : std::nullopt;
  }

  const StepAnchors &anchors;
  function_ref<unsigned(unsigned)> stageOf;
};

func::FuncOp StageBuilder::build(unsigned stage, StringRef name,
                                 uint64_t &sendBytes) {
  func::FuncOp step = anchors.step;
  Block &body = step.getBody().front();
  auto stageOfOp = [&](Operation *op) {
    return stageOf(anchors.opAnchor.lookup(op));
  };
  // The arguments it reads itself: its own, and those every stage may read.
  SmallVector<unsigned> args;
  for (BlockArgument arg : body.getArguments()) {
    std::optional<unsigned> owner = ownerStage(arg);
    bool read = llvm::any_of(arg.getUsers(), [&](Operation *user) {
      return !isa<func::ReturnOp>(user) && stageOfOp(user) == stage;
    });
    if (owner ? *owner == stage : read)
      args.push_back(arg.getArgNumber());
  }
  Operation *terminator = body.getTerminator();
  SmallVector<unsigned> results;
  for (OpOperand &operand : terminator->getOpOperands())
    if (ownerStage(operand.get()).value_or(0) == stage)
      results.push_back(operand.getOperandNumber());

  OpBuilder builder(step.getContext());
  SmallVector<Type> argTypes, resultTypes;
  for (unsigned i : args)
    argTypes.push_back(body.getArgument(i).getType());
  for (unsigned i : results)
    resultTypes.push_back(terminator->getOperand(i).getType());
  auto function = func::FuncOp::create(
      step.getLoc(), name, builder.getFunctionType(argTypes, resultTypes));
  for (auto [k, i] : llvm::enumerate(args))
    function.setArgAttrs(k, step.getArgAttrDict(i));
  for (auto [k, i] : llvm::enumerate(results))
    function.setResultAttrs(k, step.getResultAttrDict(i));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  IRMapping mapping;
  for (auto [k, i] : llvm::enumerate(args))
    mapping.map(body.getArgument(i), entry->getArgument(k));

  // Transfers happen at their first reader in program order, numbered in
  // that order: every stage sees them in the same order.
  int64_t tag = 0;
  std::set<std::pair<void *, unsigned>> sent;
  for (Operation &op : body.without_terminator()) {
    if (isFree(&op))
      continue;
    unsigned reader = stageOfOp(&op);
    bool forwardReader = anchors.phases.phase(&op) == StepPhase::Forward;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      std::optional<unsigned> owner = ownerStage(operand);
      if (!owner || *owner == reader ||
          !sent.insert({operand.getAsOpaquePointer(), reader}).second)
        continue;
      bool forward = def ? anchors.phases.phase(def) == StepPhase::Forward
                         : forwardReader;
      if (*owner == stage) {
        tg::SendOp::create(builder, op.getLoc(), mapping.lookup(operand),
                           reader, tag, forward);
        sendBytes += tensorBytes(operand);
      } else if (reader == stage) {
        mapping.map(operand,
                    tg::RecvOp::create(builder, op.getLoc(),
                                       operand.getType(), *owner, tag,
                                       forward)
                        .getOutput());
      }
      ++tag;
    }
    if (reader != stage)
      continue;
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isFree(def) && !mapping.contains(operand))
        builder.clone(*def, mapping);
    builder.clone(op, mapping);
  }
  SmallVector<Value> returned;
  for (unsigned i : results) {
    Value value = terminator->getOperand(i);
    if (Operation *def = value.getDefiningOp();
        def && isFree(def) && !mapping.contains(value))
      builder.clone(*def, mapping);
    returned.push_back(mapping.lookup(value));
  }
  func::ReturnOp::create(builder, terminator->getLoc(), returned);
  return function;
}

/// The predicted peak and time of one stage.
struct StageCost {
  uint64_t persistentBytes = 0;
  uint64_t arenaPeakBytes = 0;
  double seconds = 0;
  uint64_t sendBytes = 0;
  uint64_t peak() const { return persistentBytes + arenaPeakBytes; }
};

StageCost costOf(func::FuncOp stage, bool inPlace, bool cuda,
                 const CostModel &model, uint64_t sendBytes) {
  StageCost cost;
  cost.persistentBytes = persistentDeviceBytes(stage, cuda);
  // The order tg-schedule will give the stage, as tg-remat plans it.
  MemorySimulator simulator(stage, inPlace);
  ScheduleChoice schedule = chooseSchedule(simulator);
  cost.arenaPeakBytes = schedule.peaks[schedule.best].second;
  for (Operation &op : stage.getBody().front().without_terminator())
    cost.seconds += model.cost(&op).seconds;
  cost.sendBytes = sendBytes;
  return cost;
}

/// Whether `step` returns updated parameters (a training step).
bool updatesParameters(func::FuncOp step) {
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getResultAttr(i, "tg.param"))
      return true;
  return false;
}

/// The cuts that put each forward op reading an owned argument on the
/// stage of `owners` (a training step's, by role and name): cut k at the
/// first forward op that reads an argument owned by stage k or later;
/// nothing when that gives no strictly increasing cuts.
std::optional<SmallVector<unsigned>>
cutsFromOwners(const StepAnchors &anchors, unsigned stages,
               const llvm::StringMap<unsigned> &owners) {
  func::FuncOp step = anchors.step;
  auto ownerOf = [&](Value value) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg)
      return std::nullopt;
    std::optional<NamedAttribute> role =
        roleOf(step.getArgAttrDict(arg.getArgNumber()));
    auto name = role ? dyn_cast<StringAttr>(role->getValue()) : StringAttr();
    if (!name)
      return std::nullopt;
    auto it = owners.find(
        (role->getName().strref() + ":" + name.strref()).str());
    return it == owners.end() ? std::nullopt : std::optional(it->second);
  };
  SmallVector<unsigned> cuts;
  for (unsigned k = 1; k < stages; ++k) {
    std::optional<unsigned> cut;
    for (auto [position, op] : llvm::enumerate(anchors.forward)) {
      if (llvm::any_of(op->getOperands(), [&](Value operand) {
            return ownerOf(operand).value_or(0) >= k;
          })) {
        cut = position;
        break;
      }
    }
    if (!cut || *cut == 0 || (!cuts.empty() && *cut <= cuts.back()))
      return std::nullopt;
    cuts.push_back(*cut);
  }
  return cuts;
}

class PartitionPass : public memopt::impl::PartitionBase<PartitionPass> {
public:
  using PartitionBase::PartitionBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (stages == 0)
      return emitError(UnknownLoc::get(context))
             << "tg-partition: stages must be at least 1";
    llvm::Expected<DeviceProfile> profile = parseDeviceProfile(device);
    if (!profile)
      return emitError(UnknownLoc::get(context))
             << "tg-partition: device: " << llvm::toString(profile.takeError());
    deviceProfile = std::move(*profile);
    return success();
  }

  void runOnOperation() override {
    if (stages == 1)
      return;
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> steps;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal() && !function->hasAttr(kStageAttr))
        steps.push_back(function);
    // Training steps first: a step that updates nothing (the evaluation
    // step) then takes their cuts, so that each parameter stays on the
    // stage that owns it.
    std::stable_partition(steps.begin(), steps.end(), updatesParameters);
    llvm::StringMap<unsigned> owners;
    for (func::FuncOp step : steps)
      if (failed(partition(step, owners)))
        return signalPassFailure();
  }

private:
  /// Partitions `step`; a training step records the stage of each argument
  /// it owns in `owners` (by role and name), a step that updates nothing
  /// takes its cuts from them where it can.
  LogicalResult partition(func::FuncOp step,
                          llvm::StringMap<unsigned> &owners);

  DeviceProfile deviceProfile;
};

LogicalResult PartitionPass::partition(func::FuncOp step,
                                       llvm::StringMap<unsigned> &owners) {
  FailureOr<TargetAttr> target = lookupTarget(step, "tg-partition");
  if (failed(target))
    return failure();
  if (!step.getBody().hasOneBlock())
    return step.emitError("tg-partition: expected a function with one block");
  StepAnchors anchors(step);
  unsigned n = anchors.forward.size();
  unsigned stages = this->stages;
  if (n < stages)
    return emitError(step.getLoc(), "tg-partition: ")
           << stages << " stages need at least " << stages
           << " forward ops; @" << step.getSymName() << " has " << n
           << " (use at most " << std::max(n, 1u) << ")";
  bool inPlace = target->getInPlace();
  bool cuda = target->getBackend() == Backend::cuda;
  CostModel model(deviceProfile, workspaceBytes);

  // The cost of the stage made of forward positions [a, b), whatever the
  // other cuts: its content depends on its own range only.
  std::map<std::pair<unsigned, unsigned>, StageCost> memo;
  auto rangeCost = [&](unsigned a, unsigned b) -> const StageCost & {
    auto [it, inserted] = memo.try_emplace({a, b});
    if (!inserted)
      return it->second;
    auto stageOf = [&](unsigned anchor) -> unsigned {
      return anchor < a ? 0 : anchor < b ? 1 : 2;
    };
    uint64_t sendBytes = 0;
    func::FuncOp stage = StageBuilder(anchors, stageOf)
                             .build(1, "partition_trial", sendBytes);
    it->second = costOf(stage, inPlace, cuda, model, sendBytes);
    stage.erase();
    return it->second;
  };
  // Greedy segments under a peak bound and a time bound: each as long as
  // both hold (binary search: a longer range costs at least as much),
  // leaving one forward op for each later stage.
  auto greedy = [&](uint64_t peakBound,
                    double secondsBound) -> std::optional<SmallVector<unsigned>> {
    auto fits = [&](unsigned a, unsigned b) {
      const StageCost &cost = rangeCost(a, b);
      return cost.peak() <= peakBound && cost.seconds <= secondsBound;
    };
    SmallVector<unsigned> cuts;
    unsigned a = 0;
    for (unsigned k = 0; k + 1 < stages; ++k) {
      unsigned lo = a + 1, hi = n - (stages - 1 - k);
      if (!fits(a, lo))
        return std::nullopt;
      while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        if (fits(a, mid))
          lo = mid;
        else
          hi = mid - 1;
      }
      cuts.push_back(lo);
      a = lo;
    }
    if (!fits(a, n))
      return std::nullopt;
    return cuts;
  };
  // The least worst peak, then the least worst time, under greedy cuts.
  auto balancedCuts = [&]() -> FailureOr<SmallVector<unsigned>> {
    const StageCost &whole = rangeCost(0, n);
    double anyTime = std::numeric_limits<double>::infinity();
    uint64_t peakLo = 0, peakHi = 2 * whole.peak() + 1;
    if (!greedy(peakHi, anyTime))
      return emitError(step.getLoc(), "tg-partition: no partition into ")
             << stages << " stages found under twice the unpartitioned peak";
    while (peakLo < peakHi) {
      uint64_t mid = peakLo + (peakHi - peakLo) / 2;
      if (greedy(mid, anyTime))
        peakHi = mid;
      else
        peakLo = mid + 1;
    }
    double timeLo = 0, timeHi = whole.seconds * 2 + 1;
    for (int i = 0; i < 40; ++i) {
      double mid = (timeLo + timeHi) / 2;
      (greedy(peakHi, mid) ? timeHi : timeLo) = mid;
    }
    return *greedy(peakHi, timeHi);
  };
  bool training = updatesParameters(step);
  std::optional<SmallVector<unsigned>> given;
  if (!training)
    given = cutsFromOwners(anchors, stages, owners);
  FailureOr<SmallVector<unsigned>> found =
      given ? FailureOr<SmallVector<unsigned>>(*given) : balancedCuts();
  if (failed(found))
    return failure();
  SmallVector<unsigned> cuts = std::move(*found);

  // The stages, after the step, which they replace.
  SmallVector<unsigned> bounds{0};
  llvm::append_range(bounds, cuts);
  bounds.push_back(n);
  auto stageOf = [&](unsigned anchor) -> unsigned {
    return llvm::upper_bound(cuts, anchor) - cuts.begin();
  };
  StageBuilder builder(anchors, stageOf);
  OpBuilder insert(step);
  OpBuilder attrs(step.getContext());
  Operation *insertAfter = step;
  uint64_t worst = 0;
  for (unsigned s = 0; s < stages; ++s) {
    uint64_t sendBytes = 0;
    func::FuncOp stage = builder.build(
        s, (step.getSymName() + "_stage" + Twine(s)).str(), sendBytes);
    StageCost cost = costOf(stage, inPlace, cuda, model, sendBytes);
    worst = std::max(worst, cost.peak());
    numSendBytes += sendBytes;
    numTransfers += llvm::range_size(
        stage.getBody().front().getOps<tg::SendOp>());
    if (training)
      for (unsigned i = 0, e = stage.getNumArguments(); i < e; ++i)
        if (std::optional<NamedAttribute> role =
                roleOf(stage.getArgAttrDict(i)))
          if (auto name = dyn_cast<StringAttr>(role->getValue()))
            owners[(role->getName().strref() + ":" + name.strref()).str()] =
                s;
    stage->setAttr(
        kStageAttr,
        attrs.getDictionaryAttr({
            attrs.getNamedAttr("index", attrs.getI64IntegerAttr(s)),
            attrs.getNamedAttr("stages", attrs.getI64IntegerAttr(stages)),
            attrs.getNamedAttr("of", step.getSymNameAttr()),
            attrs.getNamedAttr("forward_ops",
                               attrs.getDenseI64ArrayAttr(
                                   {bounds[s], bounds[s + 1]})),
            attrs.getNamedAttr(
                "persistent_bytes",
                attrs.getI64IntegerAttr(cost.persistentBytes)),
            attrs.getNamedAttr("simulated_peak_bytes",
                               attrs.getI64IntegerAttr(cost.peak())),
            attrs.getNamedAttr("seconds", attrs.getF64FloatAttr(cost.seconds)),
            attrs.getNamedAttr("send_bytes",
                               attrs.getI64IntegerAttr(sendBytes)),
        }));
    insert.setInsertionPointAfter(insertAfter);
    insert.insert(stage);
    insertAfter = stage;
  }
  numWorstPeak = std::max<uint64_t>(numWorstPeak, worst);
  step.erase();
  return success();
}

} // namespace
