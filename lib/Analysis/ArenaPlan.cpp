//===- ArenaPlan.cpp - Static arena offsets by liveness -------------------===//

#include "memopt/Analysis/ArenaPlan.h"

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

/// A buffer to place: live over ops [first, last] of the block order.
struct Interval {
  std::variant<Value, Operation *> owner; // a value or an op's workspace
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
                             function_ref<uint64_t(Operation *)> workspaceBytes) {
  Block &body = function->getRegion(0).front();
  Liveness liveness(function);
  const LivenessBlockInfo *blockLiveness = liveness.getLiveness(&body);

  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = index;

  SmallVector<Interval> buffers;
  for (Operation &op : body) {
    unsigned at = position[&op];
    if (uint64_t bytes = workspaceBytes(&op))
      buffers.push_back({&op, at, at, llvm::alignTo(bytes, kAlignment)});
    for (Value result : op.getResults()) {
      uint64_t bytes = valueBytes(result);
      if (!bytes)
        continue;
      Operation *end = blockLiveness->getEndOperation(result, &op);
      buffers.push_back(
          {result, at, position[end], llvm::alignTo(bytes, kAlignment)});
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

  ArenaPlan plan;
  SmallVector<const Interval *> placed;
  for (Interval *buffer : order) {
    buffer->offset = bestFitOffset(*buffer, placed);
    placed.push_back(buffer);
    plan.total = std::max(plan.total, buffer->offset + buffer->bytes);
    if (auto *value = std::get_if<Value>(&buffer->owner))
      plan.valueOffsets[*value] = buffer->offset;
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
