//===- MemorySimulator.cpp - Live arena bytes over an op order ------------===//
//
// The graph is built once per function; each order is then simulated in
// time linear in the ops and uses (no Liveness query per order): buffers
// are merged by union-find as the plan shares them, then swept.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/MemorySimulator.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace memopt;

MemorySimulator::MemorySimulator(func::FuncOp function, bool inPlace) {
  Block &body = function.getBody().front();
  DenseMap<Value, unsigned> resultBuffers = resultBufferPlacements(function);
  DenseMap<Operation *, unsigned> index;
  // Sized once: a planner builds this graph for every trial of a step of
  // thousands of ops, and growing the maps rehashed them each time.
  size_t ops = body.getOperations().size();
  index.reserve(ops);
  opInfo.reserve(ops);
  indexOf.reserve(ops);
  valueInfo.reserve(ops);
  for (Operation &op : body.without_terminator()) {
    index[&op] = opInfo.size();
    opInfo.push_back({&op});
  }
  auto addEdge = [&](unsigned from, unsigned to) {
    if (from == to || llvm::is_contained(opInfo[to].preds, from))
      return;
    opInfo[to].preds.push_back(from);
    opInfo[from].succs.push_back(to);
  };
  std::optional<unsigned> lastEffect;
  for (Op &info : opInfo) {
    Operation *op = info.op;
    unsigned at = index[op];
    info.workspace = llvm::alignTo(workspaceBytes(op), ArenaPlan::kAlignment);
    for (mlir::Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp())
        addEdge(index.lookup(def), at);
      auto it = indexOf.find(operand);
      if (it != indexOf.end() && !llvm::is_contained(info.operands, it->second))
        info.operands.push_back(it->second);
    }
    // Ops with side effects keep their given order.
    if (!isMemoryEffectFree(op)) {
      if (lastEffect)
        addEdge(*lastEffect, at);
      lastEffect = at;
    }
    for (OpResult result : op->getResults()) {
      // Every other reader of an argument runs before the op that updates
      // it in place (where the given order allows it).
      if (mlir::Value updated = updatedOperand(result))
        for (Operation *user : updated.getUsers())
          if (user != op && user->isBeforeInBlock(op))
            addEdge(index.lookup(user), at);
      if (!livesInArena(result, resultBuffers))
        continue;
      uint64_t bytes = tensorBytes(result);
      if (!bytes)
        continue;
      indexOf[result] = valueInfo.size();
      info.results.push_back(valueInfo.size());
      SmallVector<std::pair<unsigned, unsigned>, 2> candidates;
      if (inPlace)
        for (unsigned operand : inPlaceCandidates(result)) {
          auto it = indexOf.find(op->getOperand(operand));
          if (it != indexOf.end())
            candidates.push_back({operand, it->second});
        }
      info.inPlace.push_back(candidates);
      valueInfo.push_back(
          {result, llvm::alignTo(bytes, ArenaPlan::kAlignment), at, {}, false});
    }
  }
  if (inPlace)
    for (auto [value, slice] : concatSlices(
             body, [&](mlir::Value v) { return indexOf.count(v) != 0; },
             ArenaPlan::kAlignment)) {
      unsigned concat = indexOf.lookup(slice.concat->getResult(0));
      valueInfo[indexOf.lookup(value)].concat = concat;
      valueInfo[indexOf.lookup(value)].sliceOffset = slice.offset;
      valueInfo[concat].concat = concat;
    }
  // In the values' order, which is the ops' (a walk in the map's order
  // would visit the ops at random).
  for (ArenaValue &info : valueInfo) {
    for (Operation *user : info.value.getUsers()) {
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        info.liveOut = true;
        continue;
      }
      unsigned at = index.lookup(user);
      if (!llvm::is_contained(info.users, at))
        info.users.push_back(at);
    }
  }
  // Users in the given order, whatever the use-list order was.
  for (ArenaValue &value : valueInfo)
    llvm::sort(value.users);
  if (inPlace)
    sliceDependsOnOrder = llvm::any_of(valueInfo, [&](const ArenaValue &v) {
      return llvm::count_if(v.users, [&](unsigned user) {
               return isa<tg::ConcatOp>(opInfo[user].op);
             }) > 1;
    });
}

unsigned MemorySimulator::valueIndex(mlir::Value value) const {
  auto it = indexOf.find(value);
  return it == indexOf.end() ? kNone : it->second;
}

SmallVector<unsigned> MemorySimulator::givenOrder() const {
  return llvm::to_vector(llvm::seq<unsigned>(0, opInfo.size()));
}

