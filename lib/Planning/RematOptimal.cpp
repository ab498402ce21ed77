//===- RematOptimal.cpp - tg-remat's exact strategy: a MILP under CBC -----===//
//
// `optimal`: the least recompute time whose planned arena fits a target,
// found by a mixed-integer linear program in the formulation of Checkmate
// (Jain et al., MLSys 2020) restricted to tg-remat's rewrite, over a
// coarsened graph, solved by COIN-OR CBC with a time limit; the rewritten
// step is then planned for real (ArenaPlan, in tg-schedule's order) and the
// program's budget tightened by the excess until the real arena fits.
//
// The program, on the plain step in the order tg-schedule chooses for it
// (positions 0..n-1, live bytes L(t) from the MemorySimulator):
//
// - r[u] in {0,1} per recompute unit u (a forward op's recomputable
//   results, with the cheap ops that only they feed: BatchNorm+ReLU is one
//   unit, its convolution another); cost: u's predicted seconds;
// - C[v,s] in {0,1}: the clone of recomputed value v is created at stage s
//   (Checkmate's R[t,i]). Stages are the intervals between the first
//   backward readers of the candidates, where the rewrite places clones;
//   a value's clone may be created at its own first reader's stage or at
//   those of its descendants (kCloneDepth generations), the first reader
//   of a clone that needs it. sum_s C[v,s] = r[v];
// - v is live during its gap (after its last forward reader, before its
//   first backward reader) at stage s iff 1 - r[v] + sum_{s'<=s} C[v,s']
//   (Checkmate's S[t,i]: stored, or already recomputed);
// - a clone reads its operands: if w's clone is created at s, each operand
//   v of w is live at s (stored, or its clone created by then), and past
//   v's last reader v stays live (Z[v,s], continuous) until the last
//   clone that reads it;
// - per interval of positions where these terms are constant:
//   max L(t) + sum of the terms' bytes <= M.
//
// The plan is exact for its model (CBC proves the gap); the model is the
// plain step's order with clones at their readers, so the real plan of the
// rewritten step (reordered, packed best-fit) is checked and M lowered by
// the excess, up to kMaxSolves programs.
//
// The units that nest (a chain: last forward readers in order, first
// backward readers in reverse) are also solved exactly by the chain
// dynamic program of RematChain.h (Program::chain builds it): alone where
// the whole step is such a chain, else its plan replaces the program's
// when faster. auto's plan, outside the model,
// is taken when it is faster or the program has none that fits; where
// neither fits, the program's least peak is tried.
// docs/passes/remat.md#optimal.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/RematChain.h"
#include "memopt/Planning/RematMilp.h"
#include "memopt/Planning/RematPlan.h"
#include "memopt/Planning/ScheduleOrder.h"

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

namespace {

constexpr unsigned kNone = ~0u;
/// Generations of descendants whose first readers may host a value's clone.
constexpr unsigned kCloneDepth = 3;
/// Programs solved while the real arena exceeds the target.
constexpr unsigned kMaxSolves = 5;
/// Bins of the chain's dynamic program: its bytes are counted in units of
/// the largest constraint / kChainBins (RematChain.h).
constexpr unsigned kChainBins = 256;
/// Bytes per unit of the memory rows, seconds per unit of the objective:
/// coefficients near 1 keep CBC's tolerances meaningful.
constexpr double kBytesUnit = 1e6, kSecondsUnit = 1e-6;
/// Objective per recomputed unit beyond its seconds: of two plans of equal
/// time, the one with fewer clones.
constexpr double kPerUnit = 1e-3;
/// Least-peak program: a microsecond of recompute weighs as much as this
/// many megabytes of peak (a byte per microsecond), so that of the plans of
/// (nearly) the least peak the program takes a fast one.
constexpr double kTimePerPeak = 1e-6;

/// The operands a clone of `op` reads: a recomputed BatchNorm reads the
/// saved batch statistics in place of the running ones (Remat.cpp).
SmallVector<Value> cloneOperands(Operation *op) {
  SmallVector<Value> operands(op->getOperands());
  if (auto norm = dyn_cast<tg::BatchNormOp>(op))
    for (Value &operand : operands) {
      if (operand == norm.getRunningMean())
        operand = norm.getSavedMean();
      else if (operand == norm.getRunningVar())
        operand = norm.getSavedInvStd();
    }
  return operands;
}

/// A forward value of the program: a candidate (unit != kNone) or a stored
/// value that a candidate's clone reads.
struct ModelValue {
  Value value;
  uint64_t bytes = 0;
  unsigned unit = kNone;
  /// Positions: its last forward reader (or its op), its first reader
  /// after the forward (kNone: none), its last reader.
  unsigned lastForward = 0, firstLater = kNone, lastUse = 0;
  /// Candidates whose op reads it, and those of them that may overwrite it
  /// in place.
  SmallVector<unsigned, 2> children, overwrittenBy;
  /// Stages where its clone may be created (candidates), ascending.
  SmallVector<unsigned> allowed;
  /// Stages past its last reader where a clone may still read it.
  unsigned extFirst = 1, extLast = 0;
  /// Columns: C[v, allowed[i]], Z[v, extFirst + i].
  SmallVector<unsigned> createColumns, extColumns;
};

class Program {
public:
  /// The model of `function` in the order tg-schedule chooses for it
  /// among `strategies` (all: empty).
  Program(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
          const CostModel &cost, ArrayRef<std::string> strategies = {});

