//===- ConvolutionPatterns.cpp - Convolutions and their gradients ---------===//
//
// The oneDNN convolutions take a workspace that the arena plan reserves for
// the duration of the call (memopt.workspace, sized by queryWorkspaceBytes).
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

class ConvPattern : public KernelPattern<tg::ConvOp> {
public:
  ConvPattern(const TypeConverter &converter, MLIRContext *context,
                const StepContext &step)
      : KernelPattern(converter, context, step, "conv") {}

protected:
  void addArguments(tg::ConvOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operand(adaptor.getInput())
        .operand(adaptor.getWeight())
        .optional(adaptor.getBias())
        .operands(results)
        .list(op.getStrides())
        .list(op.getPads())
        .list(op.getDilations())
        .integer(op.getGroups())
        .text(step.workspace(op));
  }
};

class ConvTransposePattern : public KernelPattern<tg::ConvTransposeOp> {
public:
  ConvTransposePattern(const TypeConverter &converter, MLIRContext *context,
                         const StepContext &step)
      : KernelPattern(converter, context, step, "convTranspose") {}

protected:
  void addArguments(tg::ConvTransposeOp op, OpAdaptor adaptor,
                    ValueRange results, KernelCall &call) const override {
    call.operand(adaptor.getInput())
        .operand(adaptor.getWeight())
        .optional(adaptor.getBias())
        .operands(results)
        .list(op.getStrides())
        .list(op.getPads())
        .list(op.getDilations())
        .list(op.getOutputPadding())
        .integer(op.getGroups())
        .text(step.workspace(op));
  }
};

/// conv_backward_data and conv_backward_filter: two operands, the
/// result, the convolution's attributes (the shape attribute is the
/// result's shape).
template <typename OpTy>
class ConvBackwardPattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getStrides())
        .list(op.getPads())
        .list(op.getDilations())
        .integer(op.getGroups())
        .text(this->step.workspace(op));
  }
};

class ConvTransposeBackwardFilterPattern
    : public KernelPattern<tg::ConvTransposeBackwardFilterOp> {
public:
  ConvTransposeBackwardFilterPattern(const TypeConverter &converter,
                                       MLIRContext *context,
                                       const StepContext &step)
      : KernelPattern(converter, context, step,
                      "convTransposeBackwardFilter") {}

protected:
  void addArguments(tg::ConvTransposeBackwardFilterOp op, OpAdaptor adaptor,
                    ValueRange results, KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getStrides())
        .list(op.getPads())
        .list(op.getDilations())
        .list(op.getOutputPadding())
        .integer(op.getGroups())
        .text(step.workspace(op));
  }
};

} // namespace

void memopt::codegen::populateConvolutionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvPattern, ConvTransposePattern,
               ConvTransposeBackwardFilterPattern>(converter, context, step);
  patterns.add<ConvBackwardPattern<tg::ConvBackwardDataOp>>(
      converter, context, step, "convBackwardData");
  patterns.add<ConvBackwardPattern<tg::ConvBackwardFilterOp>>(
      converter, context, step, "convBackwardFilter");
}
