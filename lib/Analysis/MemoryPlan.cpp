//===- MemoryPlan.cpp - The static memory plan as IR attributes -----------===//

#include "memopt/Analysis/MemoryPlan.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace memopt;

void MemoryPlan::write(func::FuncOp function, const ArenaPlan &plan,
                       const DenseMap<Operation *, uint64_t> &workspaces) {
  Builder builder(function.getContext());
  for (Operation &op : function.getBody().front().without_terminator()) {
    SmallVector<int64_t> offsets, inPlace;
    for (OpResult result : op.getResults()) {
      std::optional<uint64_t> offset = plan.offset(result);
      offsets.push_back(offset ? static_cast<int64_t>(*offset) : -1);
      std::optional<unsigned> operand = plan.inPlaceOperand(result);
      inPlace.push_back(operand ? static_cast<int64_t>(*operand) : -1);
    }
    if (!offsets.empty())
      op.setAttr(kOffsetsAttr, builder.getDenseI64ArrayAttr(offsets));
    if (ArrayRef<unsigned> sliced = plan.slicedOperands(&op); !sliced.empty())
      op.setAttr(kSlicedOperandsAttr,
                 builder.getDenseI64ArrayAttr(llvm::to_vector(llvm::map_range(
                     sliced, [](unsigned k) { return int64_t(k); }))));
    else
      op.removeAttr(kSlicedOperandsAttr);
    if (llvm::any_of(inPlace, [](int64_t index) { return index >= 0; }))
      op.setAttr(kInPlaceAttr, builder.getDenseI64ArrayAttr(inPlace));
    else
      op.removeAttr(kInPlaceAttr);
    if (std::optional<uint64_t> offset = plan.workspaceOffset(&op))
      op.setAttr(kWorkspaceAttr,
                 builder.getDenseI64ArrayAttr(
                     {static_cast<int64_t>(*offset),
                      static_cast<int64_t>(workspaces.lookup(&op))}));
    else
      op.removeAttr(kWorkspaceAttr);
  }
  function->setAttr(kArenaBytesAttr,
                    builder.getI64IntegerAttr(plan.totalBytes()));
}

namespace {

/// A buffer of the plan: bytes [begin, end) of the arena, held by result
/// `result` of `op` or, with result -1, by its workspace.
struct Buffer {
  uint64_t begin;
  uint64_t end;
  Operation *op;
  int result;

  bool operator==(const Buffer &other) const {
    return op == other.op && result == other.result;
  }
};

void describe(InFlightDiagnostic &diag, const Buffer &buffer) {
  if (buffer.result < 0)
    diag << "the workspace of '" << buffer.op->getName() << "'";
  else
    diag << "result #" << buffer.result << " of '" << buffer.op->getName()
         << "'";
  diag << " at arena bytes [" << buffer.begin << ", " << buffer.end << ")";
}

/// Checks the plan of one block while it is read: the buffers live at the
/// current op, by offset; they never overlap.
class PlanChecker {
public:
  PlanChecker(Block &body, uint64_t total) : total(total) {
    for (auto [index, op] : llvm::enumerate(body))
      position[&op] = index;
    endingAt.resize(position.size());
  }

  unsigned at(Operation *op) const { return position.lookup(op); }

  /// The position of `value`'s last use (its op's if it has none).
  unsigned lastUse(Value value) const {
    unsigned last = at(value.getDefiningOp());
    for (Operation *user : value.getUsers())
      last = std::max(last, at(user));
    return last;
  }

  /// Adds `buffer`, live until position `last`; fails on an overlap.
  LogicalResult add(const Buffer &buffer, unsigned last) {
    if (buffer.begin % ArenaPlan::kAlignment != 0)
      return error(buffer) << " is not aligned to " << ArenaPlan::kAlignment
                           << " bytes";
    if (buffer.end > total)
      return error(buffer) << " exceeds the arena of " << total << " bytes";
    if (buffer.begin == buffer.end)
      return success();
    auto next = live.lower_bound(buffer.begin);
    const Buffer *clash = nullptr;
    if (next != live.end() && next->first < buffer.end)
      clash = &next->second;
    else if (next != live.begin() && std::prev(next)->second.end > buffer.begin)
      clash = &std::prev(next)->second;
    if (clash) {
      InFlightDiagnostic diag = error(buffer);
      diag << " overlaps ";
      describe(diag, *clash);
      diag << ", which is live at the same time";
      diag.attachNote(clash->op->getLoc()) << "the other buffer's op";
      return failure();
    }
    live.emplace(buffer.begin, buffer);
    endingAt[last].push_back(buffer);
    return success();
  }