  unsigned units() const { return unitOps.size(); }
  unsigned stages() const { return stageStarts.size() + 1; }

  struct Solution {
    Milp::Status status = Milp::Status::NoSolution;
    DenseSet<Value> recomputed;
    double seconds = 0, boundSeconds = 0;
    uint64_t peakBytes = 0; // minimizePeak: the program's least peak
    double solverSeconds = 0; // CBC's own wall time (Milp::Result)
  };
  /// The least-time plan whose modelled peak is at most `budget`, or with
  /// `minimizePeak`, the least modelled peak (of those, the least time).
  Solution solve(uint64_t budget, bool minimizePeak, double seconds);

  /// The units that form a nested chain, for the dynamic program
  /// (RematChain.h): `problem`'s constraints are the most live bytes of each
  /// family of positions (less a budget, they are what must be absent).
  struct Chain {
    /// Per link, in chain order: its program units (one that the
    /// backward reads, with those only it reads).
    SmallVector<SmallVector<unsigned, 2>> units;
    ChainProblem problem;
  };
  Chain chain() const;
  /// The candidate values of program units `units`.
  DenseSet<Value> valuesOf(ArrayRef<unsigned> units) const;

private:
  unsigned stageOf(unsigned position) const {
    return llvm::upper_bound(stageStarts, position) - stageStarts.begin();
  }
  /// Whether v may be absent (recomputed, clone not yet made) at stage s.
  bool inGap(const ModelValue &v, unsigned s) const {
    return v.unit != kNone && s >= stageOf(v.lastForward + 1) &&
           (v.firstLater == kNone || s < stageOf(v.firstLater));
  }
  void addValue(Value value, unsigned unit);
  /// The position of arena value `index`'s last reader (n: returned).
  unsigned lastUse(unsigned index) const;
  /// Adds the program's columns and rows to `milp` (the columns of the
  /// values are kept in them); `peakColumn`: M as a column, else `budget`.
  void build(Milp &milp, SmallVectorImpl<unsigned> &unitColumns,
             unsigned peakColumn, double budget);

