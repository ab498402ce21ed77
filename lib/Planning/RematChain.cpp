//===- RematChain.cpp - Exact recomputation of a chain by dynamic programming ===//
//
// The state after deciding units 0..i-1 is (Q, R): Q the bytes of the
// recomputed units in runs already closed, R those of the run still open
// at unit i-1 (none: no open run). Unit i stored closes the run; recomputed
// it either continues the open run (when linked to i-1) or opens its own.
// The constraint backward[i] is checked on the transition (a run continuing
// into i is recreated before those positions), forward[i+1] after it.
// Costs are (seconds, units), least first; the bins cap Q and R at the
// largest constraint, beyond which more absent bytes satisfy nothing more.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/RematChain.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

using namespace memopt::remat;

ChainSolution memopt::remat::solveChain(const ChainProblem &problem,
                                        unsigned bins) {
  const unsigned n = problem.units.size();
  ChainSolution solution;
  solution.recomputed.assign(n, false);
  int64_t largest = 0;
  for (const std::vector<int64_t> *needs :
       {&problem.forward, &problem.backward})
    for (int64_t need : *needs)
      largest = std::max(largest, need);
  // More bins where the smallest unit would fill less than one (rounded
  // down, it would count for nothing), up to kMaxBins; fewer on long
  // chains, so that the n (bins + 1)(bins + 2) back-pointers stay under
  // 2^25 (128 MB).
  constexpr unsigned kMaxBins = 1024;
  constexpr double kMaxStates = 1 << 25;
  uint64_t smallest = 0;
  for (const ChainUnit &unit : problem.units)
    if (unit.bytes && (!smallest || unit.bytes < smallest))
      smallest = unit.bytes;
  if (smallest && largest > 0)
    bins = std::max<uint64_t>(
        bins, std::min<uint64_t>(
                  kMaxBins, (static_cast<uint64_t>(largest) + smallest - 1) /
                                smallest));
  bins = std::max(
      1u, std::min(bins, static_cast<unsigned>(std::sqrt(
                             kMaxStates / std::max(1u, n)))));
  uint64_t binBytes = std::max<uint64_t>(
      1, (static_cast<uint64_t>(largest) + bins - 1) / bins);
  solution.binBytes = binBytes;
  // Constraints rounded up, units' bytes down: a solution of the rounded
  // problem meets the exact one.
  auto needBins = [&](int64_t need) -> int64_t {
    if (need <= 0)
      return 0;
    return static_cast<int64_t>((static_cast<uint64_t>(need) + binBytes - 1) /
                                binBytes);
  };
  const unsigned cap =
      static_cast<unsigned>(needBins(largest)); // Q, R in 0..cap
  const unsigned rSize = cap + 2;               // R: 0 none, k + 1 open
  const unsigned states = (cap + 1) * rSize;
  auto at = [&](unsigned q, unsigned r) { return q * rSize + r; };
  auto clamp = [&](uint64_t v) {
    return static_cast<unsigned>(std::min<uint64_t>(v, cap));
  };

  struct Cost {
    double seconds = std::numeric_limits<double>::infinity();
    unsigned units = 0;
    bool operator<(const Cost &other) const {
      return seconds != other.seconds ? seconds < other.seconds
                                      : units < other.units;
    }
  };
  constexpr uint32_t kNoPrev = ~0u;
  std::vector<Cost> current(states), next(states);
  // Per unit and state: the previous state * 2 + whether the unit is
  // recomputed.
  std::vector<uint32_t> from(static_cast<size_t>(n) * states, kNoPrev);
  if (needBins(problem.forward[0]) > 0)
    return solution;
  current[at(0, 0)] = Cost{0, 0};

  for (unsigned i = 0; i < n; ++i) {
    const ChainUnit &unit = problem.units[i];
    const unsigned unitBins = clamp(unit.bytes / binBytes);
    const int64_t backwardNeed = needBins(problem.backward[i]);
    const int64_t forwardNeed = needBins(problem.forward[i + 1]);
    std::fill(next.begin(), next.end(), Cost());
    uint32_t *back = from.data() + static_cast<size_t>(i) * states;
    auto relax = [&](unsigned q, unsigned r, Cost cost, unsigned prev,
                     bool recomputed) {
      unsigned open = r == 0 ? 0 : r - 1;
      if (static_cast<int64_t>(q) + open < forwardNeed)
        return;
      unsigned index = at(q, r);
      if (cost < next[index]) {
        next[index] = cost;
        back[index] = prev * 2 + (recomputed ? 1 : 0);
      }
    };
    for (unsigned q = 0; q <= cap; ++q)
      for (unsigned r = 0; r < rSize; ++r) {
        const Cost &cost = current[at(q, r)];
        if (cost.seconds == std::numeric_limits<double>::infinity())
          continue;
        unsigned open = r == 0 ? 0 : r - 1;
        unsigned closed = clamp(q + open);
        unsigned prev = at(q, r);
        // Stored: the open run closes before unit i.
        if (static_cast<int64_t>(closed) >= backwardNeed)
          relax(closed, 0, cost, prev, false);
        Cost more{cost.seconds + unit.seconds, cost.units + 1};
        if (unit.linked && r != 0) {
          // Recomputed with i-1: the run stays open, recreated later.
          if (static_cast<int64_t>(q) >= backwardNeed)
            relax(q, clamp(open + unitBins) + 1, more, prev, true);
        } else if (static_cast<int64_t>(closed) >= backwardNeed) {
          relax(closed, unitBins + 1, more, prev, true);
        }
      }
    std::swap(current, next);
  }

  // Every run closes before backward[n]'s positions.
  const int64_t lastNeed = needBins(problem.backward[n]);
  unsigned best = kNoPrev;
  for (unsigned q = 0; q <= cap; ++q)
    for (unsigned r = 0; r < rSize; ++r) {
      const Cost &cost = current[at(q, r)];
      unsigned open = r == 0 ? 0 : r - 1;
      if (cost.seconds == std::numeric_limits<double>::infinity() ||
          static_cast<int64_t>(q) + open < lastNeed)
        continue;
      if (best == kNoPrev || cost < current[best])
        best = at(q, r);
    }
  if (best == kNoPrev)
    return solution;
  solution.feasible = true;
  solution.seconds = current[best].seconds;
  for (unsigned i = n; i-- > 0;) {
    uint32_t step = from[static_cast<size_t>(i) * states + best];
    solution.recomputed[i] = step & 1;
    best = step / 2;
  }
  return solution;
}