  /// Hands the buffer of `operand` (a dying operand) to a result written
  /// over it in place.
  void release(const Buffer &operand) {
    auto it = live.find(operand.begin);
    if (it != live.end() && it->second == operand)
      live.erase(it);
  }

  /// Ends the buffers whose last use is the op at `index`.
  void endOp(unsigned index) {
    for (const Buffer &buffer : endingAt[index])
      release(buffer);
  }

private:
  InFlightDiagnostic error(const Buffer &buffer) {
    InFlightDiagnostic diag = buffer.op->emitError("memory plan: ");
    describe(diag, buffer);
    return diag;
  }

  uint64_t total;
  DenseMap<Operation *, unsigned> position;
  std::map<uint64_t, Buffer> live;
  std::vector<SmallVector<Buffer, 2>> endingAt;
};

/// The plan's buffer of op result `value` at [begin, end).
Buffer bufferOf(Value value, uint64_t begin, uint64_t end) {
  auto result = cast<OpResult>(value);
  return {begin, end, result.getOwner(),
          static_cast<int>(result.getResultNumber())};
}

/// The i64 array attribute `name` of `op` with `size` entries, or null
/// after a diagnostic.
FailureOr<ArrayRef<int64_t>> arrayAttr(Operation *op, StringRef name,
                                       size_t size, bool required) {
  Attribute attr = op->getAttr(name);
  if (!attr && !required)
    return ArrayRef<int64_t>();
  auto array = dyn_cast_or_null<DenseI64ArrayAttr>(attr);
  if (!array || array.size() != static_cast<int64_t>(size))
    return op->emitError("memory plan: expected '")
           << name << "' to be an array<i64> of " << size
           << " entries; run -tg-plan-memory";
  return array.asArrayRef();
}

/// For a tg.concat at `begin` whose `memopt.sliced_operands` says which
/// operands are already in their slice of its result: checks that they are
/// (as concatSlices allows), hands their buffers to the result and returns
/// the last position at which the result's buffer is live (`last`, or later
/// for an operand read after the concat).
FailureOr<unsigned> takeSlices(Operation &op, const MemoryPlan &plan,
                               PlanChecker &checker, uint64_t begin,
                               unsigned last) {
  Attribute attr = op.getAttr(kSlicedOperandsAttr);
  if (!attr)
    return last;
  auto array = dyn_cast<DenseI64ArrayAttr>(attr);
  std::optional<SmallVector<uint64_t>> offsets;
  if (isa<tg::ConcatOp>(op))
    offsets = concatOperandOffsets(&op);
  if (!array || !offsets)
    return op.emitError("memory plan: '")
           << kSlicedOperandsAttr
           << "' needs a tg.concat whose operands are contiguous slabs of "
              "its result";
  for (int64_t k : array.asArrayRef()) {
    if (k < 0 || k >= static_cast<int64_t>(op.getNumOperands()))
      return op.emitError("memory plan: no operand #") << k << " to slice";
    Value operand = op.getOperand(k);
    uint64_t at = begin + (*offsets)[k];
    if (plan.offset(operand) != at)
      return op.emitError("memory plan: operand #")
             << k << " must be at arena offset " << at
             << ", its slice of the result";
    checker.release(bufferOf(operand, at, at + tensorBytes(operand)));
    last = std::max(last, checker.lastUse(operand));
  }
  return last;
}

} // namespace

