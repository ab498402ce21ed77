//===- OptimizerPatterns.cpp - SGD and Adam updates -----------------------===//
//
// The updates read the step number by value; their results may be the
// buffers of the state they update (the kernels allow it).
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

class SGDUpdatePattern : public KernelPattern<tg::SGDUpdateOp> {
public:
  SGDUpdatePattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step)
      : KernelPattern(converter, context, step, "sgdUpdate") {}

protected:
  void addArguments(tg::SGDUpdateOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operand(adaptor.getParam())
        .operand(adaptor.getGrad())
        .optional(adaptor.getMomentumBuffer());
    if (Value step = adaptor.getStep())
      call.operand(step);
    else
      call.integer(1); // read only with momentum, which has a step operand
    call.operand(results[0])
        .optional(results.size() > 1 ? results[1] : Value())
        .real(op.getLr())
        .real(op.getMomentum())
        .real(op.getDampening())
        .real(op.getWeightDecay())
        .boolean(op.getNesterov());
  }
};

class AdamUpdatePattern : public KernelPattern<tg::AdamUpdateOp> {
public:
  AdamUpdatePattern(const TypeConverter &converter, MLIRContext *context,
                    const StepContext &step)
      : KernelPattern(converter, context, step, "adamUpdate") {}

protected:
  void addArguments(tg::AdamUpdateOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .real(op.getLr())
        .real(op.getBeta1())
        .real(op.getBeta2())
        .real(op.getEps())
        .real(op.getWeightDecay())
        .boolean(op.getDecoupled());
  }
};

} // namespace

void memopt::codegen::populateOptimizerPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  patterns.add<SGDUpdatePattern, AdamUpdatePattern>(
      converter, patterns.getContext(), step);
}
