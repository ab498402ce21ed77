//===- LinearAlgebraPatterns.cpp - Matrix products ------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

class GemmPattern : public KernelPattern<tg::GemmOp> {
public:
  GemmPattern(const TypeConverter &converter, MLIRContext *context,
              const StepContext &step)
      : KernelPattern(converter, context, step, "gemm") {}

protected:
  void addArguments(tg::GemmOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operand(adaptor.getA())
        .operand(adaptor.getB())
        .optional(adaptor.getC())
        .operands(results)
        .real(op.getAlpha())
        .real(op.getBeta())
        .boolean(op.getTransA())
        .boolean(op.getTransB());
  }
};

} // namespace

void memopt::codegen::populateLinearAlgebraPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  patterns.add<GemmPattern>(converter, patterns.getContext(), step);
  addPlainKernelPatterns<tg::MatMulOp>(converter, patterns, step, {"matmul"});
}
