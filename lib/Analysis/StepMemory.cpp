//===- StepMemory.cpp - Where the training step's tensors live ------------===//

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Analysis/StepPhases.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace memopt;

uint64_t memopt::tensorBytes(Value value) {
  auto tensor = cast<RankedTensorType>(value.getType());
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementTypeBitWidth(), 8);
}

LogicalResult memopt::checkOneBlock(func::FuncOp step, StringRef pass) {
  if (step.getBody().hasOneBlock())
    return success();
  return step.emitError() << pass << ": expected a function with one block";
}

std::optional<NamedAttribute> memopt::roleOf(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  for (NamedAttribute attr : attrs)
    if (attr.getName().getValue().starts_with("tg.") &&
        isa<StringAttr>(attr.getValue()))
      return attr;
  return std::nullopt;
}

Value memopt::updatedOperand(OpResult result) {
  auto kernel = dyn_cast<tg::KernelOpInterface>(result.getOwner());
  return kernel ? kernel.getUpdatedOperand(result.getResultNumber()) : Value();
}

/// Whether `result` may be computed in the buffer of argument `bufferArg`,
/// which the trainer may pass for it: no op after its producer reads the
/// argument, and the producer reads it only as the operand its kernel
/// updates in place.
static bool mayOverwrite(OpResult result, BlockArgument bufferArg) {
  Operation *producer = result.getOwner();
  for (OpOperand &use : bufferArg.getUses()) {
    Operation *user = use.getOwner();
    if (user == producer) {
      if (updatedOperand(result) != bufferArg ||
          llvm::count(producer->getOperands(), bufferArg) != 1)
        return false;
      continue;
    }
    if (!user->isBeforeInBlock(producer))
      return false;
  }
  return true;
}

/// A role (its name and value), compared as the uniqued attributes: a
/// planner's trials ask for the placements of every copy of the step.
static std::pair<Attribute, Attribute> roleKey(NamedAttribute role) {
  return {role.getName(), role.getValue()};
}

DenseMap<Value, unsigned> memopt::resultBufferPlacements(func::FuncOp step) {
  DenseMap<Value, unsigned> placements;
  if (!step.getBody().hasOneBlock())
    return placements;
  Block &body = step.getBody().front();
  DenseMap<std::pair<Attribute, Attribute>, BlockArgument> argByRole;
  for (BlockArgument arg : body.getArguments())
    if (std::optional<NamedAttribute> role =
            roleOf(step.getArgAttrDict(arg.getArgNumber())))
      argByRole[roleKey(*role)] = arg;
  for (auto [index, value] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    auto result = dyn_cast<OpResult>(value);
    if (!result || placements.count(value) ||
        isa<tg::ConstantOp>(result.getOwner()))
      continue;
    if (std::optional<NamedAttribute> role =
            roleOf(step.getResultAttrDict(index))) {
      auto aliased = argByRole.find(roleKey(*role));
      if (aliased != argByRole.end() && !mayOverwrite(result, aliased->second))
        continue;
    }
    placements[value] = index;
  }
  return placements;
}

bool memopt::livesInArena(Value value,
                          const DenseMap<Value, unsigned> &resultBuffers) {
  auto result = dyn_cast<OpResult>(value);
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  return result && tensor && tensor.hasStaticShape() &&
         isa<FloatType>(tensor.getElementType()) &&
         !isa<tg::ConstantOp, tg::OffloadStartOp>(result.getOwner()) &&
         !resultBuffers.count(value);
}

SmallVector<unsigned, 2> memopt::inPlaceCandidates(OpResult result) {
  auto kernel = dyn_cast<tg::KernelOpInterface>(result.getOwner());
  if (!kernel)
    return {};
  return kernel.getInPlaceOperands(result.getResultNumber());
}

std::optional<SmallVector<uint64_t>>
memopt::concatOperandOffsets(Operation *concat) {
  auto op = cast<tg::ConcatOp>(concat);
  auto type = cast<RankedTensorType>(op.getType());
  int64_t axis = op.getAxis();
  if (!type.hasStaticShape() || axis < 0 || axis >= type.getRank() ||
      llvm::any_of(type.getShape().take_front(axis),
                   [](int64_t dim) { return dim != 1; }))
    return std::nullopt;
  SmallVector<uint64_t> offsets;
  uint64_t offset = 0;
  for (Value operand : op.getInputs()) {
    offsets.push_back(offset);
    offset += tensorBytes(operand);
  }
  return offsets;
}

DenseMap<Value, ConcatSlice>
memopt::concatSlices(Block &body, function_ref<bool(Value)> inArena,
                     uint64_t alignment) {
  DenseMap<Value, ConcatSlice> slices;
  for (auto concat : body.getOps<tg::ConcatOp>()) {
    std::optional<SmallVector<uint64_t>> offsets =
        concatOperandOffsets(concat);
    if (!offsets || !inArena(concat.getResult()))
      continue;
    bool recomputed = isRecomputation(concat);
    for (auto [operand, offset] : llvm::zip(concat.getInputs(), *offsets)) {
      auto result = dyn_cast<OpResult>(operand);
      if (!result || isa<tg::ConcatOp>(result.getOwner()) ||
          !inArena(operand) || offset % alignment != 0 ||
          slices.count(operand) ||
          llvm::count(concat.getInputs(), operand) != 1)
        continue;
      // A recomputed concat (tg-remat) copies its operands: stored values
      // live where the forward planned them, and a clone computed in a
      // slice would carry the in-place chain that made it (a BatchNorm
      // clone's output under an in-place ReLU) into the slice too, which
      // tg-plan-memory's verifier cannot tell from an overlap.
      if (recomputed)
        continue;
      slices[operand] = {concat, offset};
    }
  }
  return slices;
}
