//===- Amp.cpp - The tg-amp pass ------------------------------------------===//
//
// One walk over each forward function in order: every op gets its compute
// type from the precision table (AmpPolicy), its operands are converted to
// that type (a shared tg.cast, or a converted constant), and its results
// are retyped by its own type inference. Running before tg-autodiff keeps
// the backward pass out of this file: the gradient rules see the casts and
// give every backward op its forward op's type, as PyTorch's autocast
// does.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Transforms/AmpPolicy.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"

namespace memopt {
#define GEN_PASS_DEF_AMP
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;
using namespace memopt::tg;

namespace {

/// The module attribute that records the mode (read by the compile report).
constexpr llvm::StringLiteral kAmpAttrName = "memopt.amp";

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// The operands whose type decides a `follow` op's type and that are
/// converted to it: a normalization's input only (its scale, bias and
/// statistics stay f32), every float tensor operand of the others.
SmallVector<unsigned> convertedOperands(Operation *op) {
  if (isa<BatchNormOp, BatchNormInferenceOp, InstanceNormOp>(op))
    return {0};
  SmallVector<unsigned> indices;
  for (OpOperand &operand : op->getOpOperands())
    if (isFloatTensor(operand.get().getType()))
      indices.push_back(operand.getOperandNumber());
  return indices;
}

/// Converts one function; counts into the pass's statistics.
class FunctionConverter {
public:
  FunctionConverter(const AmpPolicy &policy, Type low)
      : policy(policy), low(low), f32(Float32Type::get(low.getContext())) {}

  LogicalResult run(func::FuncOp func);

  unsigned casts = 0, constants = 0, lowOps = 0;

private:
  /// `value` in element type `type`, converted before `user` unless an
  /// earlier conversion can be reused.
  Value convert(Value value, Type type, Operation *user);
  LogicalResult convertOp(Operation *op);

  const AmpPolicy &policy;
  Type low, f32;
  /// (value, element type) -> the converted value.
  llvm::DenseMap<std::pair<Value, Type>, Value> converted;
};

Value FunctionConverter::convert(Value value, Type type, Operation *user) {
  if (elementTypeOf(value) == type)
    return value;
  Value &slot = converted[{value, type}];
  if (slot)
    return slot;
  auto tensor = cast<RankedTensorType>(value.getType());
  auto target = RankedTensorType::get(tensor.getShape(), type);
  OpBuilder builder(user);
  DenseFPElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr))) {
    auto floatType = cast<FloatType>(type);
    auto values = llvm::map_to_vector(attr.getValues<APFloat>(),
                                      [&](APFloat element) {
                                        bool lost;
                                        element.convert(
                                            floatType.getFloatSemantics(),
                                            APFloat::rmNearestTiesToEven,
                                            &lost);
                                        return element;
                                      });
    slot = ConstantOp::create(builder, value.getLoc(),
                              DenseElementsAttr::get(target, values));
    ++constants;
  } else {
    slot = CastOp::create(builder, user->getLoc(), target, value);
    ++casts;
  }
  return slot;
}

LogicalResult FunctionConverter::convertOp(Operation *op) {
  if (isa<ConstantOp, CastOp>(op))
    return success();
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    // The signature stays f32: the loss and the runtime read f32 outputs.
    for (OpOperand &operand : ret->getOpOperands())
      if (isFloatTensor(operand.get().getType()))
        operand.set(convert(operand.get(), f32, op));
    return success();
  }
  if (!isa_and_nonnull<TGDialect>(op->getDialect()))
    return op->emitOpError("is not a tg op; tg-amp converts tg ops only");
  std::optional<AmpPrecision> precision =
      policy.lookup(op->getName().getStringRef());
  if (!precision)
    return op->emitOpError(
        "has no entry in tg-amp's precision table: tg-amp runs on the "
        "forward function, before tg-autodiff");
  SmallVector<unsigned> operands = convertedOperands(op);
  Type type = f32;
  if (*precision == AmpPrecision::low ||
      (*precision == AmpPrecision::follow &&
       llvm::any_of(operands, [&](unsigned index) {
         return elementTypeOf(op->getOperand(index)) == low;
       })))
    type = low;
  bool lowOperands = false;
  for (unsigned index : operands) {
    Value value = convert(op->getOperand(index), type, op);
    op->setOperand(index, value);
    lowOperands |= elementTypeOf(value) != f32;
  }
  if (type == low)
    ++lowOps;
  // Operands retyped here or by an earlier op (its results) retype this
  // op's results.
  lowOperands |= llvm::any_of(op->getOperands(), [&](Value operand) {
    return isFloatTensor(operand.getType()) && elementTypeOf(operand) != f32;
  });
  if (!lowOperands)
    return success();
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return op->emitOpError("does not infer its result types, so tg-amp "
                           "cannot change its operands' types");
  SmallVector<Type> types;
  if (failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)))
    return failure();
  for (auto [result, resultType] : llvm::zip(op->getResults(), types))
    result.setType(resultType);
  return success();
}

LogicalResult FunctionConverter::run(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    auto tensor = dyn_cast<RankedTensorType>(arg.getType());
    if (tensor && isa<FloatType>(tensor.getElementType()) &&
        !tensor.getElementType().isF32())
      return func.emitError("argument #")
             << arg.getArgNumber() << " is " << tensor
             << "; tg-amp converts an f32 model (its arguments are the f32 "
                "master weights and data)";
  }
  for (Block &block : func.getBody())
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(convertOp(&op)))
        return failure();
  // Constants whose every use now reads a converted copy.
  func.walk([](ConstantOp constant) {
    if (constant->use_empty())
      constant->erase();
  });
  return success();
}

class AmpPass : public memopt::impl::AmpBase<AmpPass> {
public:
  using AmpBase::AmpBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode == AmpMode::none)
      return;
    if (module->hasAttr(kAmpAttrName)) {
      module.emitError("tg-amp already converted this module (")
          << kAmpAttrName << " = " << module->getAttr(kAmpAttrName) << ")";
      return signalPassFailure();
    }
    llvm::Expected<AmpPolicy> policy = AmpPolicy::build(fp32Ops, lowOps);
    if (!policy) {
      module.emitError("tg-amp: ") << llvm::toString(policy.takeError());
      return signalPassFailure();
    }
    Builder builder(module.getContext());
    Type low = mode == AmpMode::bf16 ? Type(builder.getBF16Type())
                                     : Type(builder.getF16Type());
    FunctionConverter converter(*policy, low);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(converter.run(func)))
        return signalPassFailure();
    numCasts += converter.casts;
    numConstants += converter.constants;
    numLowOps += converter.lowOps;
    module->setAttr(kAmpAttrName, builder.getStringAttr(
                                      mode == AmpMode::bf16 ? "bf16" : "fp16"));
  }
};

} // namespace
