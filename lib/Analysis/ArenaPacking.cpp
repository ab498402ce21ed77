//===- ArenaPacking.cpp - Offsets for live intervals ----------------------===//
//
// Best fit in a few orders, as XLA's heap simulator does: no one order wins
// on every graph, so each is tried and the smallest arena kept.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPacking.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MEMOPT_AVX512_SCAN
#endif

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

/// Best fit's search for a block of `bytes`, fed the placed blocks live
/// with it one at a time, by offset: the lowest-waste gap between them,
/// or their top. Blocks at equal offsets give the same gaps in either
/// order.
class GapSearch {
public:
  explicit GapSearch(uint64_t bytes) : bytes(bytes) {}

  /// Takes the next live block; false once no later gap can fit better.
  bool take(uint64_t offset, uint64_t end) {
    if (offset >= top && offset - top >= bytes) {
      uint64_t waste = offset - top - bytes;
      if (!found || waste < bestWaste) {
        found = true;
        best = top;
        bestWaste = waste;
        if (!waste) // no gap fits better, and the first is kept
          return false;
      }
    }
    top = std::max(top, end);
    return true;
  }

  /// The offset found.
  uint64_t offset() const { return found ? best : top; }

private:
  uint64_t bytes;
  bool found = false;
  uint64_t best = 0, bestWaste = 0, top = 0;
};

/// Where a block of `bytes` goes among the placed blocks `live` (indices
/// into `offsetOf` and `endOf`, by offset, each live with it).
uint64_t bestFit(ArrayRef<unsigned> live, ArrayRef<uint64_t> offsetOf,
                 ArrayRef<uint64_t> endOf, uint64_t bytes) {
  GapSearch gaps(bytes);
  for (unsigned other : live)
    if (!gaps.take(offsetOf[other], endOf[other]))
      break;
  return gaps.offset();
}

#ifdef MEMOPT_AVX512_SCAN
/// Whether the CPU has AVX-512 (the build targets baseline x86-64).
bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

/// liveIndices, sixteen blocks at a time; `end` a multiple of sixteen.
__attribute__((target("avx512f,popcnt"))) unsigned
liveIndicesAvx512(const unsigned *first, const unsigned *last, unsigned end,
                  unsigned from, unsigned to, unsigned *out) {
  const __m512i fromAll = _mm512_set1_epi32(int32_t(from));
  const __m512i toAll = _mm512_set1_epi32(int32_t(to));
  const __m512i sixteen = _mm512_set1_epi32(16);
  __m512i indices = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                      12, 13, 14, 15);
  unsigned count = 0;
  for (unsigned index = 0; index != end; index += 16) {
    __mmask16 live =
        _mm512_cmple_epu32_mask(_mm512_loadu_si512(first + index), toAll) &
        _mm512_cmple_epu32_mask(fromAll, _mm512_loadu_si512(last + index));
    _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(live, indices));
    count += __builtin_popcount(live);
    indices = _mm512_add_epi32(indices, sixteen);
  }
  return count;
}
#endif

#ifdef __SSE2__
/// Per mask of four lanes, the lanes set in it, first (the rest 0).
const __m128i kLanes[16] = {
    _mm_setr_epi32(0, 0, 0, 0), _mm_setr_epi32(0, 0, 0, 0),
    _mm_setr_epi32(1, 0, 0, 0), _mm_setr_epi32(0, 1, 0, 0),
    _mm_setr_epi32(2, 0, 0, 0), _mm_setr_epi32(0, 2, 0, 0),
    _mm_setr_epi32(1, 2, 0, 0), _mm_setr_epi32(0, 1, 2, 0),
    _mm_setr_epi32(3, 0, 0, 0), _mm_setr_epi32(0, 3, 0, 0),
    _mm_setr_epi32(1, 3, 0, 0), _mm_setr_epi32(0, 1, 3, 0),
    _mm_setr_epi32(2, 3, 0, 0), _mm_setr_epi32(0, 2, 3, 0),
    _mm_setr_epi32(1, 2, 3, 0), _mm_setr_epi32(0, 1, 2, 3),
};
/// Per mask, the lanes set (a table: x86-64 without POPCNT would call a
/// function for llvm::popcount).
constexpr uint8_t kLaneCount[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                    1, 2, 2, 3, 2, 3, 3, 4};
#endif

