//===- ArenaPlan.cpp - Static arena offsets by liveness -------------------===//
//
// Places the buffers of the MemorySimulator's layout of the given order:
// which values share a buffer (in-place writes, concat slices) is the
// simulator's decision, where each buffer goes is this file's.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Analysis/Workspace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace memopt;

namespace {

/// A buffer of the layout to place, live over positions [first, last].
struct Interval {
  const MemorySimulator::Buffer *buffer;
  unsigned first;
  unsigned last;
  uint64_t bytes;
  uint64_t offset = 0;

  bool overlapsInTime(const Interval &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// Best fit: the lowest-waste gap between the buffers already placed that
/// are live at the same time as `buffer`, or the top of them.
uint64_t bestFitOffset(const Interval &buffer,
                       ArrayRef<const Interval *> placed) {
  SmallVector<const Interval *> live;
  for (const Interval *other : placed)
    if (other->overlapsInTime(buffer))
      live.push_back(other);
  llvm::sort(live, [](const Interval *a, const Interval *b) {
    return a->offset < b->offset;
  });
  std::optional<uint64_t> best;
  uint64_t bestWaste = 0;
  uint64_t top = 0;
  for (const Interval *other : live) {
    if (other->offset >= top && other->offset - top >= buffer.bytes) {
      uint64_t waste = other->offset - top - buffer.bytes;
      if (!best || waste < bestWaste) {
        best = top;
        bestWaste = waste;
      }
    }
    top = std::max(top, other->offset + other->bytes);
  }
  return best.value_or(top);
}

} // namespace

ArenaPlan ArenaPlan::compute(const MemorySimulator &simulator) {
  MemorySimulator::Layout layout =
      simulator.layout(simulator.givenOrder());
  ArenaPlan plan;
  ArrayRef<MemorySimulator::ArenaValue> values = simulator.values();
  for (auto [index, operand] : llvm::enumerate(layout.inPlaceOperand))
    if (operand != MemorySimulator::kNone)
      plan.inPlaceOperands[values[index].value] = operand;
  for (const MemorySimulator::ArenaValue &value : values)
    if (value.concat != MemorySimulator::kNone &&
        values[value.concat].value != value.value) {
      Operation *concat = values[value.concat].value.getDefiningOp();
      plan.sliced[concat].push_back(
          llvm::find(concat->getOperands(), value.value) -
          concat->getOperands().begin());
    }

  SmallVector<Interval> buffersToPlace;
  for (const MemorySimulator::Buffer &buffer : layout.buffers)
    buffersToPlace.push_back(
        {&buffer, buffer.first, buffer.last, buffer.bytes});

  // Best fit depends on the order buffers are placed in, and no one order
  // wins on every graph (as in XLA's heap simulator): place them in a few
  // orders and keep the smallest arena. Ties keep the earlier order; every
  // order is stable (ties: the earlier buffer first), so that the plan is
  // deterministic.
  auto lifetime = [](const Interval *b) { return uint64_t(b->last - b->first); };
  using Order = std::function<bool(const Interval *, const Interval *)>;
  const Order orders[] = {
      // Largest first.
      [](const Interval *a, const Interval *b) { return a->bytes > b->bytes; },
      // Largest area in the (time, bytes) plane first.
      [&](const Interval *a, const Interval *b) {
        return a->bytes * (lifetime(a) + 1) > b->bytes * (lifetime(b) + 1);
      },
      // Longest-lived first, then largest.
      [&](const Interval *a, const Interval *b) {
        if (lifetime(a) != lifetime(b))
          return lifetime(a) > lifetime(b);
        return a->bytes > b->bytes;
      },
  };
  std::optional<std::vector<uint64_t>> bestOffsets;
  uint64_t bestTotal = 0;
  for (const Order &before : orders) {
    SmallVector<Interval *> order;
    for (Interval &buffer : buffersToPlace)
      order.push_back(&buffer);
    llvm::stable_sort(order, [&](const Interval *a, const Interval *b) {
      if (before(a, b) != before(b, a))
        return before(a, b);
      return a->first < b->first;
    });
    SmallVector<const Interval *> placed;
    uint64_t total = 0;
    for (Interval *buffer : order) {
      buffer->offset = bestFitOffset(*buffer, placed);
      placed.push_back(buffer);
      total = std::max(total, buffer->offset + buffer->bytes);
    }
    if (!bestOffsets || total < bestTotal) {
      bestTotal = total;
      bestOffsets.emplace();
      for (Interval &buffer : buffersToPlace)
        bestOffsets->push_back(buffer.offset);
    }
  }

  plan.total = bestTotal;
  for (auto [buffer, offset] : llvm::zip(buffersToPlace, *bestOffsets)) {
    if (buffer.buffer->workspaceOf != MemorySimulator::kNone)
      plan.workspaceOffsets[simulator.ops()[buffer.buffer->workspaceOf].op] =
          offset;
    for (auto [value, at] : buffer.buffer->values)
      plan.valueOffsets[values[value].value] = offset + at;
  }
  return plan;
}

std::optional<uint64_t> ArenaPlan::offset(Value value) const {
  auto it = valueOffsets.find(value);
  if (it == valueOffsets.end())
    return std::nullopt;
  return it->second;
}

std::optional<uint64_t> ArenaPlan::workspaceOffset(Operation *op) const {
  auto it = workspaceOffsets.find(op);
  if (it == workspaceOffsets.end())
    return std::nullopt;
  return it->second;
}

std::optional<unsigned> ArenaPlan::inPlaceOperand(OpResult result) const {
  auto it = inPlaceOperands.find(result);
  if (it == inPlaceOperands.end())
    return std::nullopt;
  return it->second;
}

ArrayRef<unsigned> ArenaPlan::slicedOperands(Operation *concat) const {
  auto it = sliced.find(concat);
  if (it == sliced.end())
    return {};
  return it->second;
}

StepArenaPlan memopt::planStepArena(func::FuncOp step, bool inPlace) {
  StepArenaPlan result;
  for (Operation &op : step.getBody().front().without_terminator())
    if (uint64_t bytes = workspaceBytes(&op))
      result.workspaces[&op] = bytes;
  result.plan = ArenaPlan::compute(MemorySimulator(step, inPlace));
  return result;
}
