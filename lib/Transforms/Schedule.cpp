//===- Schedule.cpp - The tg-schedule pass ---------------------------------===//
//
// Builds the dependence graph of the function's ops once, with the byte
// accounting of the memory plan, then simulates candidate orders in linear
// time each (no Liveness query per candidate) and moves the ops into the
// best one. The list schedulers keep a heap of ready ops keyed by their net
// bytes freed, re-keyed lazily when an operand's last remaining reader
// changes: O(n log n) per candidate.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <queue>
#include <tuple>

namespace memopt {
#define GEN_PASS_DEF_SCHEDULE
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kScheduleAttr = "memopt.schedule";
constexpr StringLiteral kStrategies[] = {"given", "free-first", "frees-asap"};

/// The ops of a block (terminator excluded) as a graph over their indices
/// in the given order, with the arena values they define and read.
struct Graph {
  static constexpr unsigned kNone = ~0u;
  struct ValueInfo {
    uint64_t bytes;
    unsigned def;
    llvm::SmallVector<unsigned, 2> users; // unique, in the given order
    bool liveOut;                         // read by the terminator
    /// For a concat operand computed in its slice (concatSlices): the
    /// concat's result; for a concat result with such operands: itself.
    unsigned concat = kNone;
  };
  struct OpInfo {
    Operation *op;
    llvm::SmallVector<unsigned, 2> preds;    // unique
    llvm::SmallVector<unsigned, 2> succs;    // unique
    llvm::SmallVector<unsigned, 2> operands; // arena values, unique
    llvm::SmallVector<unsigned, 1> results;  // arena values
    /// Per entry of `results`: the operand values it may overwrite.
    llvm::SmallVector<llvm::SmallVector<unsigned, 2>, 1> inPlace;
    uint64_t workspace = 0;
  };
  llvm::SmallVector<OpInfo> ops;
  llvm::SmallVector<ValueInfo> values;

  static FailureOr<Graph> build(Block &body,
                                std::optional<WorkspaceTarget> workspaces,
                                bool inPlace,
                                const DenseMap<Value, unsigned> &resultBuffers);
};

FailureOr<Graph> Graph::build(Block &body,
                              std::optional<WorkspaceTarget> workspaces,
                              bool inPlace,
                              const DenseMap<Value, unsigned> &resultBuffers) {
  Graph graph;
  DenseMap<Operation *, unsigned> index;
  DenseMap<Value, unsigned> valueIndex;
  for (Operation &op : body.without_terminator()) {
    index[&op] = graph.ops.size();
    graph.ops.push_back({&op});
  }
  auto addEdge = [&](unsigned from, unsigned to) {
    if (from == to || llvm::is_contained(graph.ops[to].preds, from))
      return;
    graph.ops[to].preds.push_back(from);
    graph.ops[from].succs.push_back(to);
  };
  std::optional<unsigned> lastEffect;
  for (OpInfo &info : graph.ops) {
    Operation *op = info.op;
    unsigned at = index[op];
    if (workspaces) {
      FailureOr<uint64_t> bytes = queryWorkspaceBytes(op, *workspaces);
      if (failed(bytes))
        return failure();
      info.workspace = llvm::alignTo(*bytes, ArenaPlan::kAlignment);
    }
    for (Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp())
        addEdge(index.lookup(def), at);
      auto it = valueIndex.find(operand);
      if (it != valueIndex.end() &&
          !llvm::is_contained(info.operands, it->second))
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
      if (Value updated = updatedOperand(result))
        for (Operation *user : updated.getUsers())
          if (user != op && user->isBeforeInBlock(op))
            addEdge(index.lookup(user), at);
      if (!livesInArena(result, resultBuffers))
        continue;
      valueIndex[result] = graph.values.size();
      info.results.push_back(graph.values.size());
      llvm::SmallVector<unsigned, 2> candidates;
      if (inPlace)
        for (unsigned operand : inPlaceCandidates(result)) {
          auto it = valueIndex.find(op->getOperand(operand));
          if (it != valueIndex.end())
            candidates.push_back(it->second);
        }
      info.inPlace.push_back(candidates);
      graph.values.push_back(
          {llvm::alignTo(tensorBytes(result), ArenaPlan::kAlignment), at,
           {}, false});
    }
  }
  if (inPlace)
    for (auto [value, slice] : concatSlices(
             body, [&](Value v) { return valueIndex.count(v) != 0; },
             ArenaPlan::kAlignment)) {
      unsigned concat = valueIndex.lookup(slice.concat->getResult(0));
      graph.values[valueIndex.lookup(value)].concat = concat;
      graph.values[concat].concat = concat;
    }
  for (auto [value, info] : valueIndex) {
    for (Operation *user : value.getUsers()) {
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        graph.values[info].liveOut = true;
        continue;
      }
      unsigned at = index.lookup(user);
      if (!llvm::is_contained(graph.values[info].users, at))
        graph.values[info].users.push_back(at);
    }
  }
  return graph;
}

