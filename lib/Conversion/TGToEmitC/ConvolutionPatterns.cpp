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

class Conv2DPattern : public KernelPattern<tg::Conv2DOp> {
public:
  Conv2DPattern(const TypeConverter &converter, MLIRContext *context,
                const StepContext &step)
      : KernelPattern(converter, context, step, "conv2d") {}

protected:
  void addArguments(tg::Conv2DOp op, OpAdaptor adaptor, ValueRange results,
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

class ConvTranspose2DPattern : public KernelPattern<tg::ConvTranspose2DOp> {
public:
  ConvTranspose2DPattern(const TypeConverter &converter, MLIRContext *context,
                         const StepContext &step)
      : KernelPattern(converter, context, step, "convTranspose2d") {}

protected:
  void addArguments(tg::ConvTranspose2DOp op, OpAdaptor adaptor,
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

/// conv2d_backward_data and conv2d_backward_filter: two operands, the
/// result, the convolution's attributes (the shape attribute is the
/// result's shape).
template <typename OpTy>
class Conv2DBackwardPattern : public KernelPattern<OpTy> {
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

class ConvTranspose2DBackwardFilterPattern
    : public KernelPattern<tg::ConvTranspose2DBackwardFilterOp> {
public:
  ConvTranspose2DBackwardFilterPattern(const TypeConverter &converter,
                                       MLIRContext *context,
                                       const StepContext &step)
      : KernelPattern(converter, context, step,
                      "convTranspose2dBackwardFilter") {}

protected:
  void addArguments(tg::ConvTranspose2DBackwardFilterOp op, OpAdaptor adaptor,
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
  patterns.add<Conv2DPattern, ConvTranspose2DPattern,
               ConvTranspose2DBackwardFilterPattern>(converter, context, step);
  patterns.add<Conv2DBackwardPattern<tg::Conv2DBackwardDataOp>>(
      converter, context, step, "conv2dBackwardData");
  patterns.add<Conv2DBackwardPattern<tg::Conv2DBackwardFilterOp>>(
      converter, context, step, "conv2dBackwardFilter");
}
