//===- OffloadPlace.cpp - The copies of offloaded values in an op order ---===//
//
// Offloads leave as early as the value's last forward reader allows and
// release the device bytes where the copy is predicted done; prefetches
// come back as late as the link allows without stalling the first
// backward reader, the latest first (one copy at a time per direction, so
// a later prefetch pushes an earlier one back). Times are those of the
// order without stalls; predictTiming then prices the placed order with
// them. A synchronous offload waits right after its start and prefetches
// right before its first backward reader: it stalls for its copies but
// frees the device bytes for its whole window, which the budget may need
// where the link is too slow to hide the copies. docs/passes/offload.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/OffloadPlan.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;
using namespace memopt::offload;

bool memopt::offload::isOffloadable(
    Value value, function_ref<bool(Operation *)> isForward) {
  auto result = dyn_cast<OpResult>(value);
  // No result buffer placements yet: offload decides before the memory plan.
  const DenseMap<Value, unsigned> noPlacements;
  if (!result || !isForward(result.getOwner()) || !tensorBytes(value) ||
      !livesInArena(value, noPlacements))
    return false;
  bool readLater = false;
  for (Operation *user : value.getUsers()) {
    if (user->hasTrait<OpTrait::IsTerminator>())
      return false;
    readLater |= !isForward(user);
  }
  return readLater;
}

SmallVector<Value>
memopt::offload::inProgramOrder(const DenseSet<Value> &values) {
  SmallVector<Value> ordered(values.begin(), values.end());
  llvm::sort(ordered, [](Value a, Value b) {
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (x != y)
      return x->isBeforeInBlock(y);
    return cast<OpResult>(a).getResultNumber() <
           cast<OpResult>(b).getResultNumber();
  });
  return ordered;
}

namespace {

/// One insertion: before op `at` of the order (the terminator for the
/// size of the order), ranked so that a value's four ops keep their order
/// when they share an anchor.
struct Insert {
  unsigned at;
  unsigned rank; // 0 offload_start, 1 offload_wait, 2 prefetch_start, 3 wait
  unsigned copy;
};

} // namespace

SmallVector<Copy> memopt::offload::placeOffloads(
    func::FuncOp function, ArrayRef<Value> values,
    const DenseSet<Value> &synchronous,
    function_ref<bool(Operation *)> isForward, const CostModel &cost,
    double linkBandwidth) {
  return placeOffloads(
      function, values, synchronous, isForward,
      [&](Operation *op) { return cost.cost(op).seconds; }, linkBandwidth);
}

