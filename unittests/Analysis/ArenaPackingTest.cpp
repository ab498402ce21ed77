//===- ArenaPackingTest.cpp - Offsets for live intervals ------------------===//
//
// packIntervals on interval sets small enough to check by hand: no two
// blocks live together overlap, and the arena meets the live peak where
// only the breadth order, or only promotion after it, finds it; packedBytes
// and packsWithin agree with it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPacking.h"

#include "gtest/gtest.h"

#include <random>

using namespace memopt;

namespace {

/// Whether no two intervals live at the same position share a byte.
bool disjoint(llvm::ArrayRef<LiveInterval> intervals, const Packing &packing) {
  for (size_t a = 0; a < intervals.size(); ++a)
    for (size_t b = a + 1; b < intervals.size(); ++b) {
      bool together = intervals[a].first <= intervals[b].last &&
                      intervals[b].first <= intervals[a].last;
      bool shareBytes =
          packing.offsets[a] < packing.offsets[b] + intervals[b].bytes &&
          packing.offsets[b] < packing.offsets[a] + intervals[a].bytes;
      if (together && shareBytes)
        return false;
    }
  return true;
}

TEST(ArenaPackingTest, EmptyIsZero) {
  Packing packing = packIntervals({});
  EXPECT_EQ(packing.total, 0u);
  EXPECT_TRUE(packing.offsets.empty());
  EXPECT_EQ(peakLiveBytes({}), 0u);
}

TEST(ArenaPackingTest, DisjointLifetimesShareOffsets) {
  // A stack: 8 live over everything, 4 and 2 one after the other above it.
  const LiveInterval intervals[] = {{0, 3, 8}, {0, 1, 4}, {2, 3, 2}};
  Packing packing = packIntervals(intervals);
  EXPECT_EQ(packing.total, 12u);
  EXPECT_EQ(peakLiveBytes(intervals), 12u);
  EXPECT_TRUE(disjoint(intervals, packing));
}

TEST(ArenaPackingTest, BreadthClosesTheHoleLargestFirstLeaves) {
  // Largest first puts the 3-byte block [2, 5] at 0; then position 6,
  // where the three 2-byte blocks are live (6 bytes, the peak), cannot
  // take them without a hole: 7 bytes, and the other two orders do no
  // better. By breadth, position 6's blocks go first, side by side, and
  // the 3-byte block fits above the one of them it meets at position 5.
  const LiveInterval intervals[] = {{6, 6, 2}, {5, 6, 2}, {2, 5, 3}, {6, 7, 2}};
  Packing packing = packIntervals(intervals);
  EXPECT_EQ(peakLiveBytes(intervals), 6u);
  EXPECT_EQ(packing.total, 6u);
  EXPECT_TRUE(disjoint(intervals, packing));
}

TEST(ArenaPackingTest, PromotionClosesTheHoleEveryOrderLeaves) {
  // The peak is 5 (positions 3 and 6). Every order places the 2-byte block
  // [2, 5] above the 3-byte one at position 3 and the 2-byte block [5, 6]
  // above both it and the 3-byte one at position 6: 7 bytes. The top is
  // first reached at position 5, where [2, 5] is live: moved to the front
  // of the order it takes offset 0, and everything else fits beside or
  // above it within the peak.
  const LiveInterval intervals[] = {{2, 5, 2}, {5, 6, 2}, {6, 6, 3}, {3, 3, 3}};
  Packing packing = packIntervals(intervals);
  EXPECT_EQ(peakLiveBytes(intervals), 5u);
  EXPECT_EQ(packing.total, 5u);
  EXPECT_EQ(packing.offsets[0], 0u);
  EXPECT_TRUE(disjoint(intervals, packing));
}

TEST(ArenaPackingTest, DeterministicAndDisjointOnAMixedStep) {
  // Forward activations stored into a backward that frees them in
  // reverse, with short-lived gradients of every size in between.
  llvm::SmallVector<LiveInterval> intervals;
  for (unsigned layer = 0; layer < 12; ++layer) {
    uint64_t bytes = 64u << (layer % 4);
    intervals.push_back({layer, 40 - layer, bytes});
    intervals.push_back({28 - layer, 29 - layer, 2 * bytes});
  }
  Packing first = packIntervals(intervals);
  Packing second = packIntervals(intervals);
  EXPECT_EQ(first.offsets, second.offsets);
  EXPECT_TRUE(disjoint(intervals, first));
  EXPECT_GE(first.total, peakLiveBytes(intervals));
}

TEST(ArenaPackingTest, DisjointAcrossManyChunksOfPlacedBlocks) {
  // Thousands of blocks, most pairs live together: the placed blocks span
  // many chunks (at most 256 each, split as they fill), and each block's
  // gaps are found across all of them in offset order.
  std::mt19937 random(3);
  llvm::SmallVector<LiveInterval> intervals;
  for (unsigned i = 0; i < 3000; ++i) {
    unsigned first = random() % 64;
    intervals.push_back(
        {first, first + unsigned(random() % 48), 64 * (1 + random() % 4)});
  }
  Packing packing = packIntervals(intervals);
  EXPECT_EQ(packing.offsets, packIntervals(intervals).offsets);
  EXPECT_TRUE(disjoint(intervals, packing));
  EXPECT_GE(packing.total, peakLiveBytes(intervals));
}

TEST(ArenaPackingTest, PackedBytesIsPackIntervalsTotal) {
  // packedBytes takes a shortcut where the breadth order reaches the live
  // peak; on random interval sets, some of which no order packs at the
  // peak, it must still agree with the full packing.
  std::mt19937 random(7);
  unsigned abovePeak = 0;
  for (unsigned set = 0; set < 200; ++set) {
    llvm::SmallVector<LiveInterval> intervals;
    unsigned count = 1 + random() % 24;
    for (unsigned i = 0; i < count; ++i) {
      unsigned first = random() % 16;
      intervals.push_back(
          {first, first + unsigned(random() % 8), 1 + uint64_t(random() % 9)});
    }
    uint64_t total = packIntervals(intervals).total;
    EXPECT_EQ(packedBytes(intervals), total);
    abovePeak += total > peakLiveBytes(intervals);
  }
  EXPECT_EQ(packedBytes({}), 0u);
  // Both paths of packedBytes ran.
  EXPECT_GT(abovePeak, 0u);
  EXPECT_LT(abovePeak, 200u);
}

TEST(ArenaPackingTest, PacksWithinIsPackedBytesAtMost) {
  // packsWithin stops at the first placement within its limit and cuts
  // the others short: at every limit around the packed total (and the
  // live peak) it must answer as packedBytes does. Sets of 64 blocks and
  // more take AVX-512's scan of sixteen blocks at a time where the CPU has
  // it.
  std::mt19937 random(11);
  for (unsigned set = 0; set < 200; ++set) {
    llvm::SmallVector<LiveInterval> intervals;
    unsigned count = 1 + random() % (set % 2 ? 24 : 96);
    for (unsigned i = 0; i < count; ++i) {
      unsigned first = random() % 16;
      intervals.push_back(
          {first, first + unsigned(random() % 8), 1 + uint64_t(random() % 9)});
    }
    uint64_t total = packIntervals(intervals).total;
    uint64_t peak = peakLiveBytes(intervals);
    for (uint64_t limit : {peak - 1, peak, (peak + total) / 2, total - 1,
                           total, total + 1})
      EXPECT_EQ(packsWithin(intervals, limit), total <= limit)
          << "set " << set << ", limit " << limit;
  }
}

TEST(ArenaPackingTest, RememberedBoundsKeepTheAnswers) {
  // packsWithin keeps each answer as a bound on the arena (at most its
  // limit, or above it) in the memo packedBytes shares: asked first, in
  // any order of limits, the bounds must answer as the packing does, and
  // packedBytes after them must still be the whole packing's total.
  std::mt19937 random(29);
  for (unsigned set = 0; set < 100; ++set) {
    llvm::SmallVector<LiveInterval> intervals;
    unsigned count = 8 + random() % 64;
    for (unsigned i = 0; i < count; ++i) {
      unsigned first = random() % 16;
      intervals.push_back({first, first + unsigned(random() % 8),
                           1 + uint64_t(random() % 9) + 1000 * set});
    }
    uint64_t total = packIntervals(intervals).total;
    uint64_t peak = peakLiveBytes(intervals);
    for (uint64_t limit : {total + 1, peak, total - 1, (peak + total) / 2,
                           total, total + 1, total - 1})
      EXPECT_EQ(packsWithin(intervals, limit), total <= limit)
          << "set " << set << ", limit " << limit;
    EXPECT_EQ(packedBytes(intervals), total) << "set " << set;
    EXPECT_EQ(packsWithin(intervals, total), true) << "set " << set;
    EXPECT_EQ(packsWithin(intervals, total - 1), false) << "set " << set;
  }
}

} // namespace
