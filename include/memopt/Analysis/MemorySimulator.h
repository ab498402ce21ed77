//===- MemorySimulator.h - Live arena bytes over an op order ----*- C++ -*-===//
//
// The one memory simulator of memopt (as XLA's heap simulator): the ops of
// a single-block function as a graph over their indices, with the bytes
// the memory plan puts in the arena, and for any order of those ops the
// live bytes at each point, counted as tg-plan-memory (ArenaPlan) places
// them:
//
// - a buffer per arena value (StepMemory.h: livesInArena), 64-byte
//   aligned, live from its op to its last use (to the end when the
//   terminator returns it);
// - with in-place writes allowed, a result written over an operand of its
//   size that dies at its op (inPlaceCandidates) shares the operand's
//   buffer, and the operands of a tg.concat computed in their slices
//   (concatSlices) share one buffer of the concat's size with its result,
//   from the first of them on: shared bytes count once;
// - the workspace of the running op (memopt::workspaceBytes, as
//   tg-annotate-workspaces recorded it) counts during its op.
//
// tg-schedule asks it for the peak of each candidate order; the
// questions of rematerialization and offload ("what is live at op i",
// "the peak if value v were absent between i and j") are answered here
// too. Per-op facts come through StepMemory.h and Workspace.h only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_MEMORYSIMULATOR_H
#define MEMOPT_ANALYSIS_MEMORYSIMULATOR_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace memopt {

class MemorySimulator {
public:
  static constexpr unsigned kNone = ~0u;

  /// An arena value: an op result that the plan puts in the arena.
  struct ArenaValue {
    mlir::Value value;
    uint64_t bytes; // aligned to the arena alignment
    unsigned def;   // index of its op
    llvm::SmallVector<unsigned, 2> users; // op indices, unique, given order
    bool liveOut;                         // read by the terminator
    /// For a concat operand computed in its slice: the concat result's
    /// value index; for a concat result with such operands: itself.
    unsigned concat = kNone;
    /// For a concat operand computed in its slice: the slice's byte offset
    /// in the concat's result.
    uint64_t sliceOffset = 0;
  };

  /// An op of the block (terminator excluded), in the given order.
  struct Op {
    mlir::Operation *op;
    llvm::SmallVector<unsigned, 2> preds;    // unique
    llvm::SmallVector<unsigned, 2> succs;    // unique
    llvm::SmallVector<unsigned, 2> operands; // arena values, unique
    llvm::SmallVector<unsigned, 1> results;  // arena values
    /// Per entry of `results`: the operands it may overwrite, in order of
    /// preference, as (operand number, arena value).
    llvm::SmallVector<llvm::SmallVector<std::pair<unsigned, unsigned>, 2>, 1>
        inPlace;
    uint64_t workspace = 0; // aligned
  };

  /// The graph of `function`'s single block. Edges are the use-def edges,
  /// the given order of ops with side effects, and for an op that updates
  /// an argument in place every earlier reader of that argument first.
  /// `inPlace`: whether in-place writes and concat slices are allowed
  /// (#memopt.target).
  MemorySimulator(mlir::func::FuncOp function, bool inPlace);

  llvm::ArrayRef<Op> ops() const { return opInfo; }
  llvm::ArrayRef<ArenaValue> values() const { return valueInfo; }
  /// The index of an arena value, kNone for a value outside the arena.
  unsigned valueIndex(mlir::Value value) const;
  /// The given order: 0, 1, ..., n - 1.
  llvm::SmallVector<unsigned> givenOrder() const;
  /// Whether layout(order) can differ from the layout of the given order
  /// on a simulator of the function with its ops reordered to `order`:
  /// only where a value is an operand of two concats, whose slice it is
  /// computed in goes to the first concat of the block. Elsewhere the
  /// graph is the same, and so is every buffer of the layout.
  bool layoutDependsOnGivenOrder() const { return sliceDependsOnOrder; }

  /// Live bytes while each op of `order` (a permutation of the op indices)
  /// runs.
  llvm::SmallVector<uint64_t> liveBytes(llvm::ArrayRef<unsigned> order) const;
  /// The largest of liveBytes(order).
  uint64_t peak(llvm::ArrayRef<unsigned> order) const;

