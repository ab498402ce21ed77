//===- MicrobatchTies.h - The microbatches' copies of a value ---*- C++ -*-===//
//
// Part of the planning library (docs/planning.md#microbatch-ties).
// tg-microbatch runs a step's per-microbatch ops once per microbatch by
// cloning them, microbatch after microbatch, with their locations. A
// pipelined stage's function thus holds M copies of every forward value,
// and each copy's memory over the schedule mirrors the others': each
// microbatch's unit reaches the same peak. tg-remat's auto strategy
// decides for all copies of a value at once (a tie), so that a choice
// lowers every one of these peaks together, in one round and one prune
// test rather than M. The values a stage receives from the one before it
// (tg.recv, whose copies differ in their tags) are tied only where asked
// (Transfers::Tied).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_MICROBATCHTIES_H
#define MEMOPT_PLANNING_MICROBATCHTIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace memopt {

class MicrobatchTies {
public:
  /// Which values are tied: the stage's own, or also what it receives
  /// from another stage (tg.recv), whose copies differ in their tags.
  enum class Transfers { Untied, Tied };

  /// The ties of `function`'s `forward` ops: none where tg-microbatch did
  /// not run it per microbatch (no memopt.microbatch decision, or one
  /// microbatch).
  MicrobatchTies(mlir::func::FuncOp function,
                 llvm::ArrayRef<mlir::Operation *> forward,
                 Transfers transfers = Transfers::Untied);
  /// No ties (a step that is not microbatched).
  MicrobatchTies() = default;

  /// The copies of `value`, itself included, in microbatch order; just
  /// `value` where it has none.
  llvm::ArrayRef<mlir::Value> copiesOf(const mlir::Value &value) const;
  /// Whether `value` stands for its copies: the first of them, or a value
  /// without copies.
  bool representative(mlir::Value value) const {
    return copiesOf(value).front() == value;
  }
  bool empty() const { return ties.empty(); }
  /// The number of ties.
  size_t size() const { return ties.size(); }
  /// The copies per tie (the microbatches); 1 without ties.
  unsigned copies() const { return ties.empty() ? 1 : ties.front().size(); }

private:
  /// The copies of each tied value (by the value's tie).
  llvm::SmallVector<llvm::SmallVector<mlir::Value, 4>> ties;
  llvm::DenseMap<mlir::Value, unsigned> tieOf;
};

} // namespace memopt

#endif // MEMOPT_PLANNING_MICROBATCHTIES_H