/// Writes to `out` the indices below `end` of the blocks live with
/// [from, to] (by `first` and `last`), in order, and returns their count.
/// `first` and `last` hold blocks up to `end` rounded up to sixteen, those
/// past `end` never live (first above any position); `out` has room for
/// sixteen past the last block.
unsigned liveIndices(const unsigned *first, const unsigned *last, unsigned end,
                     unsigned from, unsigned to, unsigned *out) {
  unsigned count = 0, index = 0;
#ifdef MEMOPT_AVX512_SCAN
  if (hasAvx512())
    return liveIndicesAvx512(first, last, llvm::alignTo(end, 16), from, to,
                             out);
#endif
#ifdef __SSE2__
  // Four blocks at a time: SSE2 compares signed, so positions are biased
  // by 2^31 to compare them unsigned; the lanes live with the interval
  // are stored together by a shuffle from a table.
  const __m128i bias = _mm_set1_epi32(INT32_MIN);
  const __m128i toBiased = _mm_set1_epi32(int32_t(to ^ 0x80000000u));
  const __m128i fromBiased = _mm_set1_epi32(int32_t(from ^ 0x80000000u));
  for (; index + 4 <= end; index += 4) {
    __m128i firstBiased = _mm_xor_si128(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(first + index)),
        bias);
    __m128i lastBiased = _mm_xor_si128(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(last + index)), bias);
    __m128i apart = _mm_or_si128(_mm_cmpgt_epi32(firstBiased, toBiased),
                                 _mm_cmpgt_epi32(fromBiased, lastBiased));
    unsigned mask = ~_mm_movemask_ps(_mm_castsi128_ps(apart)) & 0xf;
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + count),
                     _mm_add_epi32(_mm_set1_epi32(index), kLanes[mask]));
    count += kLaneCount[mask];
  }
#endif
  for (; index != end; ++index) {
    out[count] = index;
    count += (first[index] <= to) & (from <= last[index]);
  }
  return count;
}

/// The blocks placed so far, by offset (ties: the earlier placed first),
/// each as its offset, end and positions in arrays of their own: finding
/// those live with the next block is one branch-free pass over two arrays
/// of positions, without sorting them per block. The blocks are held in
/// chunks of at most kCapacity, each by offset and all chunks in order:
/// a block inserted moves the blocks above it in its own chunk only (one
/// sorted array of 3000 blocks moved half of them per insert, a tenth of
/// a microbatched plan's time).
class PlacedByOffset {
public:
  explicit PlacedByOffset(size_t capacity) {
    chunks.reserve(capacity / (Chunk::kCapacity / 2) + 1);
  }

  /// The offset best fit gives `interval` among the blocks live with it.
  uint64_t place(const LiveInterval &interval) {
    GapSearch gaps(interval.bytes);
    for (const std::unique_ptr<Chunk> &chunk : chunks) {
      unsigned count = liveIndices(chunk->firsts, chunk->lasts, chunk->size,
                                   interval.first, interval.last, live);
      for (unsigned i = 0; i != count; ++i)
        if (!gaps.take(chunk->offsets[live[i]], chunk->ends[live[i]]))
          return gaps.offset();
    }
    return gaps.offset();
  }

