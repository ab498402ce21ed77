//===- NormalizationPatterns.cpp - Batch normalization --------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

class BatchNormPattern : public KernelPattern<tg::BatchNormOp> {
public:
  BatchNormPattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step)
      : KernelPattern(converter, context, step, "batchNorm") {}

protected:
  void addArguments(tg::BatchNormOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .real(op.getEpsilon())
        .real(op.getMomentum());
  }
};

class BatchNormInferencePattern
    : public KernelPattern<tg::BatchNormInferenceOp> {
public:
  BatchNormInferencePattern(const TypeConverter &converter,
                            MLIRContext *context, const StepContext &step)
      : KernelPattern(converter, context, step, "batchNormInference") {}

protected:
  void addArguments(tg::BatchNormInferenceOp op, OpAdaptor adaptor,
                    ValueRange results, KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .real(op.getEpsilon());
  }
};

} // namespace

void memopt::codegen::populateNormalizationPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  patterns.add<BatchNormPattern, BatchNormInferencePattern>(converter, context,
                                                            step);
  patterns.add<PlainKernelPattern<tg::BatchNormBackwardOp>>(
      converter, context, step, "batchNormBackward");
}
