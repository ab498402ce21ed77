//===- RematChainTest.cpp - tg-remat's chain dynamic program ---------------===//
//
// solveChain against brute force over every subset of small heterogeneous
// chains, budgets at the edges (nothing to save, exactly reachable, one
// byte out of reach), and the discretization's guarantee on large bytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/RematChain.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>
#include <random>

using namespace memopt::remat;

namespace {

/// Bytes absent at forward[k] / backward[k] for a set of recomputed units.
std::pair<int64_t, int64_t> absent(const ChainProblem &problem,
                                   const std::vector<bool> &recomputed,
                                   unsigned k) {
  const unsigned n = problem.units.size();
  // The last unit of each unit's run.
  std::vector<unsigned> runEnd(n);
  for (unsigned i = n; i-- > 0;)
    runEnd[i] = (i + 1 < n && recomputed[i] && recomputed[i + 1] &&
                 problem.units[i + 1].linked)
                    ? runEnd[i + 1]
                    : i;
  int64_t forward = 0, backward = 0;
  for (unsigned u = 0; u < k; ++u)
    if (recomputed[u]) {
      forward += problem.units[u].bytes;
      if (runEnd[u] < k)
        backward += problem.units[u].bytes;
    }
  return {forward, backward};
}

bool meets(const ChainProblem &problem, const std::vector<bool> &recomputed) {
  for (unsigned k = 0; k <= problem.units.size(); ++k) {
    auto [forward, backward] = absent(problem, recomputed, k);
    if (forward < problem.forward[k] || backward < problem.backward[k])
      return false;
  }
  return true;
}

/// The least seconds over every subset (infinity: none meets).
double bruteForce(const ChainProblem &problem) {
  const unsigned n = problem.units.size();
  double best = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<bool> recomputed(n);
    double seconds = 0;
    for (unsigned i = 0; i < n; ++i)
      if ((recomputed[i] = mask >> i & 1))
        seconds += problem.units[i].seconds;
    if (seconds < best && meets(problem, recomputed))
      best = seconds;
  }
  return best;
}

/// A random chain whose constraints come from live bytes: the plain peak
/// shape of a training step (rising in the forward, falling in the
/// backward) less `budget`.
ChainProblem randomChain(std::mt19937 &random, unsigned n, int64_t budget) {
  ChainProblem problem;
  std::uniform_int_distribution<int> bytes(1, 40), seconds(1, 30), coin(0, 3);
  int64_t total = 0;
  for (unsigned i = 0; i < n; ++i) {
    ChainUnit unit;
    unit.bytes = bytes(random);
    unit.seconds = seconds(random);
    unit.linked = i > 0 && coin(random) != 0;
    total += unit.bytes;
    problem.units.push_back(unit);
  }
  std::uniform_int_distribution<int> noise(0, 20);
  int64_t prefix = 0;
  for (unsigned k = 0; k <= n; ++k) {
    // Live at forward[k]: every unit so far plus some transient bytes; at
    // backward[k]: the units not yet consumed plus gradients.
    problem.forward.push_back(prefix + noise(random) - budget);
    problem.backward.push_back(prefix + noise(random) - budget);
    if (k < n)
      prefix += problem.units[k].bytes;
  }
  (void)total;
  return problem;
}