  void insert(const LiveInterval &interval, uint64_t offset) {
    if (chunks.empty()) {
      chunks.push_back(std::make_unique<Chunk>());
      chunks.back()->insert(interval, offset);
      return;
    }
    // The block goes after every placed block at or below `offset`: into
    // the first chunk whose top block is above it, else the last.
    size_t at = llvm::partition_point(chunks,
                                      [&](const std::unique_ptr<Chunk> &c) {
                                        return c->topOffset() <= offset;
                                      }) -
                chunks.begin();
    at = std::min(at, chunks.size() - 1);
    if (chunks[at]->size == Chunk::kCapacity) {
      chunks.insert(chunks.begin() + at + 1, chunks[at]->splitUpperHalf());
      if (chunks[at]->topOffset() <= offset)
        ++at;
    }
    chunks[at]->insert(interval, offset);
  }

private:
  struct Chunk {
    static constexpr unsigned kCapacity = 256;
    Chunk() {
      std::fill(std::begin(firsts), std::end(firsts), kNever);
      std::fill(std::begin(lasts), std::end(lasts), 0u);
    }
    uint64_t topOffset() const { return offsets[size - 1]; }
    void insert(const LiveInterval &interval, uint64_t offset) {
      unsigned at = std::upper_bound(offsets, offsets + size, offset) - offsets;
      unsigned above = size - at;
      std::memmove(offsets + at + 1, offsets + at, above * sizeof(uint64_t));
      std::memmove(ends + at + 1, ends + at, above * sizeof(uint64_t));
      std::memmove(firsts + at + 1, firsts + at, above * sizeof(unsigned));
      std::memmove(lasts + at + 1, lasts + at, above * sizeof(unsigned));
      offsets[at] = offset;
      ends[at] = offset + interval.bytes;
      firsts[at] = interval.first;
      lasts[at] = interval.last;
      ++size;
    }
    /// Moves the upper half of the blocks to a new chunk.
    std::unique_ptr<Chunk> splitUpperHalf() {
      auto upper = std::make_unique<Chunk>();
      unsigned keep = size / 2;
      upper->size = size - keep;
      std::copy(offsets + keep, offsets + size, upper->offsets);
      std::copy(ends + keep, ends + size, upper->ends);
      std::copy(firsts + keep, firsts + size, upper->firsts);
      std::copy(lasts + keep, lasts + size, upper->lasts);
      std::fill(firsts + keep, firsts + size, kNever);
      std::fill(lasts + keep, lasts + size, 0u);
      size = keep;
      return upper;
    }
    /// A first position after every position: the slots past `size` are
    /// never live (liveIndices scans whole groups of sixteen).
    static constexpr unsigned kNever = std::numeric_limits<unsigned>::max();
    unsigned size = 0;
    unsigned firsts[kCapacity], lasts[kCapacity];
    uint64_t offsets[kCapacity], ends[kCapacity];
  };
  static_assert(Chunk::kCapacity % 16 == 0, "liveIndices scans by sixteen");
  std::vector<std::unique_ptr<Chunk>> chunks;
  /// Scratch: the indices in a chunk of the blocks live with the one
  /// being placed, with room for sixteen past the last.
  unsigned live[Chunk::kCapacity + 16];
};

/// Below this share of all pairs live together, BestFit::place finds each
/// block's live neighbours in the time index rather than scanning every
/// placed block (sorting a block's neighbours costs more than the scan
/// when they are most of the placed blocks, as in one step's activations
/// that live across its backward).
constexpr uint64_t kSparseShare = 32;

/// No bound on BestFit::place's arena.
constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

/// Best-fit placement of one set of intervals, in whichever orders are
/// tried: how each block finds the placed blocks live with it (a time
/// index where few pairs are live together, else a pass over all of
/// them) is decided, and the index built, once for all of them.
class BestFit {
public:
  explicit BestFit(ArrayRef<LiveInterval> intervals) : intervals(intervals) {
    uint64_t n = intervals.size();
    if (overlappingPairs(intervals) * kSparseShare < n * n / 2)
      index.emplace(intervals);
  }

  ArrayRef<LiveInterval> getIntervals() const { return intervals; }

  /// Places the intervals in `order` best-fit; fills `offsets`, returns the
  /// arena size. The same offsets either way it finds the live blocks. Once
  /// the arena reaches `bound` it stops and returns what it reached (at
  /// least `bound`; `offsets` then incomplete): the caller keeps only a
  /// placement below its bound, and the arena only grows as blocks are
  /// placed.
  uint64_t place(ArrayRef<unsigned> order, SmallVectorImpl<uint64_t> &offsets,
                 uint64_t bound = kUnbounded) const;

private:
  ArrayRef<LiveInterval> intervals;
  std::optional<TimeIndex> index;
};

