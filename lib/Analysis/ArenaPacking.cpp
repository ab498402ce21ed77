//===- ArenaPacking.cpp - Offsets for live intervals ----------------------===//
//
// Best fit in a few orders, as XLA's heap simulator does: no one order wins
// on every graph, so each is tried and the smallest arena kept.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPacking.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <numeric>
#include <optional>
#include <vector>

using namespace llvm;
using namespace memopt;

namespace {

/// Bytes live at each position.
SmallVector<uint64_t> liveBytes(ArrayRef<LiveInterval> intervals) {
  unsigned positions = 0;
  for (const LiveInterval &interval : intervals)
    positions = std::max(positions, interval.last + 1);
  SmallVector<int64_t> delta(positions + 1, 0);
  for (const LiveInterval &interval : intervals) {
    delta[interval.first] += interval.bytes;
    delta[interval.last + 1] -= interval.bytes;
  }
  SmallVector<uint64_t> live(positions);
  int64_t running = 0;
  for (unsigned position = 0; position < positions; ++position)
    live[position] = running += delta[position];
  return live;
}

/// Per interval, the rank of the fullest position it is live at, positions
/// ranked by their live bytes (most first, ties: the earlier first).
SmallVector<unsigned> rankByBreadth(ArrayRef<LiveInterval> intervals) {
  SmallVector<uint64_t> live = liveBytes(intervals);
  SmallVector<unsigned> byBreadth(live.size());
  std::iota(byBreadth.begin(), byBreadth.end(), 0u);
  llvm::stable_sort(byBreadth,
                    [&](unsigned a, unsigned b) { return live[a] > live[b]; });
  SmallVector<unsigned> rankOfPosition(live.size());
  for (auto [rank, position] : llvm::enumerate(byBreadth))
    rankOfPosition[position] = rank;
  SmallVector<unsigned> rank;
  for (const LiveInterval &interval : intervals)
    rank.push_back(*std::min_element(rankOfPosition.begin() + interval.first,
                                     rankOfPosition.begin() + interval.last +
                                         1));
  return rank;
}

/// The intervals live at some position of a window of time, found without
/// looking at the others: those live at the window's first position (a
/// segment tree over the positions, each interval at the nodes that cover
/// it) and those that start inside it (the intervals by first position).
/// A step of many short lives, such as microbatches unrolled one after
/// another, then costs best-fit placement about linear time: each block
/// meets the few blocks live with it, not all that were placed.
class TimeIndex {
public:
  explicit TimeIndex(ArrayRef<LiveInterval> intervals) : intervals(intervals) {
    for (const LiveInterval &interval : intervals)
      positions = std::max(positions, interval.last + 1);
    size = 1;
    while (size < positions)
      size *= 2;
    covering.resize(2 * size);
    for (auto [index, interval] : llvm::enumerate(intervals))
      insert(1, 0, size - 1, interval, index);
    byFirst.resize(intervals.size());
    std::iota(byFirst.begin(), byFirst.end(), 0u);
    llvm::stable_sort(byFirst, [&](unsigned a, unsigned b) {
      return intervals[a].first < intervals[b].first;
    });
  }

  /// Calls `visit` once for each interval live with `window`.
  void forEachOverlapping(const LiveInterval &window,
                          function_ref<void(unsigned)> visit) const {
    unsigned node = 1, low = 0, high = size - 1;
    while (true) {
      for (unsigned index : covering[node])
        visit(index);
      if (low == high)
        break;
      unsigned middle = low + (high - low) / 2;
      node *= 2;
      if (window.first <= middle) {
        high = middle;
      } else {
        low = middle + 1;
        ++node;
      }
    }
    auto firstAfter = [&](unsigned position) {
      return llvm::partition_point(byFirst, [&](unsigned index) {
        return intervals[index].first <= position;
      });
    };
    for (auto it = firstAfter(window.first), end = firstAfter(window.last);
         it != end; ++it)
      visit(*it);
  }

private:
  void insert(unsigned node, unsigned low, unsigned high,
              const LiveInterval &interval, unsigned index) {
    if (interval.last < low || high < interval.first)
      return;
    if (interval.first <= low && high <= interval.last) {
      covering[node].push_back(index);
      return;
    }
    unsigned middle = low + (high - low) / 2;
    insert(2 * node, low, middle, interval, index);
    insert(2 * node + 1, middle + 1, high, interval, index);
  }

