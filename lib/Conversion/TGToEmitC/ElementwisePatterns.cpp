//===- ElementwisePatterns.cpp - Activations, arithmetic, their gradients -===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

class LeakyReluPattern : public KernelPattern<tg::LeakyReluOp> {
public:
  LeakyReluPattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step)
      : KernelPattern(converter, context, step, "leakyRelu") {}

protected:
  void addArguments(tg::LeakyReluOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results).real(op.getAlpha());
  }
};

class LeakyReluBackwardPattern : public KernelPattern<tg::LeakyReluBackwardOp> {
public:
  LeakyReluBackwardPattern(const TypeConverter &converter,
                           MLIRContext *context, const StepContext &step)
      : KernelPattern(converter, context, step, "leakyReluBackward") {}

protected:
  void addArguments(tg::LeakyReluBackwardOp op, OpAdaptor adaptor,
                    ValueRange results, KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results).real(op.getAlpha());
  }
};

/// The mask is a result that backward reads, so the step keeps it: nothing
/// is regenerated.
class DropoutPattern : public KernelPattern<tg::DropoutOp> {
public:
  DropoutPattern(const TypeConverter &converter, MLIRContext *context,
                 const StepContext &step)
      : KernelPattern(converter, context, step, "dropout") {}

protected:
  void addArguments(tg::DropoutOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operand(adaptor.getInput())
        .operands(results)
        .real(op.getRatio())
        .text(step.randomSeed(op));
  }
};

/// Operands, result, the predicate.
class ComparePattern : public KernelPattern<tg::CompareOp> {
public:
  ComparePattern(const TypeConverter &converter, MLIRContext *context,
                 const StepContext &step)
      : KernelPattern(converter, context, step, "compare") {}

protected:
  void addArguments(tg::CompareOp op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    StringRef predicate;
    switch (op.getPredicate()) {
    case tg::ComparisonPredicate::lt:
      predicate = "Less";
      break;
    case tg::ComparisonPredicate::le:
      predicate = "LessEqual";
      break;
    case tg::ComparisonPredicate::gt:
      predicate = "Greater";
      break;
    case tg::ComparisonPredicate::ge:
      predicate = "GreaterEqual";
      break;
    case tg::ComparisonPredicate::eq:
      predicate = "Equal";
      break;
    }
    call.operands(adaptor.getOperands())
        .operands(results)
        .text(("memopt::rt::Comparison::" + predicate).str());
  }
};

/// The numbers are a function of the seed, the op's stream and the element
/// index: a recomputed clone draws the same ones.
class RandomUniformPattern : public KernelPattern<tg::RandomUniformOp> {
public:
  RandomUniformPattern(const TypeConverter &converter, MLIRContext *context,
                       const StepContext &step)
      : KernelPattern(converter, context, step, "randomUniform") {}

protected:
  void addArguments(tg::RandomUniformOp op, OpAdaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(results)
        .real(op.getLow())
        .real(op.getHigh())
        .text(step.randomSeed(op));
  }
};

/// clip and clip_backward: operands, result, min, max.
template <typename OpTy>
class ClipPattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .real(op.getMin())
        .real(op.getMax());
  }
};

} // namespace

void memopt::codegen::populateElementwisePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  addPlainKernelPatterns<tg::ReluOp, tg::SigmoidOp, tg::TanhOp, tg::NegOp, tg::ExpOp,
           tg::LogOp, tg::SqrtOp, tg::AbsOp, tg::SignOp, tg::AddOp, tg::SubOp,
           tg::MulOp, tg::DivOp, tg::ReluBackwardOp, tg::SigmoidBackwardOp,
           tg::TanhBackwardOp, tg::CastOp, tg::FloorOp, tg::SelectOp>(
      converter, patterns, step,
      {"relu", "sigmoid", "tanh", "neg", "exp", "log", "sqrt", "abs", "sign",
       "add", "sub", "mul", "div", "reluBackward", "sigmoidBackward",
       "tanhBackward", "cast", "floor", "select"});
  patterns.add<LeakyReluPattern, LeakyReluBackwardPattern, DropoutPattern,
               ComparePattern, RandomUniformPattern>(converter, context, step);
  patterns.add<ClipPattern<tg::ClipOp>>(converter, context, step, "clip");
  patterns.add<ClipPattern<tg::ClipBackwardOp>>(converter, context, step,
                                                "clipBackward");
}