/// The arena peak of `order` as tg-plan-memory counts it (ArenaPlan): a
/// buffer per value from its op to its last use, except that a result
/// written in place over an operand that dies at its op joins the
/// operand's buffer, and a concat's result and the operands computed in its
/// slices share one buffer of its size (with the buffers of what those
/// operands were written over in place); a workspace counts during its op.
/// Linear in the ops and uses: groups by union-find, then a sweep.
uint64_t simulatePeak(const Graph &graph, ArrayRef<unsigned> order) {
  size_t numOps = graph.ops.size(), numValues = graph.values.size();
  SmallVector<unsigned> position(numOps);
  for (auto [at, op] : llvm::enumerate(order))
    position[op] = at;
  SmallVector<unsigned> lastUse(numValues);
  for (auto [index, value] : llvm::enumerate(graph.values)) {
    lastUse[index] = value.liveOut ? numOps : position[value.def];
    for (unsigned user : value.users)
      lastUse[index] = std::max(lastUse[index], position[user]);
  }

  // Buffers: one per value at first, merged (union-find) as the plan does.
  struct Buffer {
    unsigned parent, first, last;
    uint64_t bytes;
  };
  SmallVector<Buffer> buffers;
  for (auto [index, value] : llvm::enumerate(graph.values))
    buffers.push_back({static_cast<unsigned>(index), position[value.def],
                       lastUse[index], value.bytes});
  auto find = [&](unsigned value) {
    while (buffers[value].parent != value)
      value = buffers[value].parent = buffers[buffers[value].parent].parent;
    return value;
  };
  auto merge = [&](unsigned from, unsigned into) {
    from = find(from);
    into = find(into);
    if (from == into)
      return;
    buffers[from].parent = into;
    buffers[into].first = std::min(buffers[into].first, buffers[from].first);
    buffers[into].last = std::max(buffers[into].last, buffers[from].last);
  };
  for (auto [at, opIndex] : llvm::enumerate(order)) {
    const Graph::OpInfo &op = graph.ops[opIndex];
    SmallVector<unsigned, 2> taken;
    for (auto [result, candidates] : llvm::zip(op.results, op.inPlace)) {
      auto over = llvm::find_if(candidates, [&](unsigned operand) {
        return graph.values[operand].concat == Graph::kNone &&
               lastUse[operand] == at &&
               !llvm::is_contained(taken, find(operand)) &&
               graph.values[operand].bytes == graph.values[result].bytes;
      });
      if (over != candidates.end()) {
        taken.push_back(find(*over));
        merge(result, *over);
      }
      if (unsigned concat = graph.values[result].concat;
          concat != Graph::kNone && concat != result) {
        // The concat's buffer, of the concat's size, holds the operand.
        buffers[find(result)].bytes = 0;
        merge(result, concat);
      }
    }
  }

  SmallVector<int64_t> delta(numOps + 2, 0);
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (find(index) != index)
      continue;
    delta[buffer.first] += buffer.bytes;
    delta[std::min<size_t>(buffer.last, numOps) + 1] -= buffer.bytes;
  }
  uint64_t peak = 0;
  int64_t live = 0;
  for (unsigned at = 0; at < numOps; ++at) {
    live += delta[at];
    peak = std::max(peak, static_cast<uint64_t>(live) +
                              graph.ops[order[at]].workspace);
  }
  return peak;
}

/// List scheduling: the ready op with the highest key runs next. Keys
/// depend on the bytes an op frees net of what it allocates, given which
/// of its operands it reads last.
class ListScheduler {
public:
  enum class Policy { FreeFirst, FreesAsap };

  ListScheduler(const Graph &graph, Policy policy)
      : graph(graph), policy(policy), pending(graph.ops.size()),
        version(graph.ops.size(), 0),
        readersLeft(graph.values.size()) {
    for (auto [index, value] : llvm::enumerate(graph.values))
      readersLeft[index] = value.users.size();
  }