  MemorySimulator simulator;
  DenseSet<Operation *> forwardOps;
  SmallVector<unsigned> position; // per op index
  DenseMap<Operation *, unsigned> opIndex;
  SmallVector<uint64_t> live;     // per position
  /// Per position: the bytes live across the point before its op (the
  /// buffers made earlier and read there or later).
  SmallVector<uint64_t> liveAcross;
  std::vector<ModelValue> values;
  DenseMap<Value, unsigned> modelIndex;
  SmallVector<SmallVector<Operation *, 2>> unitOps;
  SmallVector<double> unitSeconds;
  SmallVector<unsigned> stageStarts; // positions of first later readers
  /// Per concat result computed in slices: the arena values of its buffer.
  DenseMap<unsigned, SmallVector<unsigned, 4>> sliceMembers;
};

unsigned Program::lastUse(unsigned index) const {
  const MemorySimulator::ArenaValue &info = simulator.values()[index];
  if (info.liveOut)
    return live.size();
  unsigned last = position[info.def];
  for (unsigned user : info.users)
    last = std::max(last, position[user]);
  return last;
}

void Program::addValue(Value value, unsigned unit) {
  unsigned index = simulator.valueIndex(value);
  const MemorySimulator::ArenaValue &info = simulator.values()[index];
  ModelValue v;
  v.value = value;
  v.bytes = info.bytes;
  v.unit = unit;
  v.lastForward = position[info.def];
  for (unsigned user : info.users) {
    unsigned at = position[user];
    if (forwardOps.contains(simulator.ops()[user].op))
      v.lastForward = std::max(v.lastForward, at);
    else
      v.firstLater = std::min(v.firstLater, at);
  }
  v.lastUse = lastUse(index);
  // A concat's operand computed in its slice (cpu) shares the concat's
  // buffer: absent, it frees the whole buffer once the concat and its other
  // operands are dead.
  if (info.concat != MemorySimulator::kNone) {
    v.bytes = simulator.values()[info.concat].bytes;
    for (unsigned member : sliceMembers.lookup(info.concat))
      if (member != index)
        v.lastForward = std::max(v.lastForward, lastUse(member));
    v.lastUse = std::max(v.lastUse, v.lastForward);
  }
  modelIndex[value] = values.size();
  values.push_back(std::move(v));
}

Program::Program(func::FuncOp function, ArrayRef<Operation *> forward,
                 bool inPlace, const CostModel &cost,
                 ArrayRef<std::string> strategies)
    : simulator(function, inPlace), forwardOps(forward.begin(), forward.end()) {
  SmallVector<unsigned> order = chooseSchedule(simulator, strategies).order;
  position.resize(order.size());
  for (auto [index, op] : llvm::enumerate(simulator.ops()))
    opIndex[op.op] = index;
  for (auto [at, op] : llvm::enumerate(order))
    position[op] = at;
  live = simulator.liveBytes(order);
  liveAcross.assign(order.size() + 1, 0);
  for (const MemorySimulator::Buffer &buffer : simulator.layout(order).buffers)
    if (buffer.workspaceOf == MemorySimulator::kNone)
      for (unsigned at = buffer.first + 1;
           at <= std::min<unsigned>(buffer.last, order.size() - 1); ++at)
        liveAcross[at] += buffer.bytes;
  for (auto [index, value] : llvm::enumerate(simulator.values()))
    if (value.concat != MemorySimulator::kNone)
      sliceMembers[value.concat].push_back(index);

  // Candidates: recomputable forward results in the arena which a gap
  // separates from their first later reader. Where the plan writes in
  // place, a concat is not one: the model counts it through its operands
  // computed in its slices (addValue), stored or absent with them.
  DenseMap<Operation *, SmallVector<unsigned, 2>> candidatesOf;
  for (Operation *op : forward)
    for (OpResult result : op->getResults()) {
      unsigned index = simulator.valueIndex(result);
      if (index == MemorySimulator::kNone || !isRecomputable(result) ||
          (inPlace && isa<tg::ConcatOp>(op)) || returned(result))
        continue;
      addValue(result, kNone);
      ModelValue &v = values.back();
      if (v.firstLater != kNone && v.firstLater <= v.lastForward + 1) {
        modelIndex.erase(result);
        values.pop_back();
        continue;
      }
      candidatesOf[op].push_back(values.size() - 1);
    }
  unsigned candidates = values.size();

  // Units: the results of one op; a cheap op's with the cheap candidate
  // operands that feed it alone (BatchNorm and its ReLU).
  llvm::EquivalenceClasses<unsigned> classes;
  for (unsigned i = 0; i < candidates; ++i)
    classes.insert(i);
  for (auto &[op, results] : candidatesOf) {
    for (unsigned i : results)
      classes.unionSets(results.front(), i);
    if (!isCheapToRecompute(op))
      continue;
    for (Value operand : cloneOperands(op)) {
      auto it = modelIndex.find(operand);
      Operation *owner = operand.getDefiningOp();
      if (it != modelIndex.end() && isCheapToRecompute(owner) &&
          operand.hasOneUse())
        classes.unionSets(results.front(), it->second);
    }
  }
  DenseMap<unsigned, unsigned> unitOfLeader;
  for (unsigned i = 0; i < candidates; ++i) {
    unsigned leader = classes.getLeaderValue(i);
    auto [it, inserted] = unitOfLeader.try_emplace(leader, unitOps.size());
    if (inserted) {
      unitOps.emplace_back();
      unitSeconds.push_back(0);
    }
    values[i].unit = it->second;
    Operation *op = values[i].value.getDefiningOp();
    if (!llvm::is_contained(unitOps[it->second], op)) {
      unitOps[it->second].push_back(op);
      unitSeconds[it->second] += cost.cost(op).seconds;
    }
  }

  // The operands the clones read: candidates, or stored forward values.
  for (unsigned w = 0; w < candidates; ++w)
    for (Value operand : cloneOperands(values[w].value.getDefiningOp())) {
      auto result = dyn_cast<OpResult>(operand);
      if (!result || !forwardOps.contains(result.getOwner()) ||
          simulator.valueIndex(operand) == MemorySimulator::kNone)
        continue;
      if (!modelIndex.count(operand))
        addValue(operand, kNone);
      ModelValue &v = values[modelIndex[operand]];
      if (llvm::is_contained(v.children, w))
        continue;
      v.children.push_back(w);
      // A clone that may write over v in place (cpu: a ReLU over its
      // BatchNorm) adds no bytes where v has no later reader of its own.
      unsigned index = simulator.valueIndex(operand);
      const MemorySimulator::Op &op =
          simulator.ops()[opIndex.lookup(values[w].value.getDefiningOp())];
      if (v.firstLater == kNone &&
          llvm::any_of(op.inPlace, [&](const auto &options) {
            return llvm::any_of(options, [&](const auto &option) {
              return option.second == index;
            });
          }))
        v.overwrittenBy.push_back(w);
    }

  // Stages: clones are created right before a first later reader.
  for (unsigned i = 0; i < candidates; ++i)
    if (values[i].firstLater != kNone)
      stageStarts.push_back(values[i].firstLater);
  llvm::sort(stageStarts);
  stageStarts.erase(std::unique(stageStarts.begin(), stageStarts.end()),
                    stageStarts.end());

  // Where each candidate's clone may be created: its first reader's stage,
  // or one of its descendants' (the first reader of a clone reading it).
  for (unsigned w = 0; w < candidates; ++w) {
    ModelValue &v = values[w];
    SmallVector<unsigned> generation{w}, seen{w};
    for (unsigned depth = 0; depth <= kCloneDepth && !generation.empty();
         ++depth) {
      SmallVector<unsigned> next;
      for (unsigned d : generation) {
        if (values[d].firstLater != kNone) {
          unsigned s = stageOf(values[d].firstLater);
          if (inGap(v, s) || (v.firstLater != kNone &&
                              s == stageOf(v.firstLater)) ||
              (v.firstLater == kNone && s >= stageOf(v.lastForward + 1)))
            v.allowed.push_back(s);
        }
        for (unsigned child : values[d].children)
          if (!llvm::is_contained(seen, child)) {
            seen.push_back(child);
            next.push_back(child);
          }
      }
      generation = std::move(next);
    }
    llvm::sort(v.allowed);
    v.allowed.erase(std::unique(v.allowed.begin(), v.allowed.end()),
                    v.allowed.end());
  }
  // Past its last reader, a value lives on for the clones that read it.
  for (ModelValue &v : values) {
    if (v.children.empty() || v.lastUse >= live.size())
      continue;
    v.extFirst = stageOf(v.lastUse + 1);
    v.extLast = 0;
    for (unsigned child : v.children)
      if (!values[child].allowed.empty())
        v.extLast = std::max(v.extLast, values[child].allowed.back());
    if (v.extLast < v.extFirst)
      v.extFirst = 1, v.extLast = 0;
  }
}

void Program::build(Milp &milp, SmallVectorImpl<unsigned> &unitColumns,
                    unsigned peakColumn, double budget) {
  using Sense = Milp::Sense;
  for (unsigned u = 0; u < units(); ++u)
    unitColumns.push_back(milp.addColumn(
        0, 1,
        (unitSeconds[u] / kSecondsUnit + kPerUnit) *
            (peakColumn == kNone ? 1 : kTimePerPeak),
        /*integer=*/true));
  for (ModelValue &v : values) {
    v.createColumns.clear();
    v.extColumns.clear();
    for (unsigned s = 0; s < v.allowed.size(); ++s)
      v.createColumns.push_back(milp.addColumn(0, 1, 0, true));
    // Per stage: live through it, and live where it starts (the clones
    // made there read it; they free it before the stage's first op).
    for (unsigned s = v.extFirst; s <= v.extLast; ++s) {
      v.extColumns.push_back(milp.addColumn(0, 1, 0, false));
      v.extColumns.push_back(milp.addColumn(0, 1, 0, false));
    }
  }
  // sum_s C[v,s] = r[v] (<= without a later reader: made only if needed).
  for (const ModelValue &v : values) {
    if (v.unit == kNone)
      continue;
    SmallVector<std::pair<unsigned, double>> terms{{unitColumns[v.unit], -1}};
    for (unsigned column : v.createColumns)
      terms.push_back({column, 1});
    milp.addRow(terms, v.firstLater != kNone ? Sense::Equal : Sense::AtMost,
                0);
  }
  // sum_{s' <= s} C[v,s'] as terms.
  auto createdBy = [&](const ModelValue &v, unsigned s,
                       SmallVectorImpl<std::pair<unsigned, double>> &terms,
                       double scale) {
    for (auto [i, stage] : llvm::enumerate(v.allowed))
      if (stage <= s)
        terms.push_back({v.createColumns[i], scale});
  };
  for (const ModelValue &v : values)
    for (unsigned w : v.children) {
      const ModelValue &child = values[w];
      for (auto [i, s] : llvm::enumerate(child.allowed)) {
        // The clone of w created at s reads v: v is live there.
        if (inGap(v, s) || (v.unit != kNone && v.firstLater == kNone)) {
          SmallVector<std::pair<unsigned, double>> terms{
              {child.createColumns[i], -1}, {unitColumns[v.unit], -1}};
          createdBy(v, s, terms, 1);
          milp.addRow(terms, Sense::AtLeast, -1);
        }
      }
      // Past v's last reader: live through stage s while a clone reading it
      // is made after s (stored, or its own clone made by then), and at the
      // start of s if one is made there.
      for (unsigned s = v.extFirst; s <= v.extLast; ++s) {
        unsigned strict = v.extColumns[2 * (s - v.extFirst)];
        unsigned point = strict + 1;
        SmallVector<std::pair<unsigned, double>> later;
        for (auto [i, stage] : llvm::enumerate(child.allowed)) {
          if (stage > s)
            later.push_back({child.createColumns[i], -1});
          else if (stage == s && !llvm::is_contained(v.overwrittenBy, w))
            milp.addRow({{point, 1}, {child.createColumns[i], -1}},
                        Sense::AtLeast, 0);
        }
        if (later.empty())
          continue;
        SmallVector<std::pair<unsigned, double>> terms(later);
        terms.push_back({strict, 1});
        bool madeLater = v.unit != kNone && v.firstLater == kNone;
        if (madeLater)
          terms.push_back({unitColumns[v.unit], 1});
        milp.addRow(terms, Sense::AtLeast, 0);
        if (madeLater) {
          SmallVector<std::pair<unsigned, double>> made(later);
          made.push_back({strict, 1});
          createdBy(v, s, made, -1);
          milp.addRow(made, Sense::AtLeast, -1);
        }
      }
    }
  for (const ModelValue &v : values)
    for (unsigned s = v.extFirst; s <= v.extLast; ++s) {
      unsigned strict = v.extColumns[2 * (s - v.extFirst)];
      milp.addRow({{strict + 1, 1}, {strict, -1}}, Sense::AtLeast, 0);
    }

  // Memory, per interval of positions where every term is constant.
  SmallVector<unsigned> cuts{0, static_cast<unsigned>(live.size())};
  llvm::append_range(cuts, stageStarts);
  for (const ModelValue &v : values) {
    if (v.unit != kNone) {
      cuts.push_back(v.lastForward + 1);
      if (v.firstLater != kNone)
        cuts.push_back(v.firstLater);
    }
    if (v.extFirst <= v.extLast)
      cuts.push_back(v.lastUse + 1);
  }
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (unsigned c = 0; c + 1 < cuts.size(); ++c) {
    unsigned lo = cuts[c], hi = std::min<unsigned>(cuts[c + 1], live.size());
    if (lo >= hi)
      continue;
    uint64_t plain = *std::max_element(live.begin() + lo, live.begin() + hi);
    unsigned s = stageOf(lo);
    // During the interval; at a stage's start, also where its clones run
    // (before its first op: the bytes live across that point).
    bool stageStart = llvm::binary_search(stageStarts, lo);
    for (bool atPoint : {false, true}) {
      if (atPoint && !stageStart)
        break;
      SmallVector<std::pair<unsigned, double>> terms;
      for (const ModelValue &v : values) {
        double bytes = static_cast<double>(v.bytes) / kBytesUnit;
        if (v.unit != kNone && lo > v.lastForward &&
            (v.firstLater == kNone ? lo <= v.lastUse : lo < v.firstLater)) {
          terms.push_back({unitColumns[v.unit], -bytes});
          createdBy(v, s, terms, bytes);
        } else if (lo > v.lastUse && s >= v.extFirst && s <= v.extLast) {
          terms.push_back(
              {v.extColumns[2 * (s - v.extFirst) + (atPoint ? 1 : 0)], bytes});
        }
      }
      double rest =
          static_cast<double>(atPoint ? liveAcross[lo] : plain) / kBytesUnit;
      if (peakColumn != kNone) {
        terms.push_back({peakColumn, -1});
        milp.addRow(terms, Sense::AtMost, -rest);
      } else if (!terms.empty() || rest > budget) {
        milp.addRow(terms, Sense::AtMost, budget - rest);
      }
    }
  }
}

Program::Chain Program::chain() const {
  const unsigned n = units();
  // Per unit: its last forward reader, its first later reader, and the
  // bytes of its values that a later reader reads (those it frees).
  SmallVector<unsigned> lastForward(n, 0), firstLater(n, kNone);
  SmallVector<uint64_t> bytes(n, 0);
  // A unit that no later op reads (a convolution under its ReLU) is not
  // stored: dead after the forward, it is recomputed with the one unit
  // that reads it, or not at all. Such a unit joins its reader's group.
  SmallVector<unsigned> group(n);
  for (unsigned u = 0; u < n; ++u)
    group[u] = u;
  SmallVector<bool> read(n, false);
  for (const ModelValue &v : values)
    if (v.unit != kNone && v.firstLater != kNone)
      read[v.unit] = true;
  for (unsigned d = 0; d < n; ++d) {
    if (read[d])
      continue;
    SmallVector<unsigned, 2> readers;
    for (const ModelValue &v : values)
      if (v.unit == d)
        for (unsigned child : v.children)
          if (values[child].unit != d &&
              !llvm::is_contained(readers, values[child].unit))
            readers.push_back(values[child].unit);
    if (readers.size() == 1)
      group[d] = readers.front();
  }
  auto root = [&](unsigned u) {
    for (unsigned steps = 0; group[u] != u && steps < n; ++steps)
      u = group[u];
    return u;
  };
  SmallVector<SmallVector<unsigned, 2>> members(n);
  SmallVector<double> seconds(n, 0);
  for (unsigned u = 0; u < n; ++u) {
    members[root(u)].push_back(u);
    seconds[root(u)] += unitSeconds[u];
  }
  for (const ModelValue &v : values) {
    if (v.unit == kNone)
      continue;
    unsigned g = root(v.unit);
    lastForward[g] = std::max(lastForward[g], v.lastForward);
    if (v.firstLater != kNone) {
      firstLater[g] = std::min(firstLater[g], v.firstLater);
      bytes[g] += v.bytes;
    }
  }
  // Nesting: the chain of the most bytes whose last forward readers come in
  // order and first later readers in reverse order (a weighted longest
  // decreasing subsequence, O(n^2)); the other units stay stored.
  SmallVector<unsigned> order;
  for (unsigned u = 0; u < n; ++u)
    if (firstLater[u] != kNone && lastForward[u] < firstLater[u])
      order.push_back(u);
  llvm::sort(order, [&](unsigned a, unsigned b) {
    return std::make_pair(lastForward[a], firstLater[b]) <
           std::make_pair(lastForward[b], firstLater[a]);
  });
  SmallVector<uint64_t> best(order.size());
  SmallVector<unsigned> previous(order.size(), kNone);
  unsigned last = kNone;
  for (unsigned i = 0; i < order.size(); ++i) {
    best[i] = bytes[order[i]];
    for (unsigned j = 0; j < i; ++j)
      if (firstLater[order[j]] >= firstLater[order[i]] &&
          best[j] + bytes[order[i]] > best[i]) {
        best[i] = best[j] + bytes[order[i]];
        previous[i] = j;
      }
    if (last == kNone || best[i] > best[last])
      last = i;
  }
  SmallVector<unsigned> chain;
  for (unsigned i = last; i != kNone; i = previous[i])
    chain.push_back(order[i]);
  std::reverse(chain.begin(), chain.end());

  // A recomputed unit's clone reads its operands when its run is
  // recreated: each must be the previous unit of the chain (recreated with
  // it, or stored), or a stored value live anyway then. A chain unit that a
  // later one reads (a skip connection) is stored; a unit reading a value
  // dead by then stays stored. Until nothing changes.
  DenseMap<unsigned, unsigned> at;
  SmallVector<bool> linked;
  for (bool changed = true; changed;) {
    changed = false;
    at.clear();
    for (auto [k, u] : llvm::enumerate(chain))
      at[u] = k;
    linked.assign(chain.size(), false);
    DenseSet<unsigned> drop;
    for (auto [k, w] : llvm::enumerate(chain))
      for (unsigned member : members[w])
        for (Operation *op : unitOps[member])
          for (Value operand : cloneOperands(op)) {
            auto it = modelIndex.find(operand);
            if (it == modelIndex.end())
              continue;
            const ModelValue &v = values[it->second];
            unsigned owner = v.unit == kNone ? kNone : root(v.unit);
            if (owner == w)
              continue;
            auto inChain = at.find(owner);
            if (owner != kNone && inChain != at.end()) {
              if (inChain->second + 1 == k && v.lastUse >= firstLater[w]) {
                linked[k] = true;
                continue;
              }
              if (inChain->second + 1 != k) {
                drop.insert(owner);
                continue;
              }
            }
            if (v.lastUse < firstLater[w])
              drop.insert(w);
          }
    if (!drop.empty()) {
      llvm::erase_if(chain, [&](unsigned u) { return drop.contains(u); });
      changed = true;
    }
  }

  Chain result;
  for (unsigned g : chain)
    result.units.emplace_back(members[g].begin(), members[g].end());
  const unsigned m = chain.size();
  for (unsigned k = 0; k < m; ++k)
    result.problem.units.push_back(
        {bytes[chain[k]], seconds[chain[k]], linked[k]});
  result.problem.forward.assign(m + 1, 0);
  result.problem.backward.assign(m + 1, 0);
  if (m == 0)
    return result;
  // Each position's family: before the last unit's first later reader, the
  // units whose last forward reader precedes it are absent if recomputed
  // (forward[a]); from there on, those of runs recreated after it
  // (backward[b]: the units whose first later reader follows it).
  SmallVector<unsigned> forwardAt, laterAt;
  for (unsigned u : chain) {
    forwardAt.push_back(lastForward[u]);
    laterAt.push_back(firstLater[u]);
  }
  for (unsigned t = 0; t < live.size(); ++t) {
    int64_t bytesAt = static_cast<int64_t>(std::max(live[t], liveAcross[t]));
    if (t < laterAt.back()) {
      unsigned a = llvm::lower_bound(forwardAt, t) - forwardAt.begin();
      result.problem.forward[a] = std::max(result.problem.forward[a], bytesAt);
    } else {
      unsigned b = llvm::count_if(laterAt, [&](unsigned f) { return f > t; });
      result.problem.backward[b] =
          std::max(result.problem.backward[b], bytesAt);
    }
  }
  return result;
}

DenseSet<Value> Program::valuesOf(ArrayRef<unsigned> units) const {
  DenseSet<Value> result;
  for (const ModelValue &v : values)
    if (v.unit != kNone && llvm::is_contained(units, v.unit))
      result.insert(v.value);
  return result;
}

Program::Solution Program::solve(uint64_t budget, bool minimizePeak,
                                 double seconds) {
  Milp milp;
  SmallVector<unsigned> unitColumns;
  unsigned peakColumn =
      minimizePeak ? milp.addColumn(0, std::numeric_limits<double>::infinity(),
                                    1, false)
                   : kNone;
  build(milp, unitColumns, peakColumn,
        static_cast<double>(budget) / kBytesUnit);
  // Recomputing nothing is feasible at the plain peak: CBC starts there.
  if (minimizePeak) {
    std::vector<double> plain(milp.columns(), 0);
    plain[peakColumn] =
        static_cast<double>(std::max(*llvm::max_element(live),
                                     *llvm::max_element(liveAcross))) /
        kBytesUnit;
    milp.setStart(std::move(plain));
  }
  Milp::Result result = milp.solve(seconds);
  Solution solution;
  solution.status = result.status;
  solution.solverSeconds = result.seconds;
  if (result.values.empty())
    return solution;
  for (unsigned u = 0; u < units(); ++u) {
    if (result.values[unitColumns[u]] < 0.5)
      continue;
    solution.seconds += unitSeconds[u];
    for (const ModelValue &v : values)
      if (v.unit == u)
        solution.recomputed.insert(v.value);
  }
  if (minimizePeak)
    solution.peakBytes = static_cast<uint64_t>(
        std::ceil(result.values[peakColumn] * kBytesUnit));
  else
    solution.boundSeconds =
        std::min(solution.seconds, result.bound * kSecondsUnit);
  return solution;
}

} // namespace

