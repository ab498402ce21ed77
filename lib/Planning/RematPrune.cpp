//===- RematPrune.cpp - auto's prune --------------------------------------===//
//
// Storing back what a fitting plan need not recompute or offload, one fit
// test (a trial and a packing) per store, tests run ahead on idle planner
// threads (planAlongside) and failed ones remembered (PruneMemo).
//
//===----------------------------------------------------------------------===//

#include "RematPrune.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Planning/PlannerThreads.h"

#include <algorithm>
#include <atomic>

using namespace mlir;
using namespace memopt;
using namespace memopt::remat;

PruneMemo::Key PruneMemo::key(uint64_t target, bool privateAncestors,
                              const DenseSet<Value> &chosen,
                              const DenseSet<Value> &nested, const Cuts &cuts,
                              const DenseSet<Value> &offloaded,
                              const DenseSet<Value> &synchronous,
                              const DenseSet<Operation *> &lean) {
  Key key{static_cast<uintptr_t>(target), privateAncestors};
  // Each set as its size, then its sorted elements.
  auto append = [&](auto &&addresses) {
    size_t at = key.size();
    key.push_back(0);
    for (uintptr_t address : addresses)
      key.push_back(address);
    std::sort(key.begin() + at + 1, key.end());
    key[at] = key.size() - at - 1;
  };
  auto ofValues = [](const DenseSet<Value> &set) {
    return llvm::map_range(set, [](Value value) {
      return reinterpret_cast<uintptr_t>(value.getAsOpaquePointer());
    });
  };
  append(ofValues(chosen));
  append(ofValues(nested));
  append(ofValues(offloaded));
  append(ofValues(synchronous));
  append(llvm::map_range(
      lean, [](Operation *op) { return reinterpret_cast<uintptr_t>(op); }));
  SmallVector<std::pair<uintptr_t, ArrayRef<unsigned>>> cut;
  for (const auto &[value, positions] : cuts)
    cut.push_back(
        {reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()), positions});
  llvm::sort(cut,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  key.push_back(cut.size());
  for (const auto &[value, positions] : cut) {
    key.push_back(value);
    key.push_back(positions.size());
    key.insert(key.end(), positions.begin(), positions.end());
  }
  return key;
}

