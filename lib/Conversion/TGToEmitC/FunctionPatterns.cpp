//===- FunctionPatterns.cpp - The step function and its results -----------===//
//
// func.func @train_step (and @eval_step) becomes
//   static void train_step(void *const *args, void *const *results,
//                          void *const *arenas)
// whose prologue declares the views of the arguments; func.return copies
// the results that were not computed in their buffer and returns.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

using namespace mlir;
using namespace memopt::codegen;

namespace {

class StepFunctionPattern : public OpConversionPattern<func::FuncOp> {
public:
  StepFunctionPattern(const TypeConverter &converter, MLIRContext *context,
                      const StepContext &step, StringRef cppName)
      : OpConversionPattern(converter, context), step(step),
        cppName(cppName.str()) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = func.getContext();
    Location loc = func.getLoc();
    auto pointerTo = [&](StringRef pointee) -> Type {
      return emitc::PointerType::get(emitc::OpaqueType::get(context, pointee));
    };
    SmallVector<Type> params = {pointerTo("void *const"),
                                pointerTo("void *const"),
                                pointerTo("void *const")};
    auto stepFunc = emitc::FuncOp::create(
        rewriter, loc, cppName, FunctionType::get(context, params, {}));
    stepFunc.setSpecifiersAttr(rewriter.getStrArrayAttr({"static"}));
    Block *entry = rewriter.createBlock(
        &stepFunc.getBody(), {}, params,
        SmallVector<Location>(params.size(), loc));

    // The parameters under the names every view declaration uses.
    const StringLiteral paramNames[] = {kArgsName, kResultsName, kArenasName};
    for (auto [index, name] : llvm::enumerate(paramNames)) {
      std::string decl = "void *const *" + name.str() + " = {};";
      emitc::VerbatimOp::create(rewriter, loc, rewriter.getStringAttr(decl),
                                ValueRange{entry->getArgument(index)});
    }
    SmallVector<Value> argViews;
    for (BlockArgument arg : func.getArguments())
      argViews.push_back(step.declareView(rewriter, arg.getLoc(), arg));
    rewriter.inlineBlockBefore(&func.front(), entry, entry->end(), argViews);
    rewriter.eraseOp(func);
    return success();
  }

private:
  const StepContext &step;
  std::string cppName;
};

class StepReturnPattern : public OpConversionPattern<func::ReturnOp> {
public:
  StepReturnPattern(const TypeConverter &converter, MLIRContext *context,
                    const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (auto [index, value, view] :
         llvm::enumerate(op.getOperands(), adaptor.getOperands())) {
      // Written in its buffer by a kernel already (mbuf.result).
      const Placement &where = step.placement(value);
      if (where.kind == Placement::Kind::Result && where.index == index)
        continue;
      // A copy; none at run time when the trainer passes the argument's
      // buffer for an unchanged argument.
      Value buffer = step.declareResultBuffer(rewriter, op.getLoc(), index,
                                              value.getType());
      KernelCall(op.getContext(), "reshape")
          .operand(view)
          .operand(buffer)
          .traced(step.resultName(index), "copy")
          .emit(rewriter, op.getLoc());
    }
    rewriter.replaceOpWithNewOp<emitc::ReturnOp>(op, Value());
    return success();
  }

private:
  const StepContext &step;
};

} // namespace

void memopt::codegen::populateFunctionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step, StringRef cppName) {
  patterns.add<StepFunctionPattern>(converter, patterns.getContext(), step,
                                    cppName);
  patterns.add<StepReturnPattern>(converter, patterns.getContext(), step);
}
