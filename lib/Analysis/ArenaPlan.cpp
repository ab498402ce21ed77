//===- ArenaPlan.cpp - Static arena offsets by liveness -------------------===//

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Analysis/StepMemory.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/IR/Block.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <variant>

using namespace mlir;
using namespace memopt;

namespace {

/// A buffer to place: live over ops [first, last] of the block order. A
/// buffer holds one value, values written over each other in place, a
/// concat's result with the operands computed in their slices of it (each
/// value at its offset in the buffer), or an op's workspace.
struct Interval {
  std::variant<SmallVector<std::pair<Value, uint64_t>, 1>, Operation *> owner;
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

ArenaPlan ArenaPlan::compute(Operation *function,
                             function_ref<uint64_t(Value)> valueBytes,
                             function_ref<uint64_t(Operation *)> workspaceBytes,
                             bool inPlace) {
  Block &body = function->getRegion(0).front();
  Liveness liveness(function);
  const LivenessBlockInfo *blockLiveness = liveness.getLiveness(&body);

  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = index;

  ArenaPlan plan;
  SmallVector<Interval> buffers;
  // The buffer of each arena value and the value's offset in it.
  DenseMap<Value, std::pair<unsigned, uint64_t>> bufferOf;
  auto endOf = [&](Value value) {
    return position[blockLiveness->getEndOperation(value,
                                                   value.getDefiningOp())];
  };
  auto join = [&](Value value, unsigned buffer, uint64_t at, unsigned last) {
    bufferOf[value] = {buffer, at};
    buffers[buffer].last = std::max(buffers[buffer].last, last);
    std::get<0>(buffers[buffer].owner).push_back({value, at});
  };
  DenseMap<Value, ConcatSlice> slices;
  // The buffer of each concat result whose operands are in its slices.
  DenseMap<Operation *, unsigned> concatBuffer;
  if (inPlace)
    slices = concatSlices(
        body, [&](Value value) { return valueBytes(value) > 0; }, kAlignment);
  // A value that shares a concat's buffer is never overwritten in place:
  // the concat's result is live longer than the value itself.
  auto inConcatBuffer = [&](Value value) {
    if (slices.count(value))
      return true;
    auto result = dyn_cast<OpResult>(value);
    return result && concatBuffer.count(result.getOwner());
  };

  for (Operation &op : body) {
    unsigned at = position[&op];
    if (uint64_t bytes = workspaceBytes(&op))
      buffers.push_back({&op, at, at, llvm::alignTo(bytes, kAlignment)});
    SmallVector<unsigned, 2> taken;
    for (OpResult result : op.getResults()) {
      uint64_t bytes = llvm::alignTo(valueBytes(result), kAlignment);
      if (!bytes)
        continue;
      unsigned last = endOf(result);
      auto reusable = [&](unsigned index) {
        Value operand = op.getOperand(index);
        auto it = bufferOf.find(operand);
        return it != bufferOf.end() && !inConcatBuffer(operand) &&
               !llvm::is_contained(taken, it->second.first) &&
               buffers[it->second.first].bytes == bytes &&
               endOf(operand) == at;
      };
      std::optional<unsigned> reused;
      if (inPlace)
        for (unsigned index : inPlaceCandidates(result))
          if (reusable(index)) {
            reused = index;
            break;
          }
      if (reused)
        plan.inPlaceOperands[result] = *reused;
      auto slice = slices.find(result);
      if (slice == slices.end()) {
        auto concat = concatBuffer.find(result.getOwner());
        if (concat != concatBuffer.end()) {
          join(result, concat->second, 0, last);
          continue;
        }
        if (reused) {
          auto [buffer, offset] = bufferOf[op.getOperand(*reused)];
          taken.push_back(buffer);
          join(result, buffer, offset, last);
          continue;
        }
      } else {
        // The operand of a concat goes to its slice of the concat's
        // buffer, with the values it was written over in place.
        Operation *concat = slice->second.concat;
        uint64_t offset = slice->second.offset;
        auto [it, created] = concatBuffer.insert({concat, buffers.size()});
        if (created)
          buffers.push_back(
              {SmallVector<std::pair<Value, uint64_t>, 1>{}, at, at,
               llvm::alignTo(valueBytes(concat->getResult(0)), kAlignment)});
        unsigned group = it->second;
        if (reused) {
          unsigned old = bufferOf[op.getOperand(*reused)].first;
          buffers[group].first =
              std::min(buffers[group].first, buffers[old].first);
          for (auto [value, inner] : std::get<0>(buffers[old].owner))
            join(value, group, offset + inner, buffers[old].last);
          std::get<0>(buffers[old].owner).clear();
          buffers[old].bytes = 0;
        }
        join(result, group, offset, last);
        plan.sliced[concat].push_back(
            llvm::find(concat->getOperands(), result) -
            concat->getOperands().begin());
        continue;
      }
      bufferOf[result] = {static_cast<unsigned>(buffers.size()), 0};
      buffers.push_back({SmallVector<std::pair<Value, uint64_t>, 1>{
                             {result, 0}},
                         at, last, bytes});
    }
  }

  SmallVector<Interval *> buffersToPlace;
  for (Interval &buffer : buffers)
    if (buffer.bytes) // not merged into a concat's buffer
      buffersToPlace.push_back(&buffer);

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
    SmallVector<Interval *> order(buffersToPlace);
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
      for (Interval *buffer : buffersToPlace)
        bestOffsets->push_back(buffer->offset);
    }
  }

  plan.total = bestTotal;
  for (auto [buffer, offset] : llvm::zip(buffersToPlace, *bestOffsets)) {
    buffer->offset = offset;
    if (auto *values = std::get_if<0>(&buffer->owner))
      for (auto [value, at] : *values)
        plan.valueOffsets[value] = buffer->offset + at;
    else
      plan.workspaceOffsets[std::get<Operation *>(buffer->owner)] =
          buffer->offset;
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

FailureOr<StepArenaPlan> memopt::planStepArena(func::FuncOp step,
                                               WorkspaceTarget target,
                                               bool queryWorkspaces,
                                               bool inPlace) {
  StepArenaPlan result;
  Block &body = step.getBody().front();
  if (queryWorkspaces)
    for (Operation &op : body.without_terminator()) {
      FailureOr<uint64_t> bytes = queryWorkspaceBytes(&op, target);
      if (failed(bytes))
        return failure();
      if (*bytes)
        result.workspaces[&op] = *bytes;
    }
  DenseMap<Value, unsigned> resultBuffers = resultBufferPlacements(step);
  auto arenaBytes = [&](Value value) -> uint64_t {
    return livesInArena(value, resultBuffers) ? tensorBytes(value) : 0;
  };
  result.plan = ArenaPlan::compute(
      step, arenaBytes,
      [&](Operation *op) { return result.workspaces.lookup(op); }, inPlace);
  return result;
}
