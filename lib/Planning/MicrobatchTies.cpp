//===- MicrobatchTies.cpp - The microbatches' copies of a value -----------===//
//
// MicrobatchTies.h. The copies of an op are found as tg-microbatch makes
// them: ops of one name, location, attributes and result types, n of them
// in the forward, are M copies of n / M ops, microbatch after microbatch
// in program order (each microbatch's forward is emitted before the
// next's, under every schedule). A tie only guides tg-remat's search: a
// copy paired wrongly would make a plan slower, never wrong, since the
// plan still names each value it recomputes or offloads.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/MicrobatchTies.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/MapVector.h"

#include <tuple>

using namespace mlir;
using namespace memopt;

/// The attributes that tg-microbatch's copies of `op` share: all but a
/// received value's tag, which it offsets by the copy's microbatch.
static DictionaryAttr copyInvariantAttrs(Operation *op) {
  auto recv = dyn_cast<tg::RecvOp>(op);
  if (!recv)
    return op->getAttrDictionary();
  NamedAttrList attrs(op->getAttrDictionary());
  attrs.erase(recv.getTagAttrName());
  return attrs.getDictionary(op->getContext());
}

MicrobatchTies::MicrobatchTies(func::FuncOp function,
                               ArrayRef<Operation *> forward,
                               Transfers transfers) {
  MicrobatchAttr microbatch = getDecision<MicrobatchAttr>(function);
  if (!microbatch || microbatch.getMicrobatches() < 2)
    return;
  unsigned m = microbatch.getMicrobatches();
  // What tg-microbatch's clones of one op share.
  using Key = std::tuple<OperationName, Location, DictionaryAttr, TypeRange>;
  llvm::MapVector<Key, SmallVector<Operation *>> byKey;
  for (Operation *op : forward)
    if (transfers == Transfers::Tied || !isa<tg::RecvOp>(op))
      byKey[Key{op->getName(), op->getLoc(), copyInvariantAttrs(op),
                op->getResultTypes()}]
          .push_back(op);
  for (auto &[key, ops] : byKey) {
    if (ops.size() < m || ops.size() % m)
      continue;
    // ops[j] is copy j / perCopy of slot j % perCopy.
    unsigned perCopy = ops.size() / m;
    for (unsigned slot = 0; slot < perCopy; ++slot)
      for (unsigned result = 0; result < ops[slot]->getNumResults();
           ++result) {
        unsigned tie = ties.size();
        SmallVector<Value, 4> &copies = ties.emplace_back();
        for (unsigned k = 0; k < m; ++k) {
          Value copy = ops[k * perCopy + slot]->getResult(result);
          copies.push_back(copy);
          tieOf[copy] = tie;
        }
      }
  }
}

ArrayRef<Value> MicrobatchTies::copiesOf(const Value &value) const {
  auto it = tieOf.find(value);
  if (it == tieOf.end())
    return ArrayRef<Value>(value);
  return ties[it->second];
}