  ArrayRef<LiveInterval> intervals;
  unsigned positions = 0, size = 1;
  /// Per node of the segment tree, the intervals that cover its positions
  /// (and not its parent's).
  std::vector<SmallVector<unsigned, 2>> covering;
  SmallVector<unsigned> byFirst;
};

/// Pairs of intervals live at a common position: all pairs less those
/// where one ends before the other starts.
uint64_t overlappingPairs(ArrayRef<LiveInterval> intervals) {
  SmallVector<unsigned> firsts, lasts;
  for (const LiveInterval &interval : intervals) {
    firsts.push_back(interval.first);
    lasts.push_back(interval.last);
  }
  llvm::sort(firsts);
  llvm::sort(lasts);
  uint64_t n = intervals.size(), disjoint = 0, ended = 0;
  for (unsigned first : firsts) {
    while (ended < n && lasts[ended] < first)
      ++ended;
    disjoint += ended;
  }
  return n * (n - 1) / 2 - disjoint;
}

/// Where `interval` goes among `blocks` (placed, by offset; those not live
/// with it are skipped): the lowest-waste gap between them, or their top.
/// Blocks at equal offsets give the same gaps in either order.
uint64_t bestFit(ArrayRef<LiveInterval> intervals, ArrayRef<uint64_t> offsets,
                 const LiveInterval &interval, ArrayRef<unsigned> blocks) {
  std::optional<uint64_t> best;
  uint64_t bestWaste = 0;
  uint64_t top = 0;
  for (unsigned other : blocks) {
    const LiveInterval &block = intervals[other];
    if (block.last < interval.first || interval.last < block.first)
      continue;
    if (offsets[other] >= top && offsets[other] - top >= interval.bytes) {
      uint64_t waste = offsets[other] - top - interval.bytes;
      if (!best || waste < bestWaste) {
        best = top;
        bestWaste = waste;
        if (!waste) // no gap fits better, and the first is kept
          break;
      }
    }
    top = std::max(top, offsets[other] + block.bytes);
  }
  return best.value_or(top);
}

/// Below this share of all pairs live together, placeBestFit finds each
/// block's live neighbours in the time index rather than scanning every
/// placed block (sorting a block's neighbours costs more than the scan
/// when they are most of the placed blocks, as in one step's activations
/// that live across its backward).
constexpr uint64_t kSparseShare = 32;

/// Places the intervals in `order` best-fit; fills `offsets`, returns the
/// arena size. The same offsets either way it finds the live blocks.
uint64_t placeBestFit(ArrayRef<LiveInterval> intervals,
                      ArrayRef<unsigned> order,
                      SmallVectorImpl<uint64_t> &offsets) {
  offsets.assign(intervals.size(), 0);
  uint64_t n = intervals.size(), total = 0;
  if (overlappingPairs(intervals) * kSparseShare < n * n / 2) {
    TimeIndex index(intervals);
    SmallVector<bool> isPlaced(intervals.size(), false);
    SmallVector<unsigned> live;
    for (unsigned current : order) {
      live.clear();
      index.forEachOverlapping(intervals[current], [&](unsigned other) {
        if (isPlaced[other])
          live.push_back(other);
      });
      llvm::sort(live, [&](unsigned a, unsigned b) {
        return offsets[a] < offsets[b];
      });
      offsets[current] = bestFit(intervals, offsets, intervals[current], live);
      isPlaced[current] = true;
      total = std::max(total, offsets[current] + intervals[current].bytes);
    }
    return total;
  }
  // All blocks placed so far, by offset: the gaps between those live with
  // the next block are found in one pass, without sorting them per block.
  SmallVector<unsigned> placed;
  for (unsigned current : order) {
    offsets[current] = bestFit(intervals, offsets, intervals[current], placed);
    placed.insert(llvm::upper_bound(placed, offsets[current],
                                    [&](uint64_t offset, unsigned other) {
                                      return offset < offsets[other];
                                    }),
                  current);
    total = std::max(total, offsets[current] + intervals[current].bytes);
  }
  return total;
}

/// Rounds and candidates of promoteToFront: at most kPromotionRounds *
/// kPromotionCandidates more placements, and only for an arena above the
/// live peak.
constexpr unsigned kPromotionRounds = 4;
constexpr unsigned kPromotionCandidates = 4;

/// Local search from `order` (placed at `total`): where the arena's top is
/// reached first, a block placed late may sit above a hole that blocks
/// live elsewhere in time made for it. Moving one block live there to the
/// front of the order (the largest in time-bytes area first, a few of
/// them, the best kept) places it low before anything can push it up;
/// repeated while it lowers the arena, down to `peak`. Updates `order`,
/// `offsets` and `total` when it finds a smaller arena.
void promoteToFront(ArrayRef<LiveInterval> intervals, uint64_t peak,
                    SmallVectorImpl<unsigned> &order,
                    SmallVectorImpl<uint64_t> &offsets, uint64_t &total) {
  SmallVector<uint64_t> tried;
  for (unsigned round = 0; round < kPromotionRounds && total > peak;
       ++round) {
    // The earliest position at which a block reaching the top is live.
    unsigned at = ~0u;
    for (auto [index, interval] : llvm::enumerate(intervals))
      if (offsets[index] + interval.bytes == total)
        at = std::min(at, interval.first);
    SmallVector<unsigned> live;
    for (auto [index, interval] : llvm::enumerate(intervals))
      if (interval.first <= at && at <= interval.last)
        live.push_back(index);
    auto area = [&](unsigned i) {
      return intervals[i].bytes *
             (uint64_t(intervals[i].last - intervals[i].first) + 1);
    };
    llvm::stable_sort(live,
                      [&](unsigned a, unsigned b) { return area(a) > area(b); });
    live.truncate(std::min<size_t>(live.size(), kPromotionCandidates));
    std::optional<SmallVector<unsigned>> bestOrder;
    uint64_t bestTotal = total;
    for (unsigned candidate : live) {
      SmallVector<unsigned> promoted{candidate};
      for (unsigned index : order)
        if (index != candidate)
          promoted.push_back(index);
      uint64_t placed = placeBestFit(intervals, promoted, tried);
      if (placed < bestTotal) {
        bestTotal = placed;
        bestOrder = std::move(promoted);
      }
    }
    if (!bestOrder)
      return;
    order.assign(bestOrder->begin(), bestOrder->end());
    total = placeBestFit(intervals, order, offsets);
  }
}

/// The intervals' indices sorted by `before`; ties (and the sort's
/// stability): the earlier interval first, so that a plan is deterministic.
SmallVector<unsigned>
sortedOrder(ArrayRef<LiveInterval> intervals,
            function_ref<bool(unsigned, unsigned)> before) {
  SmallVector<unsigned> order(intervals.size());
  std::iota(order.begin(), order.end(), 0u);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    if (before(a, b) != before(b, a))
      return before(a, b);
    return intervals[a].first < intervals[b].first;
  });
  return order;
}