MemorySimulator::Layout
MemorySimulator::layout(ArrayRef<unsigned> order) const {
  size_t numOps = opInfo.size(), numValues = valueInfo.size();
  Layout result;
  result.position.assign(numOps, 0);
  for (auto [at, op] : llvm::enumerate(order))
    result.position[op] = at;
  SmallVector<unsigned> &position = result.position;
  SmallVector<unsigned> &lastUse = result.lastUse;
  lastUse.assign(numValues, 0);
  for (auto [index, value] : llvm::enumerate(valueInfo)) {
    lastUse[index] = value.liveOut ? numOps : position[value.def];
    for (unsigned user : value.users)
      lastUse[index] = std::max(lastUse[index], position[user]);
  }
  result.inPlaceOperand.assign(numValues, kNone);

  // One set per value at first, merged (union-find) as the plan shares
  // buffers; `offset` is a value's byte offset in its parent's buffer.
  struct Set {
    unsigned parent, first, last;
    uint64_t bytes, offset;
  };
  SmallVector<Set> sets;
  for (auto [index, value] : llvm::enumerate(valueInfo))
    sets.push_back({static_cast<unsigned>(index), position[value.def],
                    lastUse[index], value.bytes, 0});
  auto find = [&](unsigned value) {
    SmallVector<unsigned, 8> path;
    while (sets[value].parent != value) {
      path.push_back(value);
      value = sets[value].parent;
    }
    // Point the path at the root, offsets relative to it.
    for (unsigned node : llvm::reverse(path)) {
      unsigned parent = sets[node].parent;
      if (parent != value) {
        sets[node].offset += sets[parent].offset;
        sets[node].parent = value;
      }
    }
    return value;
  };
  auto offsetOf = [&](unsigned value) {
    return find(value) == value ? 0 : sets[value].offset;
  };
  // Puts the buffer of `from` into that of `into`, at `offset` in it.
  auto merge = [&](unsigned from, unsigned into, uint64_t offset) {
    from = find(from);
    into = find(into);
    if (from == into)
      return;
    sets[from].parent = into;
    sets[from].offset = offset;
    sets[into].first = std::min(sets[into].first, sets[from].first);
    sets[into].last = std::max(sets[into].last, sets[from].last);
  };
  for (auto [at, opIndex] : llvm::enumerate(order)) {
    const Op &op = opInfo[opIndex];
    SmallVector<unsigned, 2> taken;
    for (auto [value, candidates] : llvm::zip(op.results, op.inPlace)) {
      auto over = llvm::find_if(candidates, [&](auto candidate) {
        unsigned operand = candidate.second;
        return valueInfo[operand].concat == kNone && lastUse[operand] == at &&
               !llvm::is_contained(taken, find(operand)) &&
               valueInfo[operand].bytes == valueInfo[value].bytes;
      });
      if (over != candidates.end()) {
        taken.push_back(find(over->second));
        result.inPlaceOperand[value] = over->first;
        merge(value, over->second, offsetOf(over->second));
      }
      if (unsigned concat = valueInfo[value].concat;
          concat != kNone && concat != value) {
        // The concat's buffer, of the concat's size, holds the operand
        // (and what it was written over) at its slice.
        merge(value, concat, valueInfo[value].sliceOffset - offsetOf(value));
      }
    }
  }

  // The buffers in the order the plan creates them (the order breaks its
  // placement ties): an op's workspace, then its results' buffers, each
  // at its first value; a concat's at its first operand in a slice.
  SmallVector<unsigned> bufferOf(numValues, kNone);
  for (unsigned opIndex : order) {
    const Op &op = opInfo[opIndex];
    unsigned at = position[opIndex];
    if (op.workspace)
      result.buffers.push_back({{}, opIndex, at, at, op.workspace});
    for (unsigned value : op.results) {
      unsigned root = find(value);
      bool concatGroup = valueInfo[root].concat == root;
      if (bufferOf[root] != kNone ||
          (concatGroup && valueInfo[value].concat == kNone))
        continue;
      bufferOf[root] = result.buffers.size();
      result.buffers.push_back({{}, kNone, sets[root].first, sets[root].last,
                                sets[root].bytes});
    }
  }
  result.bufferOf.assign(numValues, kNone);
  for (unsigned opIndex : order)
    for (unsigned value : opInfo[opIndex].results) {
      result.bufferOf[value] = bufferOf[find(value)];
      result.buffers[result.bufferOf[value]].values.push_back(
          {value, offsetOf(value)});
    }
  return result;
}

SmallVector<uint64_t> MemorySimulator::liveBytes(ArrayRef<unsigned> order,
                                             const Layout &layout) const {
  size_t numOps = order.size();
  SmallVector<int64_t> delta(numOps + 1, 0);
  for (const Buffer &buffer : layout.buffers) {
    delta[buffer.first] += buffer.bytes;
    delta[std::min<size_t>(buffer.last, numOps - 1) + 1] -= buffer.bytes;
  }
  SmallVector<uint64_t> live(numOps);
  int64_t bytes = 0;
  for (unsigned at = 0; at < numOps; ++at) {
    bytes += delta[at];
    live[at] = static_cast<uint64_t>(bytes);
  }
  return live;
}

SmallVector<uint64_t>
MemorySimulator::liveBytes(ArrayRef<unsigned> order) const {
  return liveBytes(order, layout(order));
}

