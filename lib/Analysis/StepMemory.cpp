//===- StepMemory.cpp - Where the training step's tensors live ------------===//

#include "memopt/Analysis/StepMemory.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace memopt;

uint64_t memopt::tensorBytes(Value value) {
  auto tensor = cast<RankedTensorType>(value.getType());
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementTypeBitWidth(), 8);
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
  unsigned index = result.getResultNumber();
  Operation *op = result.getOwner();
  if (auto sgd = dyn_cast<tg::SGDUpdateOp>(op))
    return index == 0 ? sgd.getParam() : sgd.getMomentumBuffer();
  if (auto adam = dyn_cast<tg::AdamUpdateOp>(op))
    return index == 0 ? adam.getParam()
                      : index == 1 ? adam.getExpAvg() : adam.getExpAvgSq();
  if (auto bn = dyn_cast<tg::BatchNormOp>(op))
    return index == 1 ? bn.getRunningMean()
                      : index == 2 ? bn.getRunningVar() : Value();
  return Value();
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

static std::string roleKey(NamedAttribute role) {
  return (role.getName().getValue() + "=" +
          cast<StringAttr>(role.getValue()).getValue())
      .str();
}

DenseMap<Value, unsigned> memopt::resultBufferPlacements(func::FuncOp step) {
  DenseMap<Value, unsigned> placements;
  if (!step.getBody().hasOneBlock())
    return placements;
  Block &body = step.getBody().front();
  llvm::StringMap<BlockArgument> argByRole;
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
         !isa<tg::ConstantOp>(result.getOwner()) &&
         !resultBuffers.count(value);
}

SmallVector<unsigned, 2> memopt::inPlaceCandidates(OpResult result) {
  Operation *op = result.getOwner();
  SmallVector<unsigned, 2> candidates;
  auto addIfSameType = [&](unsigned operand) {
    if (op->getOperand(operand).getType() == result.getType())
      candidates.push_back(operand);
  };
  // Unary ops and activation gradients: one loop, element i read, then
  // written (lib/Runtime/CPU/Elementwise.cpp).
  if (op->hasTrait<OpTrait::Elementwise>() &&
      op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    for (unsigned operand = 0; operand < op->getNumOperands(); ++operand)
      addIfSameType(operand);
    return candidates;
  }
  // Binary ops alias safely only without broadcasting.
  if (isa<tg::AddOp, tg::SubOp, tg::MulOp, tg::DivOp>(op)) {
    if (op->getOperand(0).getType() == op->getOperand(1).getType()) {
      addIfSameType(0);
      addIfSameType(1);
    }
    return candidates;
  }
  // BatchNorm reads a channel (statistics first) before it writes it
  // (lib/Runtime/CPU/BatchNorm.cpp).
  if (result.getResultNumber() != 0)
    return candidates;
  if (isa<tg::BatchNormOp, tg::BatchNormInferenceOp>(op))
    addIfSameType(0);
  if (isa<tg::BatchNormBackwardOp>(op)) {
    addIfSameType(0); // grad_output
    addIfSameType(1); // input
  }
  return candidates;
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
    for (auto [operand, offset] : llvm::zip(concat.getInputs(), *offsets)) {
      auto result = dyn_cast<OpResult>(operand);
      if (!result || isa<tg::ConcatOp>(result.getOwner()) ||
          !inArena(operand) || offset % alignment != 0 ||
          slices.count(operand) ||
          llvm::count(concat.getInputs(), operand) != 1)
        continue;
      slices[operand] = {concat, offset};
    }
  }
  return slices;
}