/// packIntervals' breadth order (the last of its orders).
SmallVector<unsigned> breadthOrder(ArrayRef<LiveInterval> intervals) {
  SmallVector<unsigned> breadthRank = rankByBreadth(intervals);
  return sortedOrder(intervals, [&](unsigned a, unsigned b) {
    if (breadthRank[a] != breadthRank[b])
      return breadthRank[a] < breadthRank[b];
    return intervals[a].bytes > intervals[b].bytes;
  });
}

} // namespace

uint64_t memopt::peakLiveBytes(ArrayRef<LiveInterval> intervals) {
  SmallVector<uint64_t> live = liveBytes(intervals);
  return live.empty() ? 0 : *llvm::max_element(live);
}

namespace {

/// The last packedBytes answers, by their intervals. A planner asks for
/// the same packing again and again: remat's greedy variants run side by
/// side and walk the same first rounds, the overshoot variant retraces the
/// greedy with cuts, and auto-fit plans one step under several settings.
/// Above the live peak one packing is a few dozen best-fit passes (on a
/// microbatched ResNet-34 U-Net stage, 3000 blocks: two thirds of a plan's
/// time), so an answer is kept rather than packed again. The key is the
/// intervals themselves (compared whole, not only by hash); the answers
/// are the packer's, so plans are the same with or without the memo.
class PackedBytesMemo {
public:
  std::optional<uint64_t> lookup(ArrayRef<LiveInterval> intervals,
                                 llvm::hash_code hash) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Entry &entry : entries)
      if (entry.hash == hash && equal(entry.intervals, intervals))
        return entry.total;
    return std::nullopt;
  }

  void insert(ArrayRef<LiveInterval> intervals, llvm::hash_code hash,
              uint64_t total) {
    std::lock_guard<std::mutex> lock(mutex);
    if (entries.size() == kEntries)
      entries.pop_front();
    entries.push_back({hash, {intervals.begin(), intervals.end()}, total});
  }