uint64_t BestFit::place(ArrayRef<unsigned> order,
                        SmallVectorImpl<uint64_t> &offsets,
                        uint64_t bound) const {
  offsets.assign(intervals.size(), 0);
  // Places each block at `fit`'s offset and tells `record`.
  auto placeAll = [&](function_ref<uint64_t(unsigned)> fit,
                      function_ref<void(unsigned)> record) {
    uint64_t total = 0;
    for (unsigned current : order) {
      offsets[current] = fit(current);
      record(current);
      total = std::max(total, offsets[current] + intervals[current].bytes);
      if (total >= bound)
        break;
    }
    return total;
  };
  if (index) {
    SmallVector<bool> isPlaced(intervals.size(), false);
    SmallVector<uint64_t> ends(intervals.size(), 0);
    SmallVector<unsigned> live;
    return placeAll(
        [&](unsigned current) {
          live.clear();
          index->forEachOverlapping(intervals[current], [&](unsigned other) {
            if (isPlaced[other])
              live.push_back(other);
          });
          llvm::sort(live, [&](unsigned a, unsigned b) {
            return offsets[a] < offsets[b];
          });
          return bestFit(live, offsets, ends, intervals[current].bytes);
        },
        [&](unsigned current) {
          ends[current] = offsets[current] + intervals[current].bytes;
          isPlaced[current] = true;
        });
  }
  PlacedByOffset placed(intervals.size());
  return placeAll(
      [&](unsigned current) { return placed.place(intervals[current]); },
      [&](unsigned current) {
        placed.insert(intervals[current], offsets[current]);
      });
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
/// repeated while it lowers the arena, down to `enough` (at least the live
/// peak, below which nothing goes: a candidate that reaches it is the best
/// of its round). Updates `order`, `offsets` and `total` when it finds a
/// smaller arena.
void promoteToFront(const BestFit &placer, uint64_t enough,
                    SmallVectorImpl<unsigned> &order,
                    SmallVectorImpl<uint64_t> &offsets, uint64_t &total) {
  ArrayRef<LiveInterval> intervals = placer.getIntervals();
  SmallVector<uint64_t> tried, bestOffsets;
  for (unsigned round = 0; round < kPromotionRounds && total > enough;
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
    // A candidate is kept only below the best so far: its placement stops
    // once it reaches that, and the one kept is placed already.
    std::optional<SmallVector<unsigned>> bestOrder;
    uint64_t bestTotal = total;
    for (unsigned candidate : live) {
      SmallVector<unsigned> promoted{candidate};
      for (unsigned index : order)
        if (index != candidate)
          promoted.push_back(index);
      uint64_t placed = placer.place(promoted, tried, bestTotal);
      if (placed < bestTotal) {
        bestTotal = placed;
        bestOrder = std::move(promoted);
        std::swap(bestOffsets, tried);
      }
      if (bestTotal <= enough)
        break;
    }
    if (!bestOrder)
      return;
    order.assign(bestOrder->begin(), bestOrder->end());
    offsets.assign(bestOffsets.begin(), bestOffsets.end());
    total = bestTotal;
  }
}

/// What an order places first: the larger key (compared as a pair).
using OrderKey = std::pair<uint64_t, uint64_t>;

/// The intervals' indices, the larger `key` first; ties: the earlier
/// interval first, then the lower index, so that a plan is deterministic.
SmallVector<unsigned> sortedOrder(ArrayRef<LiveInterval> intervals,
                                  function_ref<OrderKey(unsigned)> key) {
  struct Entry {
    OrderKey key;
    unsigned first, index;
  };
  SmallVector<Entry> entries;
  entries.reserve(intervals.size());
  for (auto [index, interval] : llvm::enumerate(intervals))
    entries.push_back({key(index), interval.first, unsigned(index)});
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    if (a.key != b.key)
      return a.key > b.key;
    return std::tie(a.first, a.index) < std::tie(b.first, b.index);
  });
  return llvm::to_vector(
      llvm::map_range(entries, [](const Entry &entry) { return entry.index; }));
}

/// The orders packIntervals tries before the breadth order.
constexpr unsigned kFirstOrders = 3;

/// The intervals' indices in packIntervals' order `which` (below
/// kFirstOrders).
SmallVector<unsigned> firstOrder(ArrayRef<LiveInterval> intervals,
                                 unsigned which) {
  auto lifetime = [&](unsigned i) {
    return uint64_t(intervals[i].last - intervals[i].first);
  };
  auto bytes = [&](unsigned i) { return intervals[i].bytes; };
  switch (which) {
  case 0: // Largest first.
    return sortedOrder(intervals,
                       [&](unsigned i) { return OrderKey{bytes(i), 0}; });
  case 1: // Largest area in the (time, bytes) plane first.
    return sortedOrder(intervals, [&](unsigned i) {
      return OrderKey{bytes(i) * (lifetime(i) + 1), 0};
    });
  default: // Longest-lived first, then largest.
    return sortedOrder(intervals, [&](unsigned i) {
      return OrderKey{lifetime(i), bytes(i)};
    });
  }
}

