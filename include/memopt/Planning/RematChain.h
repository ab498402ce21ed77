//===- RematChain.h - Exact recomputation of a chain by dynamic programming -===//
//
// Part of the planning library, for the `optimal` planner (RematOptimal.cpp
// builds the problem from the step): the heterogeneous-chain dynamic program of Rotor
// (Beaumont, Eyraud-Dubois, Herrmann, Joly, Shilova, "Optimal checkpointing
// for heterogeneous chains", 2019-2021), restricted to tg-remat's rewrite: a
// unit of the chain is stored, or recomputed once in the backward by a clone
// made right before its first backward reader (or that of the recomputed
// unit reading it, whichever comes first). Pure data, no MLIR: unit-tested
// against brute force (unittests/Planning/RematChainTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_REMATCHAIN_H
#define MEMOPT_PLANNING_REMATCHAIN_H

#include <cstdint>
#include <vector>

namespace memopt::remat {

/// One link of the chain, in forward order. Units are *nested*: their last
/// forward readers come in chain order, their first backward readers in
/// reverse chain order, every backward reader after every forward one.
struct ChainUnit {
  /// Bytes absent while the unit is recomputed and not yet recreated.
  uint64_t bytes = 0;
  /// Predicted seconds of its clones.
  double seconds = 0;
  /// Whether its clone reads the previous unit: recomputed together, the
  /// two form one run, recreated together at this unit's first backward
  /// reader (the earlier of the two).
  bool linked = false;
};

/// A chain and its memory constraints. A recomputed unit u is absent from
/// after its last forward reader until its run is recreated (at the first
/// backward reader of the run's last unit). Under nesting, the positions of
/// the step fall into two families, each indexed by a count k in 0..n:
/// - forward[k]: the positions after the last forward readers of units
///   0..k-1 only; there every recomputed unit of 0..k-1 is absent;
/// - backward[k]: the positions after the first backward readers of units
///   k..n-1 only; there the recomputed units of the runs within 0..k-1 are
///   absent (a run reaching k is recreated already).
/// Each entry is the bytes that must be absent there (the most live bytes
/// over those positions less the budget; <= 0: no constraint).
struct ChainProblem {
  std::vector<ChainUnit> units;
  std::vector<int64_t> forward, backward; // n + 1 entries each
};

struct ChainSolution {
  bool feasible = false;
  std::vector<bool> recomputed; // per unit
  double seconds = 0;
  /// Bytes per bin of the discretization (1: exact).
  uint64_t binBytes = 1;
};

/// The least-seconds set of recomputed units meeting every constraint (of
/// equal seconds, the fewest units). Bytes are counted in bins of
/// ceil(largest constraint / B) bytes, a unit's bytes rounded down and the
/// constraints up, so a solution meets the exact constraints and is
/// optimal among those meeting the rounded ones (exact when the largest
/// constraint is at most B bytes). B is `bins`, raised (to 1024 at most)
/// until the smallest unit fills a bin, and lowered on chains too long for
/// 2^25 states. O(n B^2) time and space.
ChainSolution solveChain(const ChainProblem &problem, unsigned bins = 256);

} // namespace memopt::remat

#endif // MEMOPT_PLANNING_REMATCHAIN_H
