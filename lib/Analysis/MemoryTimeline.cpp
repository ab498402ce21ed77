//===- MemoryTimeline.cpp - Live bytes over the step, by category ---------===//

#include "memopt/Analysis/MemoryTimeline.h"

#include "memopt/Analysis/CostModel.h"
#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;

namespace {

/// The persistent category of a step argument by its role attribute.
std::optional<MemoryCategory> argumentCategory(func::FuncOp step,
                                               unsigned index) {
  if (step.getArgAttr(index, "tg.param") || step.getArgAttr(index, "tg.state"))
    return MemoryCategory::Weights;
  if (step.getArgAttr(index, "tg.opt_state"))
    return MemoryCategory::OptimizerState;
  if (step.getArgAttr(index, "tg.input") ||
      step.getArgAttr(index, "tg.target") || step.getArgAttr(index, "tg.step") ||
      step.getArgAttr(index, "tg.seed") ||
      step.getArgAttr(index, "tg.loss_scale"))
    return MemoryCategory::Data;
  return std::nullopt;
}

MemoryCategory temporaryCategory(StepPhase phase) {
  switch (phase) {
  case StepPhase::Forward:
    return MemoryCategory::Activations;
  case StepPhase::Backward:
    return MemoryCategory::Gradients;
  case StepPhase::Optimizer:
    return MemoryCategory::OptimizerState;
  }
  llvm_unreachable("unknown step phase");
}

/// A temporary live at one op: bytes [offset, offset + bytes) of the arena.
struct LiveBuffer {
  uint64_t offset;
  uint64_t bytes;
  MemoryCategory category;
  /// Who made it: the op's index in the simulator, and for a value its
  /// arena value index (MemorySimulator::kNone for a workspace).
  unsigned op;
  unsigned value;
};

/// Adds the bytes of `live` to `point`, counting bytes that several
/// buffers share (an in-place write over a dying operand, an operand
/// computed in its slice of a concat) once, for the buffer that starts
/// lowest (the first listed among equals). `counted`, when given, gets
/// each buffer of `live` (in its sorted order) with the bytes it added.
void addUnion(MutableArrayRef<LiveBuffer> live, MemoryTimeline::Point &point,
              SmallVectorImpl<std::pair<LiveBuffer, uint64_t>> *counted =
                  nullptr) {
  llvm::stable_sort(live, [](const LiveBuffer &a, const LiveBuffer &b) {
    return a.offset < b.offset;
  });
  uint64_t covered = 0;
  for (const LiveBuffer &buffer : live) {
    uint64_t begin = std::max(buffer.offset, covered);
    uint64_t end = buffer.offset + buffer.bytes;
    if (end <= begin)
      continue;
    point.bytes[static_cast<unsigned>(buffer.category)] += end - begin;
    point.transientBytes += end - begin;
    if (counted)
      counted->push_back({buffer, end - begin});
    covered = end;
  }
}

} // namespace

std::array<uint64_t, kNumMemoryCategories>
MemoryTimeline::persistentBytesOf(func::FuncOp step) {
  std::array<uint64_t, kNumMemoryCategories> persistent{};
  for (auto [index, type] : llvm::enumerate(step.getArgumentTypes()))
    if (std::optional<MemoryCategory> category =
            argumentCategory(step, index))
      persistent[static_cast<unsigned>(*category)] += tensorBytes(type);
  for (auto [index, type] : llvm::enumerate(step.getResultTypes()))
    if (step.getResultAttr(index, "tg.output"))
      persistent[static_cast<unsigned>(MemoryCategory::Data)] +=
          tensorBytes(type);
  return persistent;
}

uint64_t memopt::hostScalarBytes(func::FuncOp step, bool scalarsOnHost) {
  uint64_t bytes = 0;
  if (scalarsOnHost)
    for (unsigned index = 0, e = step.getNumArguments(); index < e; ++index)
      if (step.getArgAttr(index, "tg.step") || step.getArgAttr(index, "tg.seed"))
        bytes += sizeof(int64_t);
  return bytes;
}

uint64_t memopt::persistentDeviceBytes(func::FuncOp step, bool scalarsOnHost) {
  std::array<uint64_t, kNumMemoryCategories> persistent =
      MemoryTimeline::persistentBytesOf(step);
  return persistent[static_cast<unsigned>(MemoryCategory::Weights)] +
         persistent[static_cast<unsigned>(MemoryCategory::OptimizerState)] +
         persistent[static_cast<unsigned>(MemoryCategory::Data)] -
         hostScalarBytes(step, scalarsOnHost);
}

StringRef memopt::memoryCategoryName(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Weights:
    return "weights";
  case MemoryCategory::OptimizerState:
    return "optimizer state";
  case MemoryCategory::Data:
    return "inputs and outputs";
  case MemoryCategory::Activations:
    return "activations";
  case MemoryCategory::Gradients:
    return "gradients";
  case MemoryCategory::Offloading:
    return "offloading (in flight)";
  case MemoryCategory::Prefetched:
    return "prefetched";
  case MemoryCategory::Workspace:
    return "workspace";
  }
  llvm_unreachable("unknown memory category");
}

uint64_t MemoryTimeline::Point::total() const {
  uint64_t sum = 0;
  for (uint64_t value : bytes)
    sum += value;
  return sum;
}

