//===- ShapePatterns.cpp - Constants, shape ops and reductions ------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// tg.constant in a kernel (a device backend, whose kernels cannot read the
/// generated file's static arrays): a static array (StepContext::dataName) that
/// `memopt::rt::constant` copies into the kernel's view.
class ConstantPattern : public OpConversionPattern<tg::ConstantOp> {
public:
  ConstantPattern(const TypeConverter &converter, MLIRContext *context,
                  const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(tg::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string data = step.dataName(op.getOutput()).str();
    if (failed(declareConstantData(rewriter, op, data, op.getValue())))
      return failure();
    Value view = step.resultView(rewriter, op.getLoc(), op.getOutput());
    Type element = op.getOutput().getType().getElementType();
    KernelCall(op.getContext(), "constant")
        .text(element.isF32() ? data
                              : "reinterpret_cast<const float *>(" + data +
                                    ")")
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
    return step.arrayName(op).str();
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

/// The runtime's name of a pad mode (memopt::rt::PadMode).
std::string runtimePadMode(tg::PadMode mode) {
  StringRef name = mode == tg::PadMode::constant  ? "Constant"
                   : mode == tg::PadMode::reflect ? "Reflect"
                                                  : "Edge";
  return ("memopt::rt::PadMode::" + name).str();
}

class PadPattern : public KernelPattern<tg::PadOp> {
public:
  PadPattern(const TypeConverter &converter, MLIRContext *context,
             const StepContext &step)
      : KernelPattern(converter, context, step, "pad") {}

protected:
  void addArguments(tg::PadOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getPads())
        .text(runtimePadMode(op.getMode()))
        .real(op.getValue());
  }
};

/// pad_backward: grad_output, grad_input, pads, mode.
class PadBackwardPattern : public KernelPattern<tg::PadBackwardOp> {
public:
  PadBackwardPattern(const TypeConverter &converter, MLIRContext *context,
                     const StepContext &step)
      : KernelPattern(converter, context, step, "padBackward") {}

protected:
  void addArguments(tg::PadBackwardOp op, OpAdaptor adaptor,
                    ValueRange results, KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getPads())
        .text(runtimePadMode(op.getMode()));
  }
};

/// gather and gather_backward: operand, result, axis, then the indices as a
/// static array of the generated file and their count.
template <typename OpTy> class GatherPattern : public KernelPattern<OpTy> {
public:
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;
  GatherPattern(const TypeConverter &converter, MLIRContext *context,
                const StepContext &step, StringRef kernel)
      : KernelPattern<OpTy>(converter, context, step, kernel) {}

protected:
  void declareOperands(OpTy op, OpAdaptor, OpBuilder &builder) const override {
    // Indices are in bounds (the verifier), so the data is dense and i64.
    (void)declareConstantData(builder, op, this->step.indicesName(op),
                              op.getIndices());
  }

  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .integer(op.getAxis())
        .text(this->step.indicesName(op))
        .integer(op.getIndices().getNumElements());
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
  patterns.add<ConstantPattern, ConcatPattern, PadPattern, PadBackwardPattern,
               TransposePattern>(converter, context, step);
  patterns.add<SlicePattern<tg::SliceOp>>(converter, context, step, "slice");
  patterns.add<SlicePattern<tg::SliceBackwardOp>>(converter, context, step,
                                                  "sliceBackward");
  patterns.add<GatherPattern<tg::GatherOp>>(converter, context, step, "gather");
  patterns.add<GatherPattern<tg::GatherBackwardOp>>(converter, context, step,
                                                    "gatherBackward");
  patterns.add<ReducePattern<tg::ReduceSumOp>>(converter, context, step,
                                               "reduceSum");
  patterns.add<ReducePattern<tg::ReduceMeanOp>>(converter, context, step,
                                                "reduceMean");
  addPlainKernelPatterns<tg::ReshapeOp, tg::BroadcastOp>(
      converter, patterns, step, {"reshape", "broadcast"});
}