  SmallVector<unsigned> run() {
    SmallVector<unsigned> order;
    for (auto [index, op] : llvm::enumerate(graph.ops)) {
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
      const Graph::OpInfo &op = graph.ops[index];
      for (unsigned value : op.operands)
        if (--readersLeft[value] == 1)
          for (unsigned user : graph.values[value].users)
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
  int64_t netFreed(const Graph::OpInfo &op) const {
    int64_t net = 0;
    auto dies = [&](unsigned value) {
      return readersLeft[value] == 1 && !graph.values[value].liveOut;
    };
    SmallVector<unsigned, 2> taken;
    for (auto [result, candidates] : llvm::zip(op.results, op.inPlace)) {
      auto over = llvm::find_if(candidates, [&](unsigned operand) {
        return dies(operand) && !llvm::is_contained(taken, operand) &&
               graph.values[operand].bytes == graph.values[result].bytes;
      });
      if (over != candidates.end())
        taken.push_back(*over);
      else if (!graph.values[result].users.empty() ||
               graph.values[result].liveOut)
        net -= graph.values[result].bytes;
    }
    for (unsigned value : op.operands)
      if (dies(value) && !llvm::is_contained(taken, value))
        net += graph.values[value].bytes;
    return net;
  }

  void push(unsigned index) {
    int64_t net = netFreed(graph.ops[index]);
    int64_t key = policy == Policy::FreeFirst ? net : (net >= 0 ? 1 : 0);
    // Max-heap: higher key first, then the earlier op of the given order.
    ready.push({key, -static_cast<int64_t>(index), index, ++version[index]});
  }

  const Graph &graph;
  Policy policy;
  SmallVector<unsigned> pending;
  SmallVector<unsigned> version;
  SmallVector<unsigned> readersLeft;
  std::priority_queue<Entry> ready;
};

class SchedulePass : public memopt::impl::ScheduleBase<SchedulePass> {
public:
  using ScheduleBase::ScheduleBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (!parseWorkspaceTarget(target))
      return emitError(UnknownLoc::get(context))
             << "tg-schedule: unknown target '" << target
             << "': expected cpu or cuda";
    for (const std::string &name : strategies)
      if (!llvm::is_contained(kStrategies, StringRef(name)))
        return emitError(UnknownLoc::get(context))
               << "tg-schedule: unknown strategy '" << name
               << "'; expected given, free-first or frees-asap";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("tg-schedule: expected a function with one block");
      return signalPassFailure();
    }
    Block &body = function.getBody().front();
    std::optional<WorkspaceTarget> backend = parseWorkspaceTarget(target);
    FailureOr<Graph> graph = Graph::build(
        body, queryWorkspaces ? backend : std::nullopt, inPlace,
        resultBufferPlacements(function));
    if (failed(graph))
      return signalPassFailure();

    SmallVector<unsigned> given =
        llvm::to_vector(llvm::seq<unsigned>(0, graph->ops.size()));
    StringRef bestName;
    SmallVector<unsigned> best;
    uint64_t bestPeak = 0;
    SmallVector<NamedAttribute> candidates;
    Builder builder(&getContext());
    for (StringRef name : kStrategies) {
      if (!strategies.empty() && !llvm::is_contained(strategies, name.str()))
        continue;
      SmallVector<unsigned> order =
          name == "given"
              ? given
              : ListScheduler(*graph, name == "free-first"
                                          ? ListScheduler::Policy::FreeFirst
                                          : ListScheduler::Policy::FreesAsap)
                    .run();
      uint64_t peak = simulatePeak(*graph, order);
      candidates.push_back(builder.getNamedAttr(
          name, builder.getI64IntegerAttr(static_cast<int64_t>(peak))));
      if (name == "given")
        numGivenPeak = peak;
      if (bestName.empty() || peak < bestPeak) {
        bestName = name;
        best = std::move(order);
        bestPeak = peak;
      }
    }

    Operation *terminator = body.getTerminator();
    for (auto [at, index] : llvm::enumerate(best)) {
      if (at != index)
        ++numMovedOps;
      graph->ops[index].op->moveBefore(terminator);
    }
    numChosenPeak = bestPeak;
    function->setAttr(
        kScheduleAttr,
        builder.getDictionaryAttr(
            {builder.getNamedAttr("strategy",
                                  builder.getStringAttr(bestName)),
             builder.getNamedAttr(
                 "simulated_peak_bytes",
                 builder.getI64IntegerAttr(static_cast<int64_t>(bestPeak))),
             builder.getNamedAttr("candidates",
                                  builder.getDictionaryAttr(candidates))}));
  }
};

} // namespace