/// packIntervals' breadth order (the last of its orders).
SmallVector<unsigned> breadthOrder(ArrayRef<LiveInterval> intervals) {
  SmallVector<unsigned> breadthRank = rankByBreadth(intervals);
  return sortedOrder(intervals, [&](unsigned i) {
    return OrderKey{std::numeric_limits<unsigned>::max() - breadthRank[i],
                    intervals[i].bytes};
  });
}

} // namespace

uint64_t memopt::peakLiveBytes(ArrayRef<LiveInterval> intervals) {
  SmallVector<uint64_t> live = liveBytes(intervals);
  return live.empty() ? 0 : *llvm::max_element(live);
}

namespace {

/// The last packedBytes and packsWithin answers, by their intervals. A
/// planner asks for the same packing again and again: remat's greedy
/// variants run side by side and walk the same first rounds, the
/// overshoot variant retraces the greedy with cuts, the prunes of the
/// variants and of their exchanges test the same stores back (on a
/// microbatched ResNet-34 U-Net stage, half of packsWithin's questions
/// were asked before), and auto-fit plans one step under several
/// settings. Above the live peak one packing is about five best-fit
/// passes and a promotion of up to sixteen (3000 blocks: half of a plan's
/// time), so what is known of an answer is kept rather than packed
/// again: the arena itself (packedBytes), or a bound on it (packsWithin:
/// at most a limit, or above one). The key is the intervals themselves
/// (compared whole, not only by hash); the answers are the packer's, so
/// plans are the same with or without the memo.
class PackedBytesMemo {
public:
  /// What is known of packedBytes(intervals): it lies in [least, most].
  struct Known {
    uint64_t least = 0;
    uint64_t most = std::numeric_limits<uint64_t>::max();
  };

  std::optional<Known> lookup(ArrayRef<LiveInterval> intervals,
                              llvm::hash_code hash) {
    std::lock_guard<std::mutex> lock(mutex);
    if (Entry *entry = find(intervals, hash))
      return entry->known;
    return std::nullopt;
  }

