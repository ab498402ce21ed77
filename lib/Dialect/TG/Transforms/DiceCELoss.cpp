//===- DiceCELoss.cpp - nnU-Net's Dice + cross-entropy loss ---------------===//
//
// nnU-Net v2's DC_and_CE_loss as nnUNetTrainer._build_loss configures it
// for label maps: RobustCrossEntropyLoss (F.cross_entropy) plus
// MemoryEfficientSoftDiceLoss(apply_nonlin=softmax, batch_dice=True,
// do_bg=False, smooth=1e-5), weights 1 and 1. The Dice term is nnU-Net's
// -mean(dc): the loss can be negative, and equals the value nnU-Net logs.
// nnU-Net clamps the Dice denominator at 1e-8, which never binds (the sums
// are non-negative and smooth is 1e-5), so no op does.
//
//===----------------------------------------------------------------------===//

#include "DiceCELoss.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt::tg;

namespace {

/// Emits the ops of one loss evaluation at one location; each statement
/// makes one op, so that the IR order is the order of the code.
class DiceCEEmitter {
public:
  DiceCEEmitter(OpBuilder &builder, Location loc, RankedTensorType logits)
      : builder(builder), loc(loc), type(logits) {}

  Value scalar(double value) {
    return ConstantOp::createScalar(builder, loc, type.getElementType(),
                                    value);
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(builder, loc, lhs, rhs);
  }

  /// softmax(logits) over the channels without channel 0, the background.
  Value foregroundProbabilities(Value logits) {
    Value probabilities = SoftmaxOp::create(builder, loc, logits, 1);
    SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
    starts[1] = 1;
    return SliceOp::create(builder, loc, probabilities, starts,
                           type.getShape(), steps);
  }

  /// The one-hot encoding of the foreground classes 1..C-1 of the class
  /// map, N x (C-1) x spatial, as relu(1 - |target - c|): exactly 1 where
  /// the class index is c and 0 elsewhere, from elementwise ops that every
  /// backend has (a one-hot op would need a kernel of its own).
  Value foregroundOneHot(Value target) {
    SmallVector<int64_t> mapShape(type.getShape());
    mapShape[1] = 1;
    Value map = ReshapeOp::create(builder, loc, type.clone(mapShape), target,
                                  mapShape);
    SmallVector<int64_t> classShape(type.getRank(), 1);
    classShape[1] = type.getDimSize(1) - 1;
    auto classType = type.clone(classShape);
    SmallVector<Attribute> classes;
    for (int64_t c = 1; c < type.getDimSize(1); ++c)
      classes.push_back(builder.getFloatAttr(type.getElementType(), c));
    Value indices = ConstantOp::create(
        builder, loc, classType, DenseElementsAttr::get(classType, classes));
    Value difference = binary<SubOp>(map, indices);
    Value distance = AbsOp::create(builder, loc, difference);
    Value match = binary<SubOp>(scalar(1.0), distance);
    return ReluOp::create(builder, loc, match);
  }

  /// The sum per class over the batch and all positions (batch Dice).
  Value sumPerClass(Value input) {
    SmallVector<int64_t> axes = {0};
    for (int64_t axis = 2; axis < type.getRank(); ++axis)
      axes.push_back(axis);
    return ReduceSumOp::create(builder, loc, input, axes,
                               /*keepdims=*/false);
  }

  Value loss(Value logits, Value target) {
    Value crossEntropy = CrossEntropyLossOp::create(builder, loc, logits,
                                                    target);
    Value p = foregroundProbabilities(logits);
    Value y = foregroundOneHot(target);
    Value intersect = sumPerClass(binary<MulOp>(p, y));
    Value sumPred = sumPerClass(p);
    Value sumGt = sumPerClass(y);
    Value smooth = scalar(memopt::tg::detail::kDiceCESmooth);
    Value twice = binary<MulOp>(scalar(2.0), intersect);
    Value numerator = binary<AddOp>(twice, smooth);
    Value sums = binary<AddOp>(sumGt, sumPred);
    Value denominator = binary<AddOp>(sums, smooth);
    Value dice = binary<DivOp>(numerator, denominator);
    Value meanDice = ReduceMeanOp::create(builder, loc, dice,
                                          ArrayRef<int64_t>{},
                                          /*keepdims=*/false);
    return binary<SubOp>(crossEntropy, meanDice);
  }

private:
  OpBuilder &builder;
  Location loc;
  RankedTensorType type;
};

} // namespace

Value memopt::tg::detail::emitDiceCELoss(OpBuilder &builder, Location loc,
                                         Value logits, Value target) {
  return DiceCEEmitter(builder, loc, cast<RankedTensorType>(logits.getType()))
      .loss(logits, target);
}