private:
  /// About 50 KB each for 3000 blocks: a few MB in all.
  static constexpr size_t kEntries = 64;
  struct Entry {
    llvm::hash_code hash;
    std::vector<LiveInterval> intervals;
    uint64_t total;
  };
  static bool equal(ArrayRef<LiveInterval> a, ArrayRef<LiveInterval> b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(),
                      [](const LiveInterval &x, const LiveInterval &y) {
                        return x.first == y.first && x.last == y.last &&
                               x.bytes == y.bytes;
                      });
  }
  std::mutex mutex;
  std::deque<Entry> entries;
};

llvm::hash_code hashIntervals(ArrayRef<LiveInterval> intervals) {
  llvm::hash_code hash = llvm::hash_value(intervals.size());
  for (const LiveInterval &interval : intervals)
    hash = llvm::hash_combine(hash, interval.first, interval.last,
                              interval.bytes);
  return hash;
}

/// packedBytes without the memo.
uint64_t packBytes(ArrayRef<LiveInterval> intervals) {
  // Where the breadth order reaches the live peak, so does packIntervals
  // (no order is below it, whichever of them it keeps); that order alone
  // costs a fifth of trying them all.
  SmallVector<uint64_t> offsets;
  uint64_t peak = peakLiveBytes(intervals);
  if (placeBestFit(intervals, breadthOrder(intervals), offsets) == peak)
    return peak;
  return packIntervals(intervals).total;
}

} // namespace

uint64_t memopt::packedBytes(ArrayRef<LiveInterval> intervals) {
  static PackedBytesMemo memo;
  llvm::hash_code hash = hashIntervals(intervals);
  if (std::optional<uint64_t> total = memo.lookup(intervals, hash))
    return *total;
  uint64_t total = packBytes(intervals);
  memo.insert(intervals, hash, total);
  return total;
}

Packing memopt::packIntervals(ArrayRef<LiveInterval> intervals) {
  auto lifetime = [&](unsigned i) {
    return uint64_t(intervals[i].last - intervals[i].first);
  };
  auto bytes = [&](unsigned i) { return intervals[i].bytes; };
  using Order = std::function<bool(unsigned, unsigned)>;
  const Order orders[] = {
      // Largest first.
      [&](unsigned a, unsigned b) { return bytes(a) > bytes(b); },
      // Largest area in the (time, bytes) plane first.
      [&](unsigned a, unsigned b) {
        return bytes(a) * (lifetime(a) + 1) > bytes(b) * (lifetime(b) + 1);
      },
      // Longest-lived first, then largest.
      [&](unsigned a, unsigned b) {
        if (lifetime(a) != lifetime(b))
          return lifetime(a) > lifetime(b);
        return bytes(a) > bytes(b);
      },
  };
  // No packing is below the live peak: the first order that reaches it
  // is the one the loop would keep, and the rest need not run.
  uint64_t peak = peakLiveBytes(intervals);
  Packing best;
  SmallVector<uint64_t> offsets;
  SmallVector<unsigned> lastOrder;
  uint64_t lastTotal = 0;
  // The last order is by breadth (TFLite's greedy by breadth): the blocks
  // live at the position with the most live bytes, largest first, then
  // those of the next fullest position. A position's blocks placed
  // together leave it no holes, and the fullest positions are where a
  // hole raises the arena. In a training step whose stored activations
  // span the backward, largest-first places big short-lived tensors low
  // and pushes the long-lived activations above all of them. On the
  // ResNet-34 U-Net's remat plans below 0.4x the other orders were 11-17 %
  // over the live peak; with this one the plans auto makes are at it
  // (docs/passes/plan-memory.md#placement).
  for (unsigned round = 0; round <= std::size(orders); ++round) {
    SmallVector<unsigned> order = round < std::size(orders)
                                      ? sortedOrder(intervals, orders[round])
                                      : breadthOrder(intervals);
    uint64_t total = placeBestFit(intervals, order, offsets);
    if (best.offsets.empty() || total < best.total) {
      best.total = total;
      best.offsets = offsets;
    }
    if (best.total == peak)
      return best;
    lastOrder = std::move(order);
    lastTotal = total;
  }
  // Above the live peak: a local search from the breadth order (the last),
  // which measured on remat plans left the holes that promotion closes
  // (docs/passes/plan-memory.md#placement).
  if (best.total > peak && !lastOrder.empty()) {
    // `offsets` still holds the breadth order's placement.
    promoteToFront(intervals, peak, lastOrder, offsets, lastTotal);
    if (lastTotal < best.total) {
      best.total = lastTotal;
      best.offsets = offsets;
    }
  }
  return best;
}