  /// Narrows what is known of the intervals' arena to [least, most].
  void insert(ArrayRef<LiveInterval> intervals, llvm::hash_code hash,
              Known known) {
    std::lock_guard<std::mutex> lock(mutex);
    if (Entry *entry = find(intervals, hash)) {
      entry->known.least = std::max(entry->known.least, known.least);
      entry->known.most = std::min(entry->known.most, known.most);
      return;
    }
    if (entries.size() == kEntries)
      entries.pop_front();
    entries.push_back({hash, {intervals.begin(), intervals.end()}, known});
  }

private:
  /// About 50 KB each for 3000 blocks: a few MB in all.
  static constexpr size_t kEntries = 64;
  struct Entry {
    llvm::hash_code hash;
    std::vector<LiveInterval> intervals;
    Known known;
  };
  Entry *find(ArrayRef<LiveInterval> intervals, llvm::hash_code hash) {
    for (Entry &entry : entries)
      if (entry.hash == hash && equal(entry.intervals, intervals))
        return &entry;
    return nullptr;
  }
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

/// A placement in the breadth order.
struct BreadthPlacement {
  SmallVector<unsigned> order;
  SmallVector<uint64_t> offsets;
  uint64_t total = 0;
};

BreadthPlacement placeByBreadth(const BestFit &placer) {
  BreadthPlacement placement;
  placement.order = breadthOrder(placer.getIntervals());
  placement.total = placer.place(placement.order, placement.offsets);
  return placement;
}

/// packIntervals, given the breadth order's placement where the caller
/// has it already.
Packing packOrders(const BestFit &placer,
                   std::optional<BreadthPlacement> breadth);

/// packedBytes without the memo.
uint64_t packBytes(ArrayRef<LiveInterval> intervals) {
  // Where the breadth order reaches the live peak, so does packIntervals
  // (no order is below it, whichever of them it keeps); that order alone
  // costs a fifth of trying them all.
  BestFit placer(intervals);
  BreadthPlacement breadth = placeByBreadth(placer);
  if (breadth.total == peakLiveBytes(intervals))
    return breadth.total;
  return packOrders(placer, std::move(breadth)).total;
}

PackedBytesMemo &packedBytesMemo() {
  static PackedBytesMemo memo;
  return memo;
}

} // namespace

uint64_t memopt::packedBytes(ArrayRef<LiveInterval> intervals) {
  PackedBytesMemo &memo = packedBytesMemo();
  llvm::hash_code hash = hashIntervals(intervals);
  std::optional<PackedBytesMemo::Known> known = memo.lookup(intervals, hash);
  if (known && known->least == known->most)
    return known->most;
  uint64_t total = packBytes(intervals);
  memo.insert(intervals, hash, {total, total});
  return total;
}

namespace {

Packing packOrders(const BestFit &placer,
                   std::optional<BreadthPlacement> breadth) {
  ArrayRef<LiveInterval> intervals = placer.getIntervals();
  // No packing is below the live peak: the first order that reaches it
  // is the one the loop would keep, and the rest need not run.
  uint64_t peak = peakLiveBytes(intervals);
  Packing best;
  SmallVector<uint64_t> offsets;
  // An order is kept only below the orders before it (and, where the
  // breadth order's arena is known, at most it: ties keep the earlier
  // order), so its placement stops once it reaches that bound.
  bool kept = false;
  uint64_t bound = breadth ? breadth->total + 1 : kUnbounded;
  for (unsigned which = 0; which < kFirstOrders; ++which) {
    uint64_t total = placer.place(firstOrder(intervals, which), offsets,
                                  kept ? best.total : bound);
    if (total < (kept ? best.total : bound)) {
      kept = true;
      best.total = total;
      best.offsets = offsets;
    }
    if (kept && best.total == peak)
      return best;
  }
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
  if (!breadth)
    breadth = placeByBreadth(placer);
  if (!kept || breadth->total < best.total) {
    best.total = breadth->total;
    best.offsets = breadth->offsets;
  }
  if (best.total == peak)
    return best;
  // Above the live peak: a local search from the breadth order's
  // placement, which measured on remat plans left the holes that
  // promotion closes (docs/passes/plan-memory.md#placement).
  promoteToFront(placer, peak, breadth->order, breadth->offsets,
                 breadth->total);
  if (breadth->total < best.total) {
    best.total = breadth->total;
    best.offsets = std::move(breadth->offsets);
  }
  return best;
}

} // namespace

Packing memopt::packIntervals(ArrayRef<LiveInterval> intervals) {
  return packOrders(BestFit(intervals), std::nullopt);
}

namespace {

/// packsWithin, where the memo knows nothing that answers it.
bool packsWithinUnknown(ArrayRef<LiveInterval> intervals, uint64_t limit) {
  // packIntervals' placements, in its order of trying them, until one is
  // within the limit: its arena is the least of them, so it is within the
  // limit exactly when one of them is. The first orders stop once they
  // pass the limit; the breadth order's placement is whole, as promotion
  // starts from it.
  BestFit placer(intervals);
  BreadthPlacement breadth = placeByBreadth(placer);
  if (breadth.total <= limit)
    return true;
  SmallVector<uint64_t> offsets;
  for (unsigned which = 0; which < kFirstOrders; ++which)
    if (placer.place(firstOrder(intervals, which), offsets, limit + 1) <= limit)
      return true;
  promoteToFront(placer, limit, breadth.order, breadth.offsets, breadth.total);
  return breadth.total <= limit;
}

} // namespace

bool memopt::packsWithin(ArrayRef<LiveInterval> intervals, uint64_t limit) {
  if (peakLiveBytes(intervals) > limit)
    return false;
  PackedBytesMemo &memo = packedBytesMemo();
  llvm::hash_code hash = hashIntervals(intervals);
  std::optional<PackedBytesMemo::Known> known = memo.lookup(intervals, hash);
  if (known && known->most <= limit)
    return true;
  if (known && known->least > limit)
    return false;
  bool within = packsWithinUnknown(intervals, limit);
  memo.insert(intervals, hash,
              within ? PackedBytesMemo::Known{0, limit}
                     : PackedBytesMemo::Known{limit + 1});
  return within;
}