MemoryTimeline MemoryTimeline::compute(func::FuncOp step,
                                       const StepPhases &phases,
                                       const ArenaPlan &plan) {
  // Where each temporary lives is the plan's (planStepArena); how long,
  // the memory simulator's over the same order. Bytes that buffers share
  // (in-place writes, operands computed in their concat slice) count once.
  MemoryTimeline result;
  Block &body = step.getBody().front();

  // Persistent: role arguments, and forward outputs in their own buffers
  // (results that update an argument share its buffer).
  result.persistent = persistentBytesOf(step);
  for (Operation &op : body.without_terminator()) {
    Point point{op.getName().getStringRef().str(), "", phases.phase(&op)};
    if (auto name = op.getLoc()->findInstanceOf<NameLoc>())
      point.node = name.getName().str();
    point.bytes = result.persistent;
    result.timeline.push_back(point);
  }

  // Lifetimes only: the sharing is the plan's.
  MemorySimulator simulator(step, /*inPlace=*/false);
  MemorySimulator::Layout layout = simulator.layout(simulator.givenOrder());
  // Offloaded values: from their tg.offload_start on, a value's device
  // bytes are a copy in flight (freed at its tg.offload_wait), and its host
  // copy is held until the last tg.prefetch_start that reads it.
  DenseMap<Operation *, unsigned> indexOf;
  for (auto [at, op] : llvm::enumerate(simulator.ops()))
    indexOf[op.op] = at;
  DenseMap<Value, unsigned> offloadedAt;
  for (auto [at, op] : llvm::enumerate(simulator.ops())) {
    auto start = dyn_cast<tg::OffloadStartOp>(op.op);
    if (!start)
      continue;
    result.offloading = true;
    offloadedAt.try_emplace(start.getInput(), at);
    unsigned last = at;
    for (Operation *user : start.getHost().getUsers())
      if (auto found = indexOf.find(user); found != indexOf.end())
        last = std::max(last, found->second);
    for (unsigned i = at; i <= last && i < result.timeline.size(); ++i)
      result.timeline[i].hostBytes += tensorBytes(start.getHost().getType());
  }
  std::vector<SmallVector<LiveBuffer>> planned(result.timeline.size());
  for (auto [at, op] : llvm::enumerate(simulator.ops())) {
    if (op.workspace)
      planned[at].push_back({plan.workspaceOffset(op.op).value_or(0),
                             op.workspace, MemoryCategory::Workspace,
                             static_cast<unsigned>(at),
                             MemorySimulator::kNone});
    // A tg-remat clone runs in the backward but recreates a forward value:
    // its bytes are activations, not gradients.
    MemoryCategory category =
        isa<tg::PrefetchStartOp>(op.op) ? MemoryCategory::Prefetched
        : isRecomputation(op.op)
            ? MemoryCategory::Activations
            : temporaryCategory(result.timeline[at].phase);
    for (unsigned value : op.results) {
      const MemorySimulator::ArenaValue &info = simulator.values()[value];
      std::optional<uint64_t> offset = plan.offset(info.value);
      if (!offset)
        continue;
      auto offloaded = offloadedAt.find(info.value);
      for (unsigned i = at; i <= layout.lastUse[value] && i < planned.size();
           ++i)
        planned[i].push_back({*offset, info.bytes,
                              offloaded != offloadedAt.end() &&
                                      i >= offloaded->second
                                  ? MemoryCategory::Offloading
                                  : category,
                              static_cast<unsigned>(at), value});
    }
  }
  for (auto [index, live] : llvm::enumerate(planned))
    addUnion(live, result.timeline[index]);

  for (auto [index, point] : llvm::enumerate(result.timeline))
    if (point.total() > result.timeline[result.peak].total())
      result.peak = index;

  // What holds the peak: its buffers again, each with the bytes it added.
  if (result.timeline.empty())
    return result;
  MemoryTimeline::Point recount;
  SmallVector<std::pair<LiveBuffer, uint64_t>> counted;
  addUnion(planned[result.peak], recount, &counted);
  for (auto [buffer, bytes] : counted) {
    Operation *op = simulator.ops()[buffer.op].op;
    PeakBuffer entry;
    entry.node = result.timeline[buffer.op].node;
    entry.opName = result.timeline[buffer.op].opName;
    entry.bytes = bytes;
    entry.category = buffer.category;
    entry.recomputed = isRecomputation(op);
    entry.first = buffer.op;
    entry.last = buffer.value == MemorySimulator::kNone
                     ? buffer.op
                     : std::min<unsigned>(layout.lastUse[buffer.value],
                                          result.timeline.size() - 1);
    result.atPeak.push_back(std::move(entry));
  }
  llvm::stable_sort(result.atPeak,
                    [](const PeakBuffer &a, const PeakBuffer &b) {
                      if (a.bytes != b.bytes)
                        return a.bytes > b.bytes;
                      return a.first < b.first;
                    });
  return result;
}

uint64_t MemoryTimeline::peakBytes() const {
  return timeline.empty() ? 0 : timeline[peak].total();
}

uint64_t MemoryTimeline::hostPeakBytes() const {
  uint64_t most = 0;
  for (const Point &point : timeline)
    most = std::max(most, point.hostBytes);
  return most;
}

uint64_t MemoryTimeline::transientPeakBytes() const {
  return timeline.empty() ? 0 : timeline[peak].transientBytes;
}
