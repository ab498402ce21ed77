//===- ScheduleOrder.cpp - tg-schedule's candidate orders -----------------===//
//
// The candidate op orders of a step and the choice among them by simulated
// peak: the given order and two list schedulers that keep a heap of ready
// ops keyed by their net bytes freed, re-keyed lazily when an operand's
// last remaining reader changes (O(n log n) per candidate), each with its
// recomputations sunk to their readers. docs/planning.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/ScheduleOrder.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Analysis/StepPhases.h"

#include "llvm/ADT/STLExtras.h"

#include <queue>
#include <tuple>

using namespace mlir;
using namespace memopt;

namespace {

/// List scheduling: the ready op with the highest key runs next. Keys
/// depend on the bytes an op frees net of what it allocates, given which
/// of its operands it reads last.
class ListScheduler {
public:
  enum class Policy { FreeFirst, FreesAsap };

  ListScheduler(const MemorySimulator &graph, Policy policy)
      : graph(graph), policy(policy), pending(graph.ops().size()),
        version(graph.ops().size(), 0),
        readersLeft(graph.values().size()) {
    for (auto [index, value] : llvm::enumerate(graph.values()))
      readersLeft[index] = value.users.size();
  }

  SmallVector<unsigned> run() {
    SmallVector<unsigned> order;
    for (auto [index, op] : llvm::enumerate(graph.ops())) {
      pending[index] = op.preds.size();
      if (!pending[index])
        push(index);
    }
    while (!ready.empty()) {
      auto [key, tieBreak, index, stamp] = ready.top();
      ready.pop();
      if (stamp != version[index])
        continue; // re-keyed since
      version[index] = kDone;
      order.push_back(index);
      const MemorySimulator::Op &op = graph.ops()[index];
      for (unsigned value : op.operands)
        if (--readersLeft[value] == 1)
          for (unsigned user : graph.values()[value].users)
            if (version[user] != kDone && !pending[user])
              push(user); // its last reader now: it may free more
      for (unsigned succ : op.succs)
        if (!--pending[succ])
          push(succ);
    }
    return order;
  }

private:
  static constexpr unsigned kDone = ~0u;
  using Entry = std::tuple<int64_t, int64_t, unsigned, unsigned>;

  /// The bytes `op` frees minus those it allocates, if it ran now.
  int64_t netFreed(const MemorySimulator::Op &op) const {
    int64_t net = 0;
    auto dies = [&](unsigned value) {
      return readersLeft[value] == 1 && !graph.values()[value].liveOut;
    };
    SmallVector<unsigned, 2> taken;
    for (auto [result, candidates] : llvm::zip(op.results, op.inPlace)) {
      auto over = llvm::find_if(candidates, [&](auto candidate) {
        unsigned operand = candidate.second;
        return dies(operand) && !llvm::is_contained(taken, operand) &&
               graph.values()[operand].bytes == graph.values()[result].bytes;
      });
      if (over != candidates.end())
        taken.push_back(over->second);
      else if (!graph.values()[result].users.empty() ||
               graph.values()[result].liveOut)
        net -= graph.values()[result].bytes;
    }
    for (unsigned value : op.operands)
      if (dies(value) && !llvm::is_contained(taken, value))
        net += graph.values()[value].bytes;
    return net;
  }

  void push(unsigned index) {
    int64_t net = netFreed(graph.ops()[index]);
    int64_t key = policy == Policy::FreeFirst ? net : (net >= 0 ? 1 : 0);
    // Max-heap: higher key first, then the earlier op of the given order.
    ready.push({key, -static_cast<int64_t>(index), index, ++version[index]});
  }

  const MemorySimulator &graph;
  Policy policy;
  SmallVector<unsigned> pending;
  SmallVector<unsigned> version;
  SmallVector<unsigned> readersLeft;
  std::priority_queue<Entry> ready;
};

/// `order` with every recomputation (tg-remat's clones) moved to right
/// before the first op that depends on it, its own recomputed operands
/// before it: a list scheduler would run a ready clone early and keep its
/// result alive as long as the stored value it replaces.
SmallVector<unsigned> sinkRecomputation(const MemorySimulator &graph,
                                        ArrayRef<unsigned> order) {
  ArrayRef<MemorySimulator::Op> ops = graph.ops();
  SmallVector<bool> deferred(ops.size(), false), placed(ops.size(), false);
  bool any = false;
  for (auto [index, op] : llvm::enumerate(ops))
    any |= deferred[index] = isRecomputation(op.op);
  if (!any)
    return SmallVector<unsigned>(order);
  SmallVector<unsigned> position(ops.size());
  for (auto [at, index] : llvm::enumerate(order))
    position[index] = at;
  SmallVector<unsigned> result;
  // Places `root` after its deferred predecessors (depth first, each
  // group in the order's sequence); the others are placed already.
  auto place = [&](unsigned root) {
    SmallVector<std::pair<unsigned, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [index, expanded] = stack.pop_back_val();
      if (placed[index])
        continue;
      if (expanded) {
        placed[index] = true;
        result.push_back(index);
        continue;
      }
      stack.push_back({index, true});
      SmallVector<unsigned> waiting;
      for (unsigned pred : ops[index].preds)
        if (deferred[pred] && !placed[pred])
          waiting.push_back(pred);
      llvm::sort(waiting, [&](unsigned a, unsigned b) {
        return position[a] > position[b];
      });
      for (unsigned pred : waiting)
        stack.push_back({pred, false});
    }
  };
  for (unsigned index : order)
    if (!deferred[index])
      place(index);
  for (unsigned index : order) // clones that nothing reads
    place(index);
  return result;
}

} // namespace

ScheduleChoice memopt::chooseSchedule(const MemorySimulator &graph,
                                      ArrayRef<std::string> strategies) {
  ScheduleChoice choice;
  for (StringRef name : kScheduleStrategies) {
    if (!strategies.empty() && !llvm::is_contained(strategies, name.str()))
      continue;
    SmallVector<unsigned> order =
        name == "given"
            ? graph.givenOrder()
            : ListScheduler(graph, name == "free-first"
                                        ? ListScheduler::Policy::FreeFirst
                                        : ListScheduler::Policy::FreesAsap)
                  .run();
    order = sinkRecomputation(graph, order);
    uint64_t peak = graph.peak(order);
    if (choice.name.empty() || peak < choice.peaks[choice.best].second) {
      choice.name = name;
      choice.best = choice.peaks.size();
      choice.order = std::move(order);
    }
    choice.peaks.push_back({name.str(), peak});
  }
  return choice;
}

void memopt::applyOrder(const MemorySimulator &graph,
                        ArrayRef<unsigned> order, Operation *terminator) {
  for (unsigned index : order)
    graph.ops()[index].op->moveBefore(terminator);
}