OptimalPlan memopt::remat::planOptimal(func::FuncOp function,
                                       ArrayRef<Operation *> forward,
                                       bool inPlace, uint64_t arenaTarget,
                                       const CostModel &cost,
                                       double timeLimit) {
  double solverSeconds = 0;
  // A share of the time limit, less what CBC spent so far.
  // At least a tenth of the limit: CBC may overrun its limit in its root
  // node, and a program cut short before its first solution says nothing.
  auto within = [&](double share) {
    return std::max(timeLimit * 0.1, timeLimit * share - solverSeconds);
  };
  auto arenaOf = [&](const DenseSet<Value> &recomputed) {
    return plannedArena(function, forward, inPlace, recomputed,
                        /*privateAncestors=*/false, /*nested=*/{},
                        /*cuts=*/Cuts(), cost);
  };

  OptimalPlan plan;
  plan.arenaBytes = arenaOf({});
  plan.milpBudgetBytes = arenaTarget;
  if (plan.arenaBytes <= arenaTarget) {
    plan.fits = true;
    return plan;
  }
  Program program(function, forward, inPlace, cost);
  plan.units = program.units();
  plan.stages = program.stages();
  auto solve = [&](uint64_t budget, bool minimizePeak, double seconds) {
    Program::Solution solution = program.solve(budget, minimizePeak, seconds);
    solverSeconds += solution.solverSeconds;
    ++plan.solves;
    return solution;
  };
  auto solved = [](const Program::Solution &solution) {
    return solution.status == Milp::Status::Optimal ||
           solution.status == Milp::Status::Feasible;
  };
  // A plan of the program whose real arena fits; `status` as OptimalPlan's.
  auto accept = [&](const Program::Solution &solution, uint64_t arena,
                    StringRef status) {
    plan.fits = true;
    plan.solver = "milp";
    plan.recomputed = solution.recomputed;
    plan.arenaBytes = arena;
    plan.seconds = solution.seconds;
    plan.boundSeconds = solution.boundSeconds;
    plan.status = status.str();
  };
  auto byStatus = [](const Program::Solution &solution) {
    return solution.status == Milp::Status::Optimal ? "optimal"
                                                    : "time_limit";
  };
  // The chain's dynamic program (RematChain.h) over the units that nest.
  // Its model is the plain step in the better of tg-schedule's two list
  // orders: the given order keeps every weight gradient until the updates
  // at its end, a tail that a rewritten step whose forward peak is gone no
  // longer takes (tg-schedule then picks a list order, updates right after
  // their gradients).
  Program chainProgram(function, forward, inPlace, cost,
                       {"free-first", "frees-asap"});
  Program::Chain chain = chainProgram.chain();
  auto chainAt = [&](uint64_t budget) {
    ChainProblem problem = chain.problem;
    for (std::vector<int64_t> *needs : {&problem.forward, &problem.backward})
      for (int64_t &need : *needs)
        need -= static_cast<int64_t>(budget);
    ChainSolution solution = solveChain(problem, kChainBins);
    ++plan.chainSolves;
    SmallVector<unsigned> chosen;
    for (auto [k, link] : llvm::enumerate(chain.units))
      if (solution.feasible && solution.recomputed[k])
        llvm::append_range(chosen, link);
    return std::make_pair(solution, chainProgram.valuesOf(chosen));
  };
  auto acceptChain = [&](const ChainSolution &solution,
                         DenseSet<Value> recomputed, uint64_t arena,
                         uint64_t budget, StringRef status) {
    plan.fits = true;
    plan.recomputed = std::move(recomputed);
    plan.arenaBytes = arena;
    plan.milpBudgetBytes = budget;
    plan.seconds = plan.boundSeconds = solution.seconds;
    plan.status = status.str();
    plan.solver = "dp";
    plan.binBytes = solution.binBytes;
  };
  // Its plan at the target, M lowered by the real excess; only while it
  // would be faster than the plan in hand (lowering M never makes it
  // faster, so the first solve decides).
  auto chainPlan = [&]() {
    if (chain.units.empty())
      return;
    uint64_t budget = arenaTarget, step = 0;
    DenseSet<Value> previous;
    for (unsigned i = 0; i < kMaxSolves; ++i) {
      auto [solution, recomputed] = chainAt(budget);
      if (!solution.feasible || recomputed.empty() ||
          (plan.fits && solution.seconds >= plan.seconds))
        return;
      // The same set again (the excess was below a bin): lower twice as
      // far rather than plan it again.
      if (recomputed == previous) {
        step *= 2;
      } else {
        uint64_t arena = arenaOf(recomputed);
        if (arena <= arenaTarget) {
          acceptChain(solution, std::move(recomputed), arena, budget,
                      "optimal");
          return;
        }
        step = arena - arenaTarget;
        previous = std::move(recomputed);
      }
      if (step >= budget)
        return;
      budget -= step;
    }
  };
  // The program's plan: at the target, with the budget lowered by the
  // real excess until it fits.
  auto programPlan = [&]() -> bool {
    uint64_t budget = arenaTarget;
    for (unsigned i = 0; i < kMaxSolves; ++i) {
      // 60 % of the time at most: the rest for the least-peak program.
      Program::Solution solution =
          solve(budget, /*minimizePeak=*/false, within(0.6));
      // Not faster than the chain's plan: the chain's stays.
      if (!solved(solution) ||
          (plan.fits && solution.seconds >= plan.seconds))
        return false;
      uint64_t arena = arenaOf(solution.recomputed);
      if (!plan.fits || arena <= arenaTarget)
        plan.milpBudgetBytes = budget;
      if (arena <= arenaTarget) {
        accept(solution, arena, byStatus(solution));
        return true;
      }
      uint64_t excess = arena - arenaTarget;
      if (excess >= budget)
        return false;
      budget -= excess;
    }
    return false;
  };
  // Where every unit is in the chain (the step is a chain), the chain's
  // plan is exact for the rewrite: CBC runs only if it has none. Else the
  // program's plan comes first and the chain's replaces it when faster.
  unsigned chained = 0;
  for (const auto &link : chain.units)
    chained += link.size();
  plan.chainUnits = chained;
  if (chained == program.units()) {
    chainPlan();
    if (!plan.fits)
      programPlan();
  } else {
    programPlan();
    chainPlan();
  }
  bool fromProgram = plan.fits;

  // auto's plan for the target (private clones of cheap operands where
  // the plan does not write in place): the program's model is the plain
  // step's order with the clones' bytes at their stages' start, so its
  // optimum is the optimum of that model, and a plan outside it may be
  // faster. The faster plan that fits is taken; auto's has no bound.
  AutoPlan greedy = planAuto(function, forward, inPlace, arenaTarget, cost);
  double greedySeconds = 0;
  if (greedy.fits)
    plannedArena(function, forward, inPlace, greedy.recomputed,
                 greedy.privateClones, greedy.nested, greedy.cuts, cost,
                 &greedySeconds);
  if (greedy.fits && (!fromProgram || greedySeconds < plan.seconds)) {
    plan.fits = true;
    plan.recomputed = std::move(greedy.recomputed);
    plan.nested = std::move(greedy.nested);
    plan.cuts = std::move(greedy.cuts);
    plan.arenaBytes = greedy.arenaBytes;
    plan.status = "greedy";
    plan.solver = "auto";
    plan.privateClones = greedy.privateClones;
    plan.seconds = greedySeconds;
    plan.boundSeconds = 0;
    return plan;
  }
  if (fromProgram)
    return plan;

  // Out of everyone's reach so far: the chain's least peak (a bisection on
  // its budget, to a thousandth of the plain peak), planned for real; it
  // depends on nothing but the step, so a budget of its arena fits.
  std::optional<uint64_t> provenArena;
  if (!chain.units.empty()) {
    int64_t high = 0;
    for (const std::vector<int64_t> *needs :
         {&chain.problem.forward, &chain.problem.backward})
      high = std::max(high, *llvm::max_element(*needs));
    uint64_t low = 0, feasibleAt = high;
    while (feasibleAt - low > std::max<uint64_t>(feasibleAt / 1000, 1)) {
      uint64_t middle = low + (feasibleAt - low) / 2;
      if (chainAt(middle).first.feasible)
        feasibleAt = middle;
      else
        low = middle;
    }
    auto [solution, recomputed] = chainAt(feasibleAt);
    if (solution.feasible && !recomputed.empty()) {
      uint64_t arena = arenaOf(recomputed);
      if (arena <= arenaTarget) {
        acceptChain(solution, std::move(recomputed), arena, feasibleAt,
                    "least_peak");
        plan.boundSeconds = 0;
        return plan;
      }
      provenArena = arena;
    }
  }
  // Then the least peak of the program (of equal peaks, the least time),
  // planned for real; it proves no bound on the time. Then the least time
  // at that peak.
  Program::Solution least = solve(0, /*minimizePeak=*/true, within(0.8));
  if (solved(least) && !least.recomputed.empty()) {
    plan.milpBudgetBytes = least.peakBytes;
    uint64_t leastArena = arenaOf(least.recomputed);
    if (leastArena <= arenaTarget) {
      accept(least, leastArena, "least_peak");
      return plan;
    }
    // Of a proven least peak, the real arena: the same program proves the
    // same plan again (one thread), so a budget of that size fits.
    if (least.status == Milp::Status::Optimal)
      provenArena = std::min(provenArena.value_or(leastArena), leastArena);
    // A margin of 0.1 %: CBC's tolerances would otherwise cut the
    // least-peak plan off.
    uint64_t budget = least.peakBytes + least.peakBytes / 1000;
    Program::Solution cheapest =
        solve(budget, /*minimizePeak=*/false, within(1.0));
    if (solved(cheapest)) {
      uint64_t arena = arenaOf(cheapest.recomputed);
      if (arena <= arenaTarget) {
        plan.milpBudgetBytes = budget;
        accept(cheapest, arena, byStatus(cheapest));
        return plan;
      }
    }
  }
  // The smallest arena reached by a reproducible step (the plain plan, the
  // greedy's, a proven least peak's; not one CBC found in its time): a
  // budget of its size fits.
  plan.arenaBytes = std::min(plan.arenaBytes, greedy.arenaBytes);
  if (provenArena)
    plan.arenaBytes = std::min(plan.arenaBytes, *provenArena);
  return plan;
}