FailureOr<MemoryPlan> MemoryPlan::read(func::FuncOp function) {
  if (!function.getBody().hasOneBlock())
    return function.emitError("memory plan: the function must have a single "
                              "block");
  auto totalAttr = function->getAttrOfType<IntegerAttr>(kArenaBytesAttr);
  if (!totalAttr || totalAttr.getInt() < 0)
    return function.emitError("memory plan: the function has no '")
           << kArenaBytesAttr << "'; run -tg-plan-memory first";
  MemoryPlan plan;
  plan.total = totalAttr.getInt();
  Block &body = function.getBody().front();
  DenseMap<Value, unsigned> resultBuffers = resultBufferPlacements(function);
  PlanChecker checker(body, plan.total);

  for (Operation &op : body.without_terminator()) {
    unsigned at = checker.at(&op);
    if (op.getNumResults()) {
      FailureOr<ArrayRef<int64_t>> offsets =
          arrayAttr(&op, kOffsetsAttr, op.getNumResults(), true);
      FailureOr<ArrayRef<int64_t>> inPlace =
          arrayAttr(&op, kInPlaceAttr, op.getNumResults(), false);
      if (failed(offsets) || failed(inPlace))
        return failure();
      for (OpResult result : op.getResults()) {
        unsigned k = result.getResultNumber();
        int64_t operand = inPlace->empty() ? -1 : (*inPlace)[k];
        if ((*offsets)[k] < 0) {
          if (!isa<tg::ConstantOp>(op) && !resultBuffers.count(result))
            return op.emitError("memory plan: result #")
                   << k << " has no arena offset, but it is neither a "
                      "constant nor a step result computed in its buffer";
          if (operand >= 0)
            return op.emitError("memory plan: result #")
                   << k << " outside the arena cannot be written in place";
          continue;
        }
        if (!livesInArena(result, resultBuffers))
          return op.emitError("memory plan: result #")
                 << k << " cannot live in the arena (not a float tensor "
                    "temporary of static shape)";
        uint64_t begin = (*offsets)[k];
        Buffer buffer{begin,
                      begin + llvm::alignTo(tensorBytes(result),
                                            ArenaPlan::kAlignment),
                      &op, static_cast<int>(k)};
        if (operand >= 0) {
          if (!llvm::is_contained(inPlaceCandidates(result),
                                  static_cast<unsigned>(operand)))
            return op.emitError("memory plan: result #")
                   << k << " cannot be written over operand #" << operand
                   << " in place";
          Value over = op.getOperand(operand);
          if (plan.offset(over) != begin || checker.lastUse(over) != at)
            return op.emitError("memory plan: result #")
                   << k << " is written over operand #" << operand
                   << ", which must be at the same offset and die here";
          checker.release(bufferOf(over, begin, buffer.end));
        }
        unsigned last = checker.lastUse(result);
        FailureOr<unsigned> slicesEnd =
            takeSlices(op, plan, checker, begin, last);
        if (failed(slicesEnd) || failed(checker.add(buffer, *slicesEnd)))
          return failure();
        plan.offsets[result] = begin;
      }
    }
    FailureOr<ArrayRef<int64_t>> workspace =
        arrayAttr(&op, kWorkspaceAttr, 2, false);
    if (failed(workspace))
      return failure();
    if (!workspace->empty()) {
      if ((*workspace)[0] < 0 || (*workspace)[1] < 0)
        return op.emitError("memory plan: negative workspace offset or size");
      uint64_t begin = (*workspace)[0];
      Buffer buffer{begin,
                    begin + llvm::alignTo((*workspace)[1],
                                          ArenaPlan::kAlignment),
                    &op, -1};
      if (failed(checker.add(buffer, at)))
        return failure();
      plan.workspaceOffsets[&op] = begin;
    }
    checker.endOp(at);
  }
  return plan;
}

std::optional<uint64_t> MemoryPlan::offset(Value value) const {
  auto it = offsets.find(value);
  if (it == offsets.end())
    return std::nullopt;
  return it->second;
}

std::optional<uint64_t> MemoryPlan::workspaceOffset(Operation *op) const {
  auto it = workspaceOffsets.find(op);
  if (it == workspaceOffsets.end())
    return std::nullopt;
  return it->second;
}
