//===- ShapePatterns.cpp - Constants, shape ops and reductions ------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// tg.constant: a static array `<name>_data` of the generated file and a
/// view of it, or (when the plan placed the constant in the arena, for a
/// device backend) a view of the arena that `memopt::rt::constant` fills
/// from the array.
class ConstantPattern : public OpConversionPattern<tg::ConstantOp> {
public:
  ConstantPattern(const TypeConverter &converter, MLIRContext *context,
                  const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(tg::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return op.emitError("the CPU backend needs dense constants");
    int64_t count = std::max<int64_t>(dense.getNumElements(), 1);
    auto flat = RankedTensorType::get({count}, dense.getElementType());
    auto arrayType = emitc::ArrayType::get({count}, dense.getElementType());
    std::string data = (step.name(op.getOutput()) + "_data").str();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(op->getParentOfType<emitc::FuncOp>());
      emitc::GlobalOp::create(rewriter, op.getLoc(), data, arrayType,
                              dense.reshape(flat), /*externSpecifier=*/false,
                              /*staticSpecifier=*/true,
                              /*constSpecifier=*/false);
    }
    Value view = step.declareView(rewriter, op.getLoc(), op.getOutput());
    if (step.placement(op.getOutput()).kind == Placement::Kind::Arena)
      KernelCall(op.getContext(), "constant")
          .text(data)
          .operand(view)
          .emit(rewriter, op.getLoc());
    rewriter.replaceOp(op, view);
    return success();
  }

private:
  const StepContext &step;
};

/// tg.concat: the operands go to the kernel as an array of views.
class ConcatPattern : public KernelPattern<tg::ConcatOp> {
public:
  ConcatPattern(const TypeConverter &converter, MLIRContext *context,
                const StepContext &step)
      : KernelPattern(converter, context, step, "concat") {}

protected:
  void declareOperands(tg::ConcatOp op, OpAdaptor adaptor,
                       OpBuilder &builder) const override {
    SmallVector<StringRef> placeholders(adaptor.getInputs().size(), "{}");
    std::string decl = "const memopt::rt::ConstTensor " + inputArray(op) +
                       "[] = {{" + llvm::join(placeholders, ", ") + "};";
    emitc::VerbatimOp::create(builder, op.getLoc(),
                              builder.getStringAttr(decl),
                              adaptor.getInputs());
  }

  void addArguments(tg::ConcatOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.text(inputArray(op))
        .integer(adaptor.getInputs().size())
        .operands(results)
        .integer(op.getAxis());
  }

private:
  std::string inputArray(tg::ConcatOp op) const {
    return (step.name(op.getOutput()) + "_inputs").str();
  }
};

/// slice and slice_backward: operand, result, starts, ends, steps.
template <typename OpTy>
class SlicePattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getStarts())
        .list(op.getEnds())
        .list(op.getSteps());
  }
};

class PadPattern : public KernelPattern<tg::PadOp> {
public:
  PadPattern(const TypeConverter &converter, MLIRContext *context,
             const StepContext &step)
      : KernelPattern(converter, context, step, "pad") {}

protected:
  void addArguments(tg::PadOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    StringRef mode = op.getMode() == tg::PadMode::constant ? "Constant"
                     : op.getMode() == tg::PadMode::reflect ? "Reflect"
                                                            : "Edge";
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getPads())
        .text(("memopt::rt::PadMode::" + mode).str())
        .real(op.getValue());
  }
};

class TransposePattern : public KernelPattern<tg::TransposeOp> {
public:
  TransposePattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step)
      : KernelPattern(converter, context, step, "transpose") {}

protected:
  void addArguments(tg::TransposeOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results).list(op.getPerm());
  }
};

/// reduce_sum and reduce_mean: operand, result, axes, keepdims.
template <typename OpTy>
class ReducePattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getAxes())
        .boolean(op.getKeepdims());
  }
};

} // namespace

void memopt::codegen::populateShapePatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConstantPattern, ConcatPattern, PadPattern, TransposePattern>(
      converter, context, step);
  patterns.add<SlicePattern<tg::SliceOp>>(converter, context, step, "slice");
  patterns.add<SlicePattern<tg::SliceBackwardOp>>(converter, context, step,
                                                  "sliceBackward");
  patterns.add<ReducePattern<tg::ReduceSumOp>>(converter, context, step,
                                               "reduceSum");
  patterns.add<ReducePattern<tg::ReduceMeanOp>>(converter, context, step,
                                                "reduceMean");
  addPlainKernelPatterns<tg::ReshapeOp, tg::BroadcastOp>(
      converter, patterns, step, {"reshape", "broadcast"});
}
