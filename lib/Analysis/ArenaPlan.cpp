//===- ArenaPlan.cpp - Static arena offsets by liveness -------------------===//
//
// Places the buffers of the MemorySimulator's layout of the given order:
// which values share a buffer (in-place writes, concat slices) is the
// simulator's decision, where each buffer goes is ArenaPacking's.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Analysis/ArenaPacking.h"
#include "memopt/Analysis/Workspace.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace memopt;

SmallVector<LiveInterval>
ArenaPlan::liveIntervals(const MemorySimulator::Layout &layout) {
  SmallVector<LiveInterval> intervals;
  for (const MemorySimulator::Buffer &buffer : layout.buffers)
    intervals.push_back({buffer.first, buffer.last, buffer.bytes});
  return intervals;
}

uint64_t ArenaPlan::computeTotal(const MemorySimulator::Layout &layout) {
  return packedBytes(liveIntervals(layout));
}

bool ArenaPlan::fitsWithin(const MemorySimulator::Layout &layout,
                           uint64_t limit) {
  return packsWithin(liveIntervals(layout), limit);
}

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

  Packing packing = packIntervals(liveIntervals(layout));

  plan.total = packing.total;
  for (auto [buffer, offset] : llvm::zip(layout.buffers, packing.offsets)) {
    if (buffer.workspaceOf != MemorySimulator::kNone)
      plan.workspaceOffsets[simulator.ops()[buffer.workspaceOf].op] = offset;
    for (auto [value, at] : buffer.values)
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
