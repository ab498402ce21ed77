//===- OptimizerPatterns.cpp - SGD and Adam updates -----------------------===//
//
// The updates read the step number by value; their results may be the
// buffers of the state they update (the kernels allow it). When every update
// of the step has the same learning rate, they read it from the global
// `learning_rate` (Program::learningRate) so that the binary's --lr can
// override it.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// The kernel of an update: `kernel`, or its variant that skips a
/// non-finite gradient (fp16 loss scaling, tg-loss-scale).
std::string updateKernel(Operation *op, StringRef kernel) {
  return op->hasAttr(tg::TGDialect::kSkipNonFiniteAttrName) ? (kernel + "SkipNonFinite").str()
                                             : kernel.str();
}

/// The learning rate argument of an update: the global when the step has
/// one, else the op's own value.
void addLearningRate(KernelCall &call, const llvm::APFloat &lr,
                     bool runtimeLearningRate) {
  if (runtimeLearningRate)
    call.text(kLearningRateName);
  else
    call.real(lr);
}

class SGDUpdatePattern : public KernelPattern<tg::SGDUpdateOp> {
public:
  SGDUpdatePattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step, bool runtimeLearningRate)
      : KernelPattern(converter, context, step, "sgdUpdate"),
        runtimeLearningRate(runtimeLearningRate) {}

protected:
  std::string kernelFor(tg::SGDUpdateOp op) const override {
    return updateKernel(op, "sgdUpdate");
  }
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
        .optional(results.size() > 1 ? results[1] : Value());
    addLearningRate(call, op.getLr(), runtimeLearningRate);
    call.real(op.getMomentum())
        .real(op.getDampening())
        .real(op.getWeightDecay())
        .boolean(op.getNesterov());
  }

private:
  bool runtimeLearningRate;
};

class AdamUpdatePattern : public KernelPattern<tg::AdamUpdateOp> {
public:
  AdamUpdatePattern(const TypeConverter &converter, MLIRContext *context,
                    const StepContext &step, bool runtimeLearningRate)
      : KernelPattern(converter, context, step, "adamUpdate"),
        runtimeLearningRate(runtimeLearningRate) {}

protected:
  std::string kernelFor(tg::AdamUpdateOp op) const override {
    return updateKernel(op, "adamUpdate");
  }
  void addArguments(tg::AdamUpdateOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results);
    addLearningRate(call, op.getLr(), runtimeLearningRate);
    call.real(op.getBeta1())
        .real(op.getBeta2())
        .real(op.getEps())
        .real(op.getWeightDecay())
        .boolean(op.getDecoupled());
  }

private:
  bool runtimeLearningRate;
};

} // namespace

std::optional<double>
memopt::codegen::sharedLearningRate(func::FuncOp step) {
  std::optional<double> shared;
  bool agree = true;
  step.walk([&](Operation *op) {
    llvm::APFloat lr(0.0);
    if (auto sgd = dyn_cast<tg::SGDUpdateOp>(op))
      lr = sgd.getLr();
    else if (auto adam = dyn_cast<tg::AdamUpdateOp>(op))
      lr = adam.getLr();
    else
      return;
    if (shared && *shared != lr.convertToDouble())
      agree = false;
    shared = lr.convertToDouble();
  });
  return agree ? shared : std::nullopt;
}

void memopt::codegen::populateOptimizerPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step, bool runtimeLearningRate) {
  patterns.add<SGDUpdatePattern, AdamUpdatePattern>(
      converter, patterns.getContext(), step, runtimeLearningRate);
}
