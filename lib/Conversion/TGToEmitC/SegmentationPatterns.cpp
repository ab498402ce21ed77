//===- SegmentationPatterns.cpp - Ops of segmentation networks ------------===//
//
// The kernel calls of the activations of segmentation networks, prelu,
// softmax and log_softmax, instance normalization and the segmentation
// losses (memopt/Runtime/Kernels.h): operands, results, then the op's
// attributes in the kernel's order.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// A kernel whose trailing arguments are attributes that `addAttributes`
/// adds to the call.
template <typename OpTy>
class AttributeKernelPattern : public KernelPattern<OpTy> {
public:
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;
  using AddAttributes = void (*)(OpTy, KernelCall &);

  AttributeKernelPattern(const TypeConverter &converter, MLIRContext *context,
                         const StepContext &step, StringRef kernel,
                         AddAttributes addAttributes)
      : KernelPattern<OpTy>(converter, context, step, kernel),
        addAttributes(addAttributes) {}

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results);
    addAttributes(op, call);
  }

private:
  AddAttributes addAttributes;
};

template <typename OpTy>
void addAttributePattern(const TypeConverter &converter,
                         RewritePatternSet &patterns, const StepContext &step,
                         StringRef kernel,
                         typename AttributeKernelPattern<OpTy>::AddAttributes
                             addAttributes) {
  patterns.add<AttributeKernelPattern<OpTy>>(
      converter, patterns.getContext(), step, kernel, addAttributes);
}

template <typename OpTy> void addAxis(OpTy op, KernelCall &call) {
  call.integer(op.getAxis());
}

template <typename OpTy> void addAlphaBeta(OpTy op, KernelCall &call) {
  call.real(op.getAlpha()).real(op.getBeta());
}

template <typename OpTy> void addAlpha(OpTy op, KernelCall &call) {
  call.real(op.getAlpha());
}

template <typename OpTy> void addEpsilon(OpTy op, KernelCall &call) {
  call.real(op.getEpsilon());
}

} // namespace

void memopt::codegen::populateSegmentationPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  addPlainKernelPatterns<tg::HardSwishOp, tg::SoftplusOp, tg::ErfOp,
                         tg::HardSwishBackwardOp, tg::SoftplusBackwardOp,
                         tg::ErfBackwardOp, tg::PReluOp, tg::PReluBackwardOp,
                         tg::InstanceNormBackwardOp, tg::CrossEntropyLossOp,
                         tg::CrossEntropyLossBackwardOp>(
      converter, patterns, step,
      {"hardSwish", "softplus", "erf", "hardSwishBackward", "softplusBackward",
       "erfBackward", "prelu", "preluBackward", "instanceNormBackward",
       "crossEntropyLoss", "crossEntropyLossBackward"});
  addAttributePattern<tg::HardSigmoidOp>(converter, patterns, step,
                                         "hardSigmoid", addAlphaBeta);
  addAttributePattern<tg::HardSigmoidBackwardOp>(
      converter, patterns, step, "hardSigmoidBackward", addAlphaBeta);
  addAttributePattern<tg::EluOp>(converter, patterns, step, "elu", addAlpha);
  addAttributePattern<tg::EluBackwardOp>(converter, patterns, step,
                                         "eluBackward", addAlpha);
  addAttributePattern<tg::SoftmaxOp>(converter, patterns, step, "softmax",
                                     addAxis);
  addAttributePattern<tg::LogSoftmaxOp>(converter, patterns, step,
                                        "logSoftmax", addAxis);
  addAttributePattern<tg::SoftmaxBackwardOp>(converter, patterns, step,
                                             "softmaxBackward", addAxis);
  addAttributePattern<tg::LogSoftmaxBackwardOp>(converter, patterns, step,
                                                "logSoftmaxBackward", addAxis);
  addAttributePattern<tg::InstanceNormOp>(converter, patterns, step,
                                          "instanceNorm", addEpsilon);
  addAttributePattern<tg::DiceLossOp>(converter, patterns, step, "diceLoss",
                                      addEpsilon);
  addAttributePattern<tg::DiceLossBackwardOp>(converter, patterns, step,
                                              "diceLossBackward", addEpsilon);
}