SmallVector<Copy>
memopt::offload::placeOffloads(func::FuncOp function, ArrayRef<Value> values,
                               const DenseSet<Value> &synchronous,
                               function_ref<bool(Operation *)> isForward,
                               OpSeconds opSeconds, double linkBandwidth) {
  Block &body = function.getBody().front();
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position;
  SmallVector<double> startTime{0};
  for (Operation &op : body.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
    startTime.push_back(startTime.back() + opSeconds(&op));
  }
  unsigned n = ops.size();

  // Per value: the last reader before the first non-forward one (or the
  // definition), and that first non-forward reader.
  struct Window {
    unsigned last, first;
  };
  SmallVector<Copy> copies;
  SmallVector<Window> windows;
  for (Value value : values) {
    unsigned first = n;
    for (Operation *user : value.getUsers())
      if (!isForward(user))
        first = std::min(first, position.lookup(user));
    unsigned last = position.lookup(value.getDefiningOp());
    for (Operation *user : value.getUsers())
      if (unsigned at = position.lookup(user); at < first)
        last = std::max(last, at);
    Copy copy;
    copy.value = value;
    copy.bytes = llvm::alignTo(tensorBytes(value), ArenaPlan::kAlignment);
    copies.push_back(copy);
    windows.push_back({last, first});
  }
  auto seconds = [&](const Copy &copy) {
    return static_cast<double>(copy.bytes) / linkBandwidth;
  };

  // Offloads in the order they can start; each waits for the link.
  SmallVector<unsigned> byLast(copies.size()), byFirst(copies.size());
  for (unsigned k = 0; k < copies.size(); ++k)
    byLast[k] = byFirst[k] = k;
  llvm::stable_sort(byLast, [&](unsigned a, unsigned b) {
    return windows[a].last < windows[b].last;
  });
  SmallVector<unsigned> waitAt(copies.size()), prefetchAt(copies.size());
  double linkFree = 0;
  for (unsigned k : byLast) {
    Copy &copy = copies[k];
    copy.d2hStart = std::max(startTime[windows[k].last + 1], linkFree);
    copy.d2hEnd = linkFree = copy.d2hStart + seconds(copy);
    unsigned at = windows[k].last + 1;
    while (!synchronous.contains(copy.value) && at < windows[k].first &&
           startTime[at] < copy.d2hEnd)
      ++at;
    waitAt[k] = at;
  }
  // Prefetches from the last backward reader back: as late as possible.
  llvm::stable_sort(byFirst, [&](unsigned a, unsigned b) {
    return windows[a].first > windows[b].first;
  });
  double linkBusyFrom = startTime[n];
  for (unsigned k : byFirst) {
    Copy &copy = copies[k];
    double deadline = std::min(startTime[windows[k].first], linkBusyFrom);
    double latest = deadline - seconds(copy);
    unsigned at = windows[k].first;
    while (!synchronous.contains(copy.value) && at > waitAt[k] &&
           startTime[at] > latest)
      --at;
    prefetchAt[k] = at;
    copy.h2dStart = startTime[at];
    copy.h2dEnd = copy.h2dStart + seconds(copy);
    linkBusyFrom = copy.h2dStart;
  }

  SmallVector<Insert> inserts;
  for (unsigned k = 0; k < copies.size(); ++k) {
    inserts.push_back({windows[k].last + 1, 0, k});
    inserts.push_back({waitAt[k], 1, k});
    inserts.push_back({prefetchAt[k], 2, k});
    inserts.push_back({windows[k].first, 3, k});
  }
  llvm::stable_sort(inserts, [](const Insert &a, const Insert &b) {
    return std::tie(a.at, a.rank) < std::tie(b.at, b.rank);
  });
  OpBuilder builder(function.getContext());
  Builder b(function.getContext());
  SmallVector<Value> host(copies.size()), device(copies.size());
  for (const Insert &insert : inserts) {
    builder.setInsertionPoint(insert.at < n ? ops[insert.at]
                                            : body.getTerminator());
    Copy &copy = copies[insert.copy];
    Location loc = copy.value.getLoc();
    switch (insert.rank) {
    case 0: {
      auto start = tg::OffloadStartOp::create(builder, loc, copy.value);
      setDecision(start, OffloadCopyAttr::get(
                             function.getContext(), copy.bytes,
                             b.getF64FloatAttr(seconds(copy)),
                             synchronous.contains(copy.value)));
      host[insert.copy] = start.getHost();
      break;
    }
    case 1:
      tg::OffloadWaitOp::create(builder, loc, copy.value, host[insert.copy]);
      break;
    case 2:
      device[insert.copy] =
          tg::PrefetchStartOp::create(builder, loc, host[insert.copy])
              .getOutput();
      break;
    default: {
      // The first non-forward reader and every reader after it read the
      // prefetched tensor.
      unsigned first = windows[insert.copy].first;
      copy.value.replaceUsesWithIf(device[insert.copy], [&](OpOperand &use) {
        auto it = position.find(use.getOwner());
        return it != position.end() ? it->second >= first
                                    : use.getOwner() == body.getTerminator();
      });
      tg::PrefetchWaitOp::create(builder, loc, device[insert.copy]);
      break;
    }
    }
  }
  return copies;
}

Timing memopt::offload::predictTiming(func::FuncOp function,
                                      const CostModel &cost,
                                      double linkBandwidth) {
  return predictTiming(
      function, [&](Operation *op) { return cost.cost(op).seconds; },
      linkBandwidth);
}

Timing memopt::offload::predictTiming(func::FuncOp function,
                                      OpSeconds opSeconds,
                                      double linkBandwidth) {
  Timing timing;
  double now = 0, d2hFree = 0, h2dFree = 0;
  DenseMap<Value, double> done; // host handle or prefetched tensor
  for (Operation &op : function.getBody().front().without_terminator()) {
    auto transfer = [&](Value value) {
      return static_cast<double>(
                 llvm::alignTo(tensorBytes(value), ArenaPlan::kAlignment)) /
             linkBandwidth;
    };
    auto waitFor = [&](Value value) {
      double end = done.lookup(value);
      if (end > now) {
        timing.stallSeconds += end - now;
        now = end;
      }
    };
    if (auto start = dyn_cast<tg::OffloadStartOp>(op)) {
      uint64_t bytes = llvm::alignTo(tensorBytes(start.getInput()),
                                     ArenaPlan::kAlignment);
      d2hFree = std::max(now, d2hFree) + transfer(start.getInput());
      done[start.getHost()] = d2hFree;
      timing.d2hBytes += bytes;
      timing.hostBytes += bytes;
      ++timing.values;
    } else if (auto wait = dyn_cast<tg::OffloadWaitOp>(op)) {
      waitFor(wait.getHost());
    } else if (auto start = dyn_cast<tg::PrefetchStartOp>(op)) {
      h2dFree = std::max({now, h2dFree, done.lookup(start.getHost())}) +
                transfer(start.getHost());
      done[start.getOutput()] = h2dFree;
      timing.h2dBytes +=
          llvm::alignTo(tensorBytes(start.getHost()), ArenaPlan::kAlignment);
    } else if (auto wait = dyn_cast<tg::PrefetchWaitOp>(op)) {
      waitFor(wait.getOutput());
    } else {
      double seconds = opSeconds(&op);
      now += seconds;
      timing.computeSeconds += seconds;
    }
  }
  return timing;
}
