//===- ArenaPlan.cpp - Static arena offsets by liveness -------------------===//

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Analysis/StepMemory.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/IR/Block.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <variant>

using namespace mlir;
using namespace memopt;

namespace {

/// A buffer to place: live over ops [first, last] of the block order. A
/// buffer holds one value, a chain of values written over each other in
/// place, or an op's workspace.
struct Interval {
  std::variant<SmallVector<Value, 1>, Operation *> owner;
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
  DenseMap<Value, unsigned> bufferOf;
  auto endOf = [&](Value value) {
    return position[blockLiveness->getEndOperation(value,
                                                   value.getDefiningOp())];
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
        return it != bufferOf.end() && !llvm::is_contained(taken, it->second) &&
               buffers[it->second].bytes == bytes && endOf(operand) == at;
      };
      std::optional<unsigned> reused;
      if (inPlace)
        for (unsigned index : inPlaceCandidates(result))
          if (reusable(index)) {
            reused = index;
            break;
          }
      if (!reused) {
        bufferOf[result] = buffers.size();
        buffers.push_back({SmallVector<Value, 1>{result}, at, last, bytes});
        continue;
      }
      unsigned buffer = bufferOf[op.getOperand(*reused)];
      taken.push_back(buffer);
      bufferOf[result] = buffer;
      buffers[buffer].last = std::max(buffers[buffer].last, last);
      std::get<SmallVector<Value, 1>>(buffers[buffer].owner).push_back(result);
      plan.inPlaceOperands[result] = *reused;
    }
  }

  // Largest first; among equals, the earlier one first (a stable order, so
  // that the plan is deterministic).
  SmallVector<Interval *> order;
  for (Interval &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order, [](const Interval *a, const Interval *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->first < b->first;
  });

  SmallVector<const Interval *> placed;
  for (Interval *buffer : order) {
    buffer->offset = bestFitOffset(*buffer, placed);
    placed.push_back(buffer);
    plan.total = std::max(plan.total, buffer->offset + buffer->bytes);
    if (auto *values = std::get_if<SmallVector<Value, 1>>(&buffer->owner))
      for (Value value : *values)
        plan.valueOffsets[value] = buffer->offset;
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