  /// A buffer of an order: the arena values that share its bytes (each at
  /// an offset in it), or an op's workspace; live over positions [first,
  /// last] of the order (last is the op count for a returned value).
  struct Buffer {
    llvm::SmallVector<std::pair<unsigned, uint64_t>, 1> values;
    unsigned workspaceOf = kNone; // op index, for a workspace
    unsigned first, last;
    uint64_t bytes;
  };
  /// How an order shares memory: what the memory plan places (ArenaPlan),
  /// before it chooses offsets.
  struct Layout {
    /// The buffers, in the order the plan creates them: by position, an
    /// op's workspace before its results, a buffer at its first value (a
    /// concat's at its first operand computed in a slice).
    llvm::SmallVector<Buffer> buffers;
    /// Per arena value: the operand number it overwrites in place, or kNone.
    llvm::SmallVector<unsigned> inPlaceOperand;
    /// Position in the order of each op, last use of each value.
    llvm::SmallVector<unsigned> position, lastUse;
    /// Per arena value: the index of its buffer.
    llvm::SmallVector<unsigned> bufferOf;
  };
  Layout layout(llvm::ArrayRef<unsigned> order) const;

  /// The most bytes live over any range of positions of an order, each
  /// in constant time (a sparse table of range maxima, built in
  /// O(n log n)): peakWithout's many queries on one order.
  class LiveMax {
  public:
    explicit LiveMax(llvm::ArrayRef<uint64_t> live);
    /// The most of `live` in positions [from, to]; 0 for an empty range.
    uint64_t max(unsigned from, unsigned to) const;

  private:
    /// levels[k][i]: the most of live[i, i + 2^k).
    llvm::SmallVector<llvm::SmallVector<uint64_t>> levels;
  };

  /// The queries below take the layout of an order, computed once: a
  /// search that asks them of many values reuses it (tg-remat's trials).
  /// liveBytes(order), from `layout` = layout(order).
  llvm::SmallVector<uint64_t> liveBytes(llvm::ArrayRef<unsigned> order,
                                        const Layout &layout) const;
  /// The arena values whose buffers hold bytes while the op at position
  /// `at` of the layout's order runs (a value shares its buffer's
  /// interval).
  llvm::SmallVector<unsigned> liveAt(const Layout &layout, unsigned at) const;
  /// The peak of the layout's order (whose live bytes are `live`:
  /// liveBytes(order, layout)) if arena value `value` were absent from
  /// position `from` to `to` (inclusive): freed after a forward use,
  /// recomputed or brought back before a later one. The bytes of its
  /// buffer leave where no other value of the buffer spans the point; the
  /// sharing decisions of the full order are kept.
  uint64_t peakWithout(const Layout &layout, llvm::ArrayRef<uint64_t> live,
                       unsigned value, unsigned from, unsigned to) const;
  /// peakWithout, with the range maxima of `live` built once.
  uint64_t peakWithout(const Layout &layout, const LiveMax &live,
                       unsigned value, unsigned from, unsigned to) const;
  /// One arena value absent from position `from` to `to` (inclusive).
  struct Absence {
    unsigned value, from, to;
  };
  /// peakWithout with several values absent at once, each over its own
  /// positions (tg-remat's ties: the microbatches' copies of a value).
  uint64_t peakWithout(const Layout &layout, const LiveMax &live,
                       llvm::ArrayRef<Absence> absences) const;

private:
  /// The positions where `absence` takes its buffer's bytes away (at most
  /// two ranges), appended to `ranges`; returns the buffer's bytes.
  uint64_t absentRanges(
      const Layout &layout, Absence absence,
      llvm::SmallVectorImpl<std::pair<unsigned, unsigned>> &ranges) const;

  llvm::SmallVector<Op> opInfo;
  llvm::SmallVector<ArenaValue> valueInfo;
  llvm::DenseMap<mlir::Value, unsigned> indexOf;
  bool sliceDependsOnOrder = false;
};

} // namespace memopt

#endif // MEMOPT_ANALYSIS_MEMORYSIMULATOR_H
