//===- GradientRules.h - Backward rules of the tg forward ops ---*- C++ -*-===//
//
// One reverse-mode rule per forward op of the tg dialect: given the
// gradients of an op's results, emit the ops that compute the gradients of
// its operands. Private to the transforms library; the autodiff pass drives
// the rules over the forward function in reverse order.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_TRANSFORMS_GRADIENTRULES_H
#define MEMOPT_LIB_DIALECT_TG_TRANSFORMS_GRADIENTRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace memopt::tg::detail {

/// Emits at the insertion point of `builder` the gradients of the operands
/// of `op` that `wanted` selects, given `resultGrads`, the gradients of its
/// results (null for a result that the loss does not depend on). Fills
/// `operandGrads` (one entry per operand, each of its operand's type) for
/// every wanted operand. An op without a rule, or a gradient that the rule
/// does not support, is an op error and a failure.
mlir::LogicalResult
emitOperandGradients(mlir::OpBuilder &builder, mlir::Operation *op,
                     llvm::ArrayRef<mlir::Value> resultGrads,
                     llvm::ArrayRef<bool> wanted,
                     llvm::MutableArrayRef<mlir::Value> operandGrads);

/// A rank-0 tg.constant of `elementType` holding `value`.
mlir::Value emitScalarConstant(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Type elementType, double value);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_TRANSFORMS_GRADIENTRULES_H
