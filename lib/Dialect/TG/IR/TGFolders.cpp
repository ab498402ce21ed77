//===- TGFolders.cpp - Folders and canonicalizations of tg ops ------------===//
//
// Folding removes what PyTorch exports leave behind around the real
// computation: identity reshapes, zero pads, full slices, arithmetic on
// constants and with neutral elements.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace memopt::tg;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return constFoldUnaryOp<FloatAttr, APFloat, void>(adaptor.getOperands(),
                                     [](const APFloat &a) { return -a; });
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// True when `value` is a constant splat bitwise equal to `neutral`. The
/// comparison is bitwise because the signed zeros differ: x + (-0.0) is x for
/// every x, but x + 0.0 turns -0.0 into +0.0, and folds must not change a
/// single bit of the result.
bool isSplatOf(Value value, double neutral) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  APFloat splat = attr.getSplatValue<APFloat>();
  APFloat expected(neutral);
  bool lost;
  expected.convert(splat.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return splat.bitwiseIsEqual(expected);
}

/// Folds a binary op: constants of one shape are evaluated; a neutral splat
/// on the right (or, when `commutative`, on the left) returns the other
/// operand when that operand already has the result type.
template <typename OpT, typename Calc>
OpFoldResult foldBinary(OpT op, typename OpT::FoldAdaptor adaptor,
                        double neutral, bool commutative, Calc calc) {
  Type resultType = op.getType();
  if (op.getLhs().getType() == resultType &&
      op.getRhs().getType() == resultType)
    if (Attribute folded = constFoldBinaryOp<FloatAttr, APFloat, void>(
            adaptor.getOperands(), resultType, calc))
      return folded;
  if (op.getLhs().getType() == resultType && isSplatOf(op.getRhs(), neutral))
    return op.getLhs();
  if (commutative && op.getRhs().getType() == resultType &&
      isSplatOf(op.getLhs(), neutral))
    return op.getRhs();
  return {};
}
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor, -0.0, /*commutative=*/true,
                    [](const APFloat &a, const APFloat &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor, 0.0, /*commutative=*/false,
                    [](const APFloat &a, const APFloat &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor, 1.0, /*commutative=*/true,
                    [](const APFloat &a, const APFloat &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor, 1.0, /*commutative=*/false,
                    [](const APFloat &a, const APFloat &b) { return a / b; });
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  return {};
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPads(), [](int64_t p) { return p == 0; }))
    return getInput();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

namespace {
/// reshape(reshape(x)) is one reshape: only the final shape matters.
struct FoldReshapeChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ReshapeOp>();
    if (!producer)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, producer.getInput(),
                                           op.getShape());
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<FoldReshapeChain>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getInput();
}