namespace memopt::remat::detail {

/// The greedy adds values one group at a time, so a value chosen early
/// may be needless once later ones are recomputed. Stores them again (and
/// gives lean workspaces back their full size), the most expensive first
/// (`perByte`: the most seconds per byte stored first), while the arena
/// still fits (one trial each, a value with its microbatches' copies:
/// options.ties); those of `keep` (an exchange's start, pruned already)
/// stay.
void prune(func::FuncOp function, ArrayRef<Operation *> forward, bool inPlace,
           uint64_t arenaTarget, const CostModel &cost,
           const AutoOptions &options, DenseSet<Value> &chosen,
           DenseSet<Value> &nested, Cuts &cuts, DenseSet<Value> &offloaded,
           DenseSet<Value> &synchronous, DenseSet<Operation *> &lean,
           uint64_t &arenaBytes, const AutoPlan *keep, bool perByte,
           bool skipHopeless) {
  // A value, or a lean op (null value).
  struct Choice {
    double seconds;
    Value value;
    Operation *lean;
  };
  // An offload costs at most its two copies; a lean workspace frees the
  // bytes leanSavings says.
  auto per = [&](double seconds, uint64_t bytes) {
    return perByte ? seconds / std::max<double>(bytes, 1) : seconds;
  };
  const MicrobatchTies none;
  const MicrobatchTies &ties = options.ties ? *options.ties : none;
  // A value stands for the copies of it in `set`: the first of them.
  auto standsFor = [&](const DenseSet<Value> &set, Value value) {
    return *llvm::find_if(ties.copiesOf(value), [&](Value copy) {
      return set.contains(copy);
    }) == value;
  };
  SmallVector<Choice> byCost;
  for (Value value : chosen)
    if ((!keep || !keep->recomputed.contains(value)) &&
        standsFor(chosen, value))
      byCost.push_back(
          {per(cost.cost(value.getDefiningOp()).seconds, tensorBytes(value)),
           value,
           {}});
  for (Value value : offloaded)
    if ((!keep || !keep->offloaded.contains(value)) &&
        standsFor(offloaded, value))
      byCost.push_back({per(2 * static_cast<double>(tensorBytes(value)) /
                                options.linkBandwidth,
                            tensorBytes(value)),
                        value,
                        {}});
  for (Operation *op : lean)
    if (!keep || !keep->lean.contains(op))
      byCost.push_back({per(cost.leanSeconds(op), leanSavings(op)), {}, op});
  // Ties (and the sets' order) broken by program order: deterministic.
  DenseMap<Operation *, unsigned> position;
  for (auto [at, op] : llvm::enumerate(function.getBody().front()))
    position[&op] = at;
  llvm::sort(byCost, [&](const Choice &a, const Choice &b) {
    if (a.seconds != b.seconds)
      return a.seconds > b.seconds;
    Operation *x = a.value ? a.value.getDefiningOp() : a.lean;
    Operation *y = b.value ? b.value.getDefiningOp() : b.lean;
    if (x != y)
      return position.lookup(x) < position.lookup(y);
    return cast<OpResult>(a.value).getResultNumber() <
           cast<OpResult>(b.value).getResultNumber();
  });
  // The choices now, copied: each fit test changes a copy of its own.
  struct Choices {
    DenseSet<Value> chosen, nested;
    Cuts cuts;
    DenseSet<Value> offloaded, synchronous;
    DenseSet<Operation *> lean;
  } now{chosen, nested, cuts, offloaded, synchronous, lean};
  bool privateAncestors = options.privateAncestors.value_or(!inPlace);
  // The trial of `choices` where its arena fits the target. Each fit test
  // only asks whether an arena is within the target; the arena of the
  // choices prune returns is computed once, at the end.
  auto fits = [&](const Choices &choices) -> std::unique_ptr<Trial> {
    std::optional<PruneMemo::Key> key;
    if (options.pruneMemo) {
      key = PruneMemo::key(arenaTarget, privateAncestors, choices.chosen,
                           choices.nested, choices.cuts, choices.offloaded,
                           choices.synchronous, choices.lean);
      if (options.pruneMemo->missed(*key))
        return nullptr;
    }
    auto trial = std::make_unique<Trial>(
        function, forward, inPlace, choices.chosen, choices.nested,
        choices.cuts, choices.offloaded, choices.synchronous, choices.lean,
        options, cost, Timed::No);
    if (!trial->arenaFits(arenaTarget)) {
      if (key)
        options.pruneMemo->insert(std::move(*key));
      return nullptr;
    }
    return trial;
  };
  // `choice` stored again (or its workspace made full) in `choices`, a
  // copy of `now`; where that does not fit, a recomputed value that was
  // nested is tried recomputed without nesting. The trial where one fits.
  auto store = [&](const Choice &choice,
                   Choices &choices) -> std::unique_ptr<Trial> {
    if (choice.lean) {
      choices.lean.erase(choice.lean);
      return fits(choices);
    }
    bool recomputed = choices.chosen.contains(choice.value);
    DenseSet<Value> &set = recomputed ? choices.chosen : choices.offloaded;
    // The value and its copies in `set`, with what goes with them (a
    // stored value's cuts go with it).
    SmallVector<Value, 4> wereNested;
    for (Value copy : ties.copiesOf(choice.value)) {
      if (!set.erase(copy))
        continue;
      choices.synchronous.erase(copy);
      choices.cuts.erase(copy);
      if (choices.nested.erase(copy))
        wereNested.push_back(copy);
    }
    if (std::unique_ptr<Trial> trial = fits(choices))
      return trial;
    if (wereNested.empty())
      return nullptr;
    // Still recomputed: perhaps they need not be nested.
    choices = now;
    for (Value copy : wereNested)
      choices.nested.erase(copy);
    return fits(choices);
  };
  // The trial of the choices now (skipHopeless): the last that fit, or
  // the choices prune started from.
  std::unique_ptr<Trial> lastFit, start;
  auto current = [&]() -> const Trial & {
    if (lastFit)
      return *lastFit;
    if (!start)
      start = std::make_unique<Trial>(
          function, forward, inPlace, now.chosen, now.nested, now.cuts,
          now.offloaded, now.synchronous, now.lean, options, cost, Timed::No);
    return *start;
  };
  // A recomputed value whose bytes would lift the live peak above the
  // target stays recomputed, untested (an estimate: see peakIfStored).
  auto hopeless = [&](const Choice &choice) {
    if (!skipHopeless || choice.lean || !now.chosen.contains(choice.value))
      return false;
    SmallVector<Value, 4> copies;
    for (Value copy : ties.copiesOf(choice.value))
      if (now.chosen.contains(copy))
        copies.push_back(copy);
    return current().peakIfStored(copies) > arenaTarget;
  };
  // The choices in order, each stored where the arena still fits. Nearly
  // all tests fail (measured: 95 % on the ResNet-34 U-Net's pipelined
  // stages), and a test that fails leaves the choices as they were: the
  // tests after it are made alongside it on idle planners' threads
  // (planAlongside), each on the choices now, and the first that fits
  // decides. The ones after that one are dropped and made again on its
  // choices; those not begun are not made. So prune returns what one test
  // after the other returns, on any number of threads.
  for (size_t from = 0; from < byCost.size();) {
    SmallVector<size_t> tests;
    for (size_t at = from; at < byCost.size(); ++at)
      if (!hopeless(byCost[at]))
        tests.push_back(at);
    std::atomic<size_t> firstFit{tests.size()};
    SmallVector<std::unique_ptr<Trial>> trials(tests.size());
    SmallVector<std::optional<Choices>> stored(tests.size());
    planAlongside(function.getContext(), tests.size(), [&](size_t test) {
      if (test > firstFit.load())
        return;
      Choices choices = now;
      std::unique_ptr<Trial> trial = store(byCost[tests[test]], choices);
      if (!trial)
        return;
      trials[test] = std::move(trial);
      stored[test] = std::move(choices);
      for (size_t seen = firstFit.load();
           test < seen && !firstFit.compare_exchange_weak(seen, test);)
        ;
    });
    size_t fit = firstFit.load();
    if (fit == tests.size())
      break;
    now = std::move(*stored[fit]);
    lastFit = std::move(trials[fit]);
    from = tests[fit] + 1;
  }
  chosen = std::move(now.chosen);
  nested = std::move(now.nested);
  cuts = std::move(now.cuts);
  offloaded = std::move(now.offloaded);
  synchronous = std::move(now.synchronous);
  lean = std::move(now.lean);
  if (lastFit)
    arenaBytes = lastFit->arenaBytes();
}

} // namespace memopt::remat::detail
