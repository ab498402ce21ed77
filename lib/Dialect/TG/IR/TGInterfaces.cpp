//===- TGInterfaces.cpp - Per-op facts of the tg dialect ------------------===//
//
// The generated interface code and the helpers that the ops' default and
// shared implementations use (the per-op facts are in TGGradients.cpp and
// TGKernelFacts.cpp).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;
using namespace memopt::tg;

#include "memopt/Dialect/TG/IR/TGInterfaces.cpp.inc"

uint64_t memopt::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return static_cast<uint64_t>(tensor.getNumElements()) *
         ((tensor.getElementTypeBitWidth() + 7) / 8);
}

WorkspacePolicy::~WorkspacePolicy() = default;

SmallVector<unsigned, 2>
tg::detail::sameTypeElementwiseOperands(Operation *op, unsigned result) {
  SmallVector<unsigned, 2> operands;
  // One loop: element i of every operand is read, then element i of the
  // result written (lib/Runtime/CPU/Elementwise.cpp).
  if (!op->hasTrait<OpTrait::Elementwise>() ||
      !op->hasTrait<OpTrait::SameOperandsAndResultType>())
    return operands;
  for (OpOperand &operand : op->getOpOperands())
    if (operand.get().getType() == op->getResult(result).getType())
      operands.push_back(operand.getOperandNumber());
  return operands;
}

SmallVector<unsigned, 2> tg::detail::nonBroadcastingOperands(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type type = op->getResult(0).getType();
  if (lhs.getType() != rhs.getType() || lhs.getType() != type)
    return {};
  return {0, 1};
}

uint64_t tg::detail::perElementFlops(Operation *op, uint64_t perElement) {
  auto elements = [](Value value) -> uint64_t {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    return tensor ? static_cast<uint64_t>(tensor.getNumElements()) : 0;
  };
  uint64_t count = elements(op->getResult(0));
  if (op->getNumOperands() > 0)
    count = std::max(count, elements(op->getOperand(0)));
  return count * perElement;
}
