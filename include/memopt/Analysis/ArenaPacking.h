//===- ArenaPacking.h - Offsets for live intervals --------------*- C++ -*-===//
//
// The offset assignment under the static memory plan (ArenaPlan): blocks
// of bytes, each live over an interval of positions, get offsets such that
// two blocks live at the same position never overlap, in an arena as small
// as a few best-fit orders find. The least such arena is NP-hard to find
// (dynamic storage allocation); its lower bound is the most bytes live at
// one position, which ArenaPacking's orders reach on most training steps
// (docs/passes/plan-memory.md).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_ARENAPACKING_H
#define MEMOPT_ANALYSIS_ARENAPACKING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace memopt {

/// A block of `bytes` live from position `first` to `last`, inclusive.
struct LiveInterval {
  unsigned first;
  unsigned last;
  uint64_t bytes;
};

struct Packing {
  /// Per interval, in the order given, its offset.
  llvm::SmallVector<uint64_t> offsets;
  /// The end of the highest block.
  uint64_t total = 0;
};

/// Places `intervals` best-fit (each at the lowest-waste gap between the
/// blocks already placed that are live with it, or on top of them) in
/// each of a few orders (largest first; largest time-bytes area first;
/// longest-lived first; by breadth: the blocks of the fullest position
/// first) and keeps the smallest arena, the earlier order on ties. Above
/// the live peak, a bounded local search from the breadth order moves
/// blocks live where the arena's top is first reached to the front of the
/// order while that lowers it. Deterministic.
Packing packIntervals(llvm::ArrayRef<LiveInterval> intervals);

/// packIntervals(intervals).total, without the offsets: the breadth order
/// alone where it reaches the live peak (as it does on most remat trials).
uint64_t packedBytes(llvm::ArrayRef<LiveInterval> intervals);

/// Whether packedBytes(intervals) is at most `limit`, answered with fewer
/// placements: the first placement within the limit answers, and the
/// placements that are not whole stop once they pass it.
bool packsWithin(llvm::ArrayRef<LiveInterval> intervals, uint64_t limit);

/// The most bytes live at one position: no packing is smaller.
uint64_t peakLiveBytes(llvm::ArrayRef<LiveInterval> intervals);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_ARENAPACKING_H