uint64_t MemorySimulator::peak(ArrayRef<unsigned> order) const {
  uint64_t peak = 0;
  for (uint64_t bytes : liveBytes(order))
    peak = std::max(peak, bytes);
  return peak;
}

SmallVector<unsigned> MemorySimulator::liveAt(const Layout &layout,
                                              unsigned at) const {
  SmallVector<unsigned> live;
  for (const Buffer &buffer : layout.buffers)
    if (buffer.first <= at && at <= buffer.last)
      for (auto [value, offset] : buffer.values)
        live.push_back(value);
  llvm::sort(live);
  return live;
}

MemorySimulator::LiveMax::LiveMax(ArrayRef<uint64_t> live) {
  levels.emplace_back(live.begin(), live.end());
  for (size_t width = 2; width <= live.size(); width *= 2) {
    const SmallVector<uint64_t> &below = levels.back();
    SmallVector<uint64_t> level(live.size() - width + 1);
    for (auto [i, most] : llvm::enumerate(level))
      most = std::max(below[i], below[i + width / 2]);
    levels.push_back(std::move(level));
  }
}

uint64_t MemorySimulator::LiveMax::max(unsigned from, unsigned to) const {
  if (from > to || from >= levels.front().size())
    return 0;
  to = std::min<unsigned>(to, levels.front().size() - 1);
  unsigned level = llvm::Log2_32(to - from + 1);
  return std::max(levels[level][from], levels[level][to + 1 - (1u << level)]);
}

uint64_t MemorySimulator::peakWithout(const Layout &shared,
                                      ArrayRef<uint64_t> live, unsigned value,
                                      unsigned from, unsigned to) const {
  return peakWithout(shared, LiveMax(live), value, from, to);
}

uint64_t MemorySimulator::absentRanges(
    const Layout &shared, Absence absence,
    SmallVectorImpl<std::pair<unsigned, unsigned>> &ranges) const {
  auto [value, from, to] = absence;
  const Buffer &buffer = shared.buffers[shared.bufferOf[value]];
  // The span of the buffer's other values: the plan keeps the buffer over
  // it whatever happens to `value`.
  unsigned first = buffer.last + 1, last = 0;
  for (auto [other, offset] : buffer.values)
    if (other != value) {
      first = std::min(first, shared.position[valueInfo[other].def]);
      last = std::max(last, shared.lastUse[other]);
    }
  // The value is absent over [lo, hi] less [first, last]: at most two
  // ranges.
  unsigned lo = std::max(from, buffer.first), hi = std::min(to, buffer.last);
  if (lo > hi || (first <= lo && hi <= last))
    return buffer.bytes;
  if (first > last || hi < first || lo > last) {
    ranges.push_back({lo, hi});
  } else {
    if (lo < first)
      ranges.push_back({lo, first - 1});
    if (hi > last)
      ranges.push_back({last + 1, hi});
  }
  return buffer.bytes;
}

uint64_t MemorySimulator::peakWithout(const Layout &shared,
                                      const LiveMax &live, unsigned value,
                                      unsigned from, unsigned to) const {
  SmallVector<std::pair<unsigned, unsigned>, 2> absent;
  uint64_t bytes = absentRanges(shared, {value, from, to}, absent);
  if (absent.empty())
    return live.max(0, ~0u);
  // Each absent range is lowered by the buffer's bytes; the rest keep
  // theirs.
  uint64_t peak = 0;
  unsigned next = 0; // the first position after the last absent range
  for (auto [begin, end] : absent) {
    if (begin > next)
      peak = std::max(peak, live.max(next, begin - 1));
    // The buffer's bytes are live there.
    uint64_t most = live.max(begin, end);
    peak = std::max(peak, most > bytes ? most - bytes : 0);
    next = end + 1;
  }
  return std::max(peak, live.max(next, ~0u));
}

uint64_t MemorySimulator::peakWithout(const Layout &shared,
                                      const LiveMax &live,
                                      ArrayRef<Absence> absences) const {
  // The bytes absent change only at the ranges' ends: between two ends
  // the peak is the range maximum less what is absent there.
  SmallVector<std::pair<unsigned, int64_t>> changes; // position, +/- bytes
  for (Absence absence : absences) {
    SmallVector<std::pair<unsigned, unsigned>, 2> absent;
    uint64_t bytes = absentRanges(shared, absence, absent);
    for (auto [begin, end] : absent) {
      changes.push_back({begin, static_cast<int64_t>(bytes)});
      changes.push_back({end + 1, -static_cast<int64_t>(bytes)});
    }
  }
  llvm::sort(changes);
  uint64_t peak = 0, absentBytes = 0;
  unsigned next = 0; // the first position not yet covered
  for (auto [at, delta] : changes) {
    if (at > next) {
      uint64_t most = live.max(next, at - 1);
      peak = std::max(peak, most > absentBytes ? most - absentBytes : 0);
      next = at;
    }
    absentBytes += delta;
  }
  return std::max(peak, live.max(next, ~0u));
}
