//===- MBufPatterns.cpp - Views and kernels of the mbuf step --------------===//
//
// Each view op becomes the declaration of its C++ view at the place it
// states (StepContext::declareView); an mbuf.kernel gives way to its
// computation, whose block arguments become the views of its inputs and
// whose tg pattern writes the views of its outputs. A pipeline stage's
// mbuf.send / mbuf.recv become the blocking memopt::rt::sendTensor /
// receiveTensor (Transfer.h), so their mbuf.wait has nothing left to do;
// tg-offload's mbuf.copy_async becomes memopt::rt::startCopy and the wait
// of its token waitCopy (Copy.h), the copy's number standing for the token;
// a data-parallel tg.all_reduce the blocking memopt::rt::allReduceMean,
// tg.shard and tg.all_gather replicaPart and allGatherParts.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

uint64_t memopt::largestExchangeBytes(Operation *func) {
  auto bytesOf = [](Type type) -> uint64_t {
    auto view = dyn_cast<mbuf::ViewType>(type);
    if (!view)
      view = mbuf::ViewType::get(cast<ShapedType>(type).getShape(),
                                 cast<ShapedType>(type).getElementType());
    return static_cast<uint64_t>(view.getSizeInBytes());
  };
  uint64_t largest = 0;
  // Walks into mbuf.kernel bodies: their tg.all_reduce / tg.all_gather
  // are the exchanged tensors of a planned step. tg.shard is local.
  func->walk([&](Operation *op) {
    Type exchanged =
        llvm::TypeSwitch<Operation *, Type>(op)
            .Case([](tg::SendOp send) { return send.getInput().getType(); })
            .Case<tg::RecvOp, tg::AllReduceOp, tg::AllGatherOp>(
                [](auto op) { return op.getOutput().getType(); })
            .Case<mbuf::SendOp, mbuf::RecvOp>(
                [](auto op) { return op.getView().getType(); })
            .Default([](Operation *) { return Type(); });
    if (exchanged)
      largest = std::max(largest, bytesOf(exchanged));
  });
  return largest;
}

LogicalResult memopt::codegen::declareConstantData(OpBuilder &builder,
                                                   Operation *at,
                                                   StringRef name,
                                                   ElementsAttr value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return at->emitError("the backend needs dense constants");
  // bf16 / f16 values are stored as their bits (int16_t: C++17 has no
  // 2-byte float type); the view declaration gives them their type.
  Type element = dense.getElementType();
  if (element.isBF16() || element.isF16()) {
    element = IntegerType::get(at->getContext(), 16);
    dense = dense.bitcast(element);
  }
  int64_t count = std::max<int64_t>(dense.getNumElements(), 1);
  auto flat = RankedTensorType::get({count}, element);
  auto arrayType = emitc::ArrayType::get({count}, element);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(at->getParentOfType<emitc::FuncOp>());
  emitc::GlobalOp::create(builder, at->getLoc(), name, arrayType,
                          dense.reshape(flat), /*externSpecifier=*/false,
                          /*staticSpecifier=*/true, /*constSpecifier=*/false);
  return success();
}

namespace {

/// mbuf.view, mbuf.subview, mbuf.result: the declaration of the view. A
/// workspace is no tensor: its kernel names its start (StepContext).
template <typename OpTy>
class ViewPattern : public OpConversionPattern<OpTy> {
public:
  ViewPattern(const TypeConverter &converter, MLIRContext *context,
              const StepContext &step)
      : OpConversionPattern<OpTy>(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpConversionPattern<OpTy>::OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value view = op.getView();
    if (cast<mbuf::ViewType>(view.getType()).getElementType().isInteger(8)) {
      Type type = this->getTypeConverter()->convertType(view.getType());
      rewriter.replaceOpWithNewOp<emitc::LiteralOp>(op, type,
                                                    step.workspaceAt(view));
      return success();
    }
    rewriter.replaceOp(op, step.declareView(rewriter, op.getLoc(), view));
    return success();
  }

private:
  const StepContext &step;
};

/// mbuf.constant: a static array (StepContext::dataName) of the generated file and a
/// view of it.
class ConstantViewPattern : public OpConversionPattern<mbuf::ConstantOp> {
public:
  ConstantViewPattern(const TypeConverter &converter, MLIRContext *context,
                      const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(mbuf::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string data = step.dataName(op.getView()).str();
    if (failed(declareConstantData(rewriter, op, data, op.getValue())))
      return failure();
    rewriter.replaceOp(op,
                       step.declareView(rewriter, op.getLoc(), op.getView()));
    return success();
  }

private:
  const StepContext &step;
};

/// mbuf.arena: the step's `arenas[index]`, which the views name.
class ArenaPattern : public OpConversionPattern<mbuf::ArenaOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(mbuf::ArenaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = emitc::PointerType::get(
        emitc::OpaqueType::get(op.getContext(), "void"));
    rewriter.replaceOpWithNewOp<emitc::LiteralOp>(
        op, type, (kArenasName + "[" + Twine(op.getIndex()) + "]").str());
    return success();
  }
};

/// mbuf.kernel: its computation, in place, on the views.
class KernelOpPattern : public OpConversionPattern<mbuf::KernelOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(mbuf::KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    Operation *yield = body.getTerminator();
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, op, adaptor.getIns());
    rewriter.eraseOp(op);
    return success();
  }
};

