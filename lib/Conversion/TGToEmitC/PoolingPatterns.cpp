//===- PoolingPatterns.cpp - Pooling, resizing and their gradients --------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// max_pool and its backward: operands, result, kernel, strides, pads,
/// dilations, ceil mode.
template <typename OpTy>
class MaxPoolPattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getKernel())
        .list(op.getStrides())
        .list(op.getPads())
        .list(op.getDilations())
        .boolean(op.getCeilMode());
  }
};

/// avg_pool and its backward: operands, result, kernel, strides, pads,
/// ceil mode, count_include_pad.
template <typename OpTy>
class AvgPoolPattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands())
        .operands(results)
        .list(op.getKernel())
        .list(op.getStrides())
        .list(op.getPads())
        .boolean(op.getCeilMode())
        .boolean(op.getCountIncludePad());
  }
};

std::string cppEnum(tg::ResizeMode mode) {
  return mode == tg::ResizeMode::nearest ? "memopt::rt::ResizeMode::Nearest"
                                         : "memopt::rt::ResizeMode::Bilinear";
}

std::string cppEnum(tg::CoordinateMode mode) {
  switch (mode) {
  case tg::CoordinateMode::half_pixel:
    return "memopt::rt::CoordinateMode::HalfPixel";
  case tg::CoordinateMode::pytorch_half_pixel:
    return "memopt::rt::CoordinateMode::PytorchHalfPixel";
  case tg::CoordinateMode::align_corners:
    return "memopt::rt::CoordinateMode::AlignCorners";
  case tg::CoordinateMode::asymmetric:
    return "memopt::rt::CoordinateMode::Asymmetric";
  }
  llvm_unreachable("unknown coordinate mode");
}

std::string cppEnum(tg::NearestMode mode) {
  switch (mode) {
  case tg::NearestMode::round_prefer_floor:
    return "memopt::rt::NearestMode::RoundPreferFloor";
  case tg::NearestMode::round_prefer_ceil:
    return "memopt::rt::NearestMode::RoundPreferCeil";
  case tg::NearestMode::floor:
    return "memopt::rt::NearestMode::Floor";
  case tg::NearestMode::ceil:
    return "memopt::rt::NearestMode::Ceil";
  }
  llvm_unreachable("unknown nearest mode");
}

/// resize and its backward: operand, result, mode, coordinate mode, nearest
/// mode, scales (sizes are the result's).
template <typename OpTy>
class ResizePattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy op, OpAdaptor adaptor, ValueRange results,
                    KernelCall &call) const override {
    ArrayRef<double> scales = op.getScales();
    call.operands(adaptor.getOperands())
        .operands(results)
        .text(cppEnum(op.getMode()))
        .text(cppEnum(op.getCoordinateMode()))
        .text(cppEnum(op.getNearestMode()))
        .text("{" +
              llvm::join(llvm::map_range(
                             scales, [](double s) { return cppDouble(s); }),
                         ", ") +
              "}");
  }
};

} // namespace

void memopt::codegen::populatePoolingPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  patterns.add<MaxPoolPattern<tg::MaxPoolOp>>(converter, context, step,
                                                "maxPool");
  patterns.add<MaxPoolPattern<tg::MaxPoolBackwardOp>>(converter, context,
                                                        step,
                                                        "maxPoolBackward");
  patterns.add<AvgPoolPattern<tg::AvgPoolOp>>(converter, context, step,
                                                "avgPool");
  patterns.add<AvgPoolPattern<tg::AvgPoolBackwardOp>>(converter, context,
                                                        step,
                                                        "avgPoolBackward");
  patterns.add<ResizePattern<tg::ResizeOp>>(converter, context, step,
                                            "resize");
  patterns.add<ResizePattern<tg::ResizeBackwardOp>>(converter, context, step,
                                                    "resizeBackward");
  addPlainKernelPatterns<tg::GlobalAvgPoolOp>(converter, patterns, step,
                                              {"globalAvgPool"});
}