TEST(RematChain, MatchesBruteForce) {
  std::mt19937 random(11);
  unsigned feasible = 0, infeasible = 0;
  for (unsigned trial = 0; trial < 400; ++trial) {
    unsigned n = 1 + trial % 10;
    std::uniform_int_distribution<int> budget(0, 20 * n);
    ChainProblem problem = randomChain(random, n, budget(random));
    double expected = bruteForce(problem);
    // Bins enough for exact bytes: the optimum itself.
    ChainSolution solution = solveChain(problem, 1u << 12);
    ASSERT_EQ(solution.binBytes, 1u);
    if (expected == std::numeric_limits<double>::infinity()) {
      EXPECT_FALSE(solution.feasible) << "trial " << trial;
      ++infeasible;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(solution.feasible) << "trial " << trial;
    EXPECT_DOUBLE_EQ(solution.seconds, expected) << "trial " << trial;
    EXPECT_TRUE(meets(problem, solution.recomputed)) << "trial " << trial;
    double seconds = 0;
    for (unsigned i = 0; i < n; ++i)
      if (solution.recomputed[i])
        seconds += problem.units[i].seconds;
    EXPECT_DOUBLE_EQ(seconds, solution.seconds);
  }
  // Both outcomes were exercised.
  EXPECT_GT(feasible, 50u);
  EXPECT_GT(infeasible, 50u);
}

/// Three units, nothing to save: nothing recomputed, zero seconds.
TEST(RematChain, BudgetAbovePeakRecomputesNothing) {
  ChainProblem problem;
  problem.units = {{10, 1, false}, {20, 2, true}, {30, 3, true}};
  problem.forward = {-5, -5, -5, -5};
  problem.backward = {-5, 0, 0, -1};
  ChainSolution solution = solveChain(problem);
  ASSERT_TRUE(solution.feasible);
  EXPECT_EQ(solution.seconds, 0);
  EXPECT_EQ(solution.recomputed, std::vector<bool>(3, false));
}

/// A linked run is recreated at its last unit's first backward reader: to
/// free bytes at backward[2], unit 1 must close its run before unit 2.
TEST(RematChain, RunsRecreateTogether) {
  ChainProblem problem;
  problem.units = {{10, 1, false}, {20, 1, true}, {30, 100, true}};
  // 20 bytes absent at backward[2]: unit 1 recomputed, unit 2 stored
  // (recomputing 2 too would recreate 1 before backward[2]'s positions).
  problem.forward = {0, 0, 0, 0};
  problem.backward = {0, 0, 20, 0};
  ChainSolution solution = solveChain(problem);
  ASSERT_TRUE(solution.feasible);
  EXPECT_EQ(solution.recomputed, (std::vector<bool>{false, true, false}));
  EXPECT_DOUBLE_EQ(solution.seconds, 1);
  // Exactly every byte of the chain at backward[3]: everything, in runs
  // closed by then.
  problem.backward = {0, 0, 0, 60};
  solution = solveChain(problem);
  ASSERT_TRUE(solution.feasible);
  EXPECT_EQ(solution.recomputed, std::vector<bool>(3, true));
  // One byte more than the chain holds: out of reach.
  problem.backward = {0, 0, 0, 61};
  EXPECT_FALSE(solveChain(problem).feasible);
  // A constraint before any unit can be absent: out of reach.
  problem.backward = {1, 0, 0, 0};
  EXPECT_FALSE(solveChain(problem).feasible);
  problem.backward = {0, 0, 0, 0};
  problem.forward = {1, 0, 0, 0};
  EXPECT_FALSE(solveChain(problem).feasible);
}

/// Large bytes, few bins: the solution still meets the exact constraints
/// and costs no less than the exact optimum.
TEST(RematChain, DiscretizationIsConservative) {
  std::mt19937 random(5);
  for (unsigned trial = 0; trial < 200; ++trial) {
    unsigned n = 2 + trial % 9;
    std::uniform_int_distribution<int> budget(0, 20 * n);
    ChainProblem problem = randomChain(random, n, budget(random));
    for (ChainUnit &unit : problem.units)
      unit.bytes *= 1000003;
    for (auto *needs : {&problem.forward, &problem.backward})
      for (int64_t &need : *needs)
        need *= 1000003;
    double exact = bruteForce(problem);
    ChainSolution solution = solveChain(problem, 16);
    if (!solution.feasible)
      continue;
    int64_t largest = 0;
    for (auto *needs : {&problem.forward, &problem.backward})
      for (int64_t need : *needs)
        largest = std::max(largest, need);
    // At least 16 bins; more where the smallest unit is below a bin.
    EXPECT_LE(solution.binBytes,
              std::max<uint64_t>(1, (static_cast<uint64_t>(largest) + 15) / 16));
    EXPECT_TRUE(meets(problem, solution.recomputed)) << "trial " << trial;
    EXPECT_GE(solution.seconds, exact);
  }
}

/// A long chain gets fewer bins (2^25 states at most) and its plan still
/// meets the exact constraints.
TEST(RematChain, LongChainsGetFewerBins) {
  ChainProblem problem;
  const unsigned n = 1000;
  for (unsigned i = 0; i < n; ++i)
    problem.units.push_back({1000 + i % 7, 1.0 + i % 3, i % 4 != 0});
  problem.forward.assign(n + 1, 0);
  problem.backward.assign(n + 1, 0);
  problem.forward[n] = 150000;
  problem.backward[n] = 100000;
  problem.backward[n / 2] = 50000;
  ChainSolution solution = solveChain(problem);
  ASSERT_TRUE(solution.feasible);
  // sqrt(2^25 / 1000) = 183 bins over the largest need, not the 256 asked
  // for nor the 150 the smallest unit would fill.
  EXPECT_EQ(solution.binBytes, (150000u + 182) / 183);
  EXPECT_TRUE(meets(problem, solution.recomputed));
}

} // namespace