/// mbuf.send / mbuf.recv: the blocking call; its token, complete when the
/// call returns, is a placeholder that only mbuf.wait reads.
template <typename OpTy>
class TransferPattern : public OpConversionPattern<OpTy> {
public:
  TransferPattern(const TypeConverter &converter, MLIRContext *context,
                  StringRef callee)
      : OpConversionPattern<OpTy>(converter, context), callee(callee) {}

  LogicalResult
  matchAndRewrite(OpTy op,
                  typename OpConversionPattern<OpTy>::OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelCall(op.getContext(), callee)
        .operand(adaptor.getView())
        .integer(op.getPeer())
        .integer(op.getTag())
        .emit(rewriter, op.getLoc());
    Type token = this->getTypeConverter()->convertType(op.getToken().getType());
    rewriter.replaceOpWithNewOp<emitc::LiteralOp>(op, token, "0");
    return success();
  }

private:
  StringRef callee;
};

/// mbuf.copy_async: startCopy with the copy's number (StepContext), which
/// is also its token: the wait names it.
class CopyAsyncPattern : public OpConversionPattern<mbuf::CopyAsyncOp> {
public:
  CopyAsyncPattern(const TypeConverter &converter, MLIRContext *context,
                   const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(mbuf::CopyAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t id = step.copy(op).id;
    KernelCall(op.getContext(), "startCopy")
        .integer(id)
        .operand(adaptor.getTarget())
        .operand(adaptor.getSource())
        .emit(rewriter, op.getLoc());
    Type token = getTypeConverter()->convertType(op.getToken().getType());
    rewriter.replaceOpWithNewOp<emitc::LiteralOp>(op, token,
                                                  std::to_string(id));
    return success();
  }

private:
  const StepContext &step;
};

/// mbuf.wait: waitCopy (and its trace event) for each copy it awaits; the
/// transfers between stages are complete already.
class WaitPattern : public OpConversionPattern<mbuf::WaitOp> {
public:
  WaitPattern(const TypeConverter &converter, MLIRContext *context,
              const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(mbuf::WaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value token : op.getTokens()) {
      auto copy = token.getDefiningOp<mbuf::CopyAsyncOp>();
      if (!copy)
        continue;
      const StepContext::Copy &info = step.copy(copy);
      KernelCall(op.getContext(), "waitCopy")
          .integer(info.id)
          .emit(rewriter, op.getLoc());
      bool offload = copy.getTarget().getType().getSpace() ==
                     mbuf::MemorySpace::PinnedHost;
      KernelCall(op.getContext(), "traceCopy")
          .integer(info.id)
          .text(cppString(info.name))
          .text(cppString(offload ? "offload" : "prefetch"))
          .emit(rewriter, op.getLoc());
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  const StepContext &step;
};

} // namespace

void memopt::codegen::populateMBufPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const StepContext &step) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ViewPattern<mbuf::ViewOp>, ViewPattern<mbuf::SubviewOp>,
               ViewPattern<mbuf::ResultOp>, ConstantViewPattern>(
      converter, context, step);
  patterns.add<ArenaPattern, KernelOpPattern>(converter, context);
  patterns.add<CopyAsyncPattern, WaitPattern>(converter, context, step);
  patterns.add<TransferPattern<mbuf::SendOp>>(converter, context, "sendTensor");
  patterns.add<TransferPattern<mbuf::RecvOp>>(converter, context,
                                              "receiveTensor");
  // The mean over data-parallel replicas: input, output (the same view when
  // the plan wrote it in place).
  patterns.add<PlainKernelPattern<tg::AllReduceOp>>(converter, context, step,
                                                    "allReduceMean");
  // Optimizer-state sharding: this replica's part, the whole from the parts.
  patterns.add<PlainKernelPattern<tg::ShardOp>>(converter, context, step,
                                                "replicaPart");
  patterns.add<PlainKernelPattern<tg::AllGatherOp>>(converter, context, step,
                                                    "allGatherParts");
}
