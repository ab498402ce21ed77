//===- TGGradients.cpp - GradientOpInterface of the tg forward ops --------===//
//
// The vector-Jacobian product of every differentiable op. A rule emits only
// the gradients its caller asks for (the input of the first convolution
// needs none) and follows PyTorch's autograd formula for the op, so that the
// compiled step reproduces a PyTorch step. Gradients of broadcasting
// operands are summed back to the operand's shape. Every op is built with
// its result type given, never inferred, so that a mistake shows as a
// verifier error and not as a crash.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <numeric>

using namespace mlir;
using namespace memopt::tg;

namespace {

/// The shape of a (statically shaped) tensor value.
ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

RankedTensorType typeWithShape(Value like, ArrayRef<int64_t> shape) {
  return cast<RankedTensorType>(like.getType()).clone(shape);
}

/// The arguments of one op's rule (what it is given and what it fills in)
/// and the ops it emits, at the op's location.
class Gradient {
public:
  Gradient(OpBuilder &builder, Operation *op, ArrayRef<Value> resultGrads,
           ArrayRef<bool> wanted, MutableArrayRef<Value> grads)
      : builder(builder), loc(op->getLoc()), resultGrads(resultGrads),
        wanted(wanted), grads(grads) {}

  Value dy() const { return resultGrads.front(); }
  bool wants(unsigned operand) const { return wanted[operand]; }

  Value scalar(Value like, double value) {
    return ConstantOp::createScalar(
        builder, loc, cast<RankedTensorType>(like.getType()).getElementType(),
        value);
  }

  /// A binary op whose result has the broadcast shape of its operands,
  /// which callers guarantee is the shape of `lhs`.
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(builder, loc, lhs.getType(), lhs, rhs);
  }

  template <typename OpTy> Value unary(Value input) {
    return OpTy::create(builder, loc, input.getType(), input);
  }

  Value reshape(Value input, ArrayRef<int64_t> shape) {
    if (shapeOf(input) == shape)
      return input;
    return ReshapeOp::create(builder, loc, typeWithShape(input, shape), input,
                             shape);
  }

  Value broadcast(Value input, ArrayRef<int64_t> shape) {
    if (shapeOf(input) == shape)
      return input;
    return BroadcastOp::create(builder, loc, typeWithShape(input, shape), input,
                               shape);
  }

  Value reduceSum(Value input, ArrayRef<int64_t> axes, bool keepdims) {
    SmallVector<int64_t> shape;
    for (auto [axis, size] : llvm::enumerate(shapeOf(input))) {
      if (!llvm::is_contained(axes, static_cast<int64_t>(axis)))
        shape.push_back(size);
      else if (keepdims)
        shape.push_back(1);
    }
    return ReduceSumOp::create(builder, loc, typeWithShape(input, shape), input,
                               axes, keepdims);
  }

  /// Sums a gradient of the broadcast shape back to `shape`, the shape of
  /// the operand that was broadcast (NumPy rules: leading axes and size-1
  /// axes), as PyTorch's sum_to.
  Value sumToShape(Value grad, ArrayRef<int64_t> shape) {
    ArrayRef<int64_t> from = shapeOf(grad);
    size_t lead = from.size() - shape.size();
    SmallVector<int64_t> axes;
    for (size_t axis = 0; axis < from.size(); ++axis)
      if (axis < lead || (shape[axis - lead] == 1 && from[axis] != 1))
        axes.push_back(axis);
    if (axes.empty())
      return reshape(grad, shape);
    return reshape(reduceSum(grad, axes, /*keepdims=*/true), shape);
  }

  /// Swaps the last two axes (the matrix transpose of a batched matmul).
  Value transposeMatrix(Value input) {
    int64_t rank = shapeOf(input).size();
    SmallVector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[rank - 1], perm[rank - 2]);
    return transpose(input, perm);
  }

  Value transpose(Value input, ArrayRef<int64_t> perm) {
    SmallVector<int64_t> shape;
    for (int64_t axis : perm)
      shape.push_back(shapeOf(input)[axis]);
    return TransposeOp::create(builder, loc, typeWithShape(input, shape), input,
                               perm);
  }

  /// tg.matmul of operands of rank >= 2 whose batch axes broadcast to
  /// `batch`.
  Value matmul(Value lhs, Value rhs, ArrayRef<int64_t> batch) {
    SmallVector<int64_t> shape(batch);
    shape.push_back(shapeOf(lhs).drop_back().back());
    shape.push_back(shapeOf(rhs).back());
    return MatMulOp::create(builder, loc, typeWithShape(lhs, shape), lhs, rhs);
  }

  /// The gradients of a binary op with NumPy broadcasting: each is
  /// computed at the output's shape (`lhsFull`, `rhsFull`), then summed
  /// back to its operand's shape; the rhs one negated for sub and div.
  LogicalResult broadcasting(Operation *op, function_ref<Value()> lhsFull,
                             function_ref<Value()> rhsFull, bool negateRhs) {
    if (wants(0))
      grads[0] = sumToShape(lhsFull(), shapeOf(op->getOperand(0)));
    if (wants(1)) {
      Value grad = sumToShape(rhsFull(), shapeOf(op->getOperand(1)));
      grads[1] = negateRhs ? unary<NegOp>(grad) : grad;
    }
    return success();
  }

  /// The bias gradient of a convolution: the output gradient summed over
  /// all axes but the channels.
  void convBias(Value bias, unsigned operand) {
    if (!bias || !wants(operand))
      return;
    SmallVector<int64_t> axes = {0};
    for (int64_t axis = 2, rank = shapeOf(dy()).size(); axis < rank; ++axis)
      axes.push_back(axis);
    grads[operand] = reduceSum(dy(), axes, /*keepdims=*/false);
  }

  /// An activation whose backward op reads the forward output.
  template <typename BackwardOp> LogicalResult fromOutput(Operation *op) {
    grads[0] = BackwardOp::create(builder, loc, op->getOperand(0).getType(),
                                  dy(), op->getResult(0));
    return success();
  }

  /// The output gradient broadcast back over the reduced axes of `input`
  /// (and divided by their element count for a mean).
  LogicalResult reduction(Value input, ArrayRef<int64_t> reducedAxes,
                          bool mean) {
    ArrayRef<int64_t> shape = shapeOf(input);
    SmallVector<int64_t> axes(reducedAxes);
    if (axes.empty()) {
      axes.resize(shape.size());
      std::iota(axes.begin(), axes.end(), 0);
    }
    SmallVector<int64_t> kept(shape);
    int64_t count = 1;
    for (int64_t axis : axes) {
      kept[axis] = 1;
      count *= shape[axis];
    }
    Value grad = reshape(dy(), kept);
    if (mean)
      grad = binary<DivOp>(grad, scalar(grad, static_cast<double>(count)));
    grads[0] = broadcast(grad, shape);
    return success();
  }

  OpBuilder &builder;
  Location loc;
  ArrayRef<Value> resultGrads;
  ArrayRef<bool> wanted;
  MutableArrayRef<Value> grads;
};

/// The input, scale and bias gradients of a batch or instance normalization
/// from its saved statistics, as far as they are wanted.
template <typename BackwardOp, typename NormOp>
LogicalResult normBackward(NormOp op, Gradient &g) {
  if (!g.wants(0) && !g.wants(1) && !g.wants(2))
    return success();
  auto backward = BackwardOp::create(
      g.builder, g.loc, op.getInput().getType(), op.getScale().getType(),
      op.getBias().getType(), g.dy(), op.getInput(), op.getScale(),
      op.getSavedMean(), op.getSavedInvStd());
  for (unsigned i = 0; i < 3; ++i)
    if (g.wants(i))
      g.grads[i] = backward->getResult(i);
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value x = getInput(), w = getWeight();
  if (g.wants(0))
    g.grads[0] = ConvBackwardDataOp::create(
        builder, g.loc, x.getType(), g.dy(), w, getStrides(), getPads(),
        getDilations(), getGroups(), shapeOf(x));
  if (g.wants(1))
    g.grads[1] = ConvBackwardFilterOp::create(
        builder, g.loc, w.getType(), g.dy(), x, getStrides(), getPads(),
        getDilations(), getGroups(), shapeOf(w));
  g.convBias(getBias(), 2);
  return success();
}

/// The data gradient of a transposed convolution is the convolution of the
/// output gradient with the same weight.
LogicalResult ConvTransposeOp::emitGradients(
    OpBuilder &builder, ArrayRef<Value> resultGrads, ArrayRef<bool> wanted,
    MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value x = getInput(), w = getWeight();
  if (g.wants(0))
    g.grads[0] = ConvOp::create(builder, g.loc, x.getType(), g.dy(), w,
                                  /*bias=*/Value(), getStrides(), getPads(),
                                  getDilations(), getGroups());
  if (g.wants(1))
    g.grads[1] = ConvTransposeBackwardFilterOp::create(
        builder, g.loc, w.getType(), g.dy(), x, getStrides(), getPads(),
        getDilations(), getOutputPadding(), getGroups(), shapeOf(w));
  g.convBias(getBias(), 2);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  // The running and batch statistics are results too; a loss that reads
  // them would need their gradients, which PyTorch does not define either.
  if (llvm::any_of(resultGrads.drop_front(), [](Value grad) { return grad; }))
    return emitOpError(
        "has a gradient through its running or batch statistics, which "
        "autodiff does not support");
  if (g.wants(3) || g.wants(4))
    return emitOpError("running statistics that depend on a parameter "
                       "are not supported by autodiff");
  return normBackward<BatchNormBackwardOp>(*this, g);
}

LogicalResult InstanceNormOp::emitGradients(
    OpBuilder &builder, ArrayRef<Value> resultGrads, ArrayRef<bool> wanted,
    MutableArrayRef<Value> operandGrads) {
  if (llvm::any_of(resultGrads.drop_front(), [](Value grad) { return grad; }))
    return emitOpError("has a gradient through its saved statistics, "
                       "which autodiff does not support");
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  return normBackward<InstanceNormBackwardOp>(*this, g);
}

/// y = (x - mean) * k + bias with k = scale / sqrt(var + epsilon), per
/// channel: dx = dy * k, dscale = sum(dy * (x - mean)) / sqrt(var + eps),
/// dbias = sum(dy).
LogicalResult BatchNormInferenceOp::emitGradients(
    OpBuilder &builder, ArrayRef<Value> resultGrads, ArrayRef<bool> wanted,
    MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  if (g.wants(3) || g.wants(4))
    return emitOpError("the gradient with respect to given statistics "
                       "('mean', 'var') is not supported by autodiff");
  Value x = getInput();
  if (cast<RankedTensorType>(getScale().getType()).getElementType() !=
      cast<RankedTensorType>(x.getType()).getElementType())
    return emitOpError("autodiff needs per-channel operands of the "
                       "input's element type");
  ArrayRef<int64_t> xShape = shapeOf(x);
  int64_t channels = xShape[1];
  // Per-channel vectors as C x 1 x ... x 1, which broadcast against x.
  SmallVector<int64_t> channelShape(xShape.size() - 1, 1);
  channelShape[0] = channels;
  SmallVector<int64_t> otherAxes;
  for (int64_t axis = 0, e = xShape.size(); axis < e; ++axis)
    if (axis != 1)
      otherAxes.push_back(axis);

  Value var = getVar();
  Value std = g.unary<SqrtOp>(
      g.binary<AddOp>(var, g.scalar(var, getEpsilon().convertToDouble())));
  if (g.wants(0)) {
    Value k = g.binary<DivOp>(getScale(), std);
    g.grads[0] = g.binary<MulOp>(g.dy(), g.reshape(k, channelShape));
  }
  if (g.wants(1)) {
    Value centered = g.binary<SubOp>(x, g.reshape(getMean(), channelShape));
    Value sum = g.reduceSum(g.binary<MulOp>(g.dy(), centered), otherAxes,
                            /*keepdims=*/false);
    g.grads[1] = g.binary<DivOp>(sum, std);
  }
  if (g.wants(2))
    g.grads[2] = g.reduceSum(g.dy(), otherAxes, /*keepdims=*/false);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult ReluOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  return Gradient(builder, *this, resultGrads, wanted, operandGrads)
      .fromOutput<ReluBackwardOp>(*this);
}

LogicalResult SigmoidOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  return Gradient(builder, *this, resultGrads, wanted, operandGrads)
      .fromOutput<SigmoidBackwardOp>(*this);
}

LogicalResult TanhOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  return Gradient(builder, *this, resultGrads, wanted, operandGrads)
      .fromOutput<TanhBackwardOp>(*this);
}

LogicalResult LeakyReluOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] =
      LeakyReluBackwardOp::create(builder, getLoc(), getInput().getType(),
                                  resultGrads.front(), getInput(), getAlpha());
  return success();
}

LogicalResult ClipOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = ClipBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput(),
      getMin(), getMax());
  return success();
}

// The activations whose backward op reads the forward input and has the
// forward op's attributes.

LogicalResult HardSigmoidOp::emitGradients(OpBuilder &builder,
                                           ArrayRef<Value> resultGrads,
                                           ArrayRef<bool> wanted,
                                           MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = HardSigmoidBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput(),
      getAlpha(), getBeta());
  return success();
}

LogicalResult HardSwishOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = HardSwishBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput());
  return success();
}

LogicalResult EluOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  operandGrads[0] =
      EluBackwardOp::create(builder, getLoc(), getInput().getType(),
                            resultGrads.front(), getInput(), getAlpha());
  return success();
}

LogicalResult SoftplusOp::emitGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool> wanted,
                                        MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = SoftplusBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput());
  return success();
}

LogicalResult ErfOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = ErfBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput());
  return success();
}

/// dx = x > 0 ? dy : slope * dy; dslope = dy * min(x, 0) summed back to the
/// slope's shape, with min(x, 0) = x - relu(x) (exact in float).
LogicalResult PReluOp::emitGradients(OpBuilder &builder,
                                     ArrayRef<Value> resultGrads,
                                     ArrayRef<bool> wanted,
                                     MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value x = getInput(), slope = getSlope();
  if (g.wants(0))
    g.grads[0] = PReluBackwardOp::create(builder, g.loc, x.getType(), g.dy(),
                                         x, slope);
  if (g.wants(1)) {
    Value negativePart = g.binary<SubOp>(x, g.unary<ReluOp>(x));
    g.grads[1] = g.sumToShape(g.binary<MulOp>(g.dy(), negativePart),
                              shapeOf(slope));
  }
  return success();
}

// PyTorch's softmax and log_softmax backward, which read the output.

LogicalResult SoftmaxOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = SoftmaxBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getOutput(),
      getAxis());
  return success();
}

LogicalResult LogSoftmaxOp::emitGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool> wanted,
                                          MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = LogSoftmaxBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getOutput(),
      getAxis());
  return success();
}

// neg, exp, log, sqrt, abs: PyTorch's formulas with elementwise ops.

LogicalResult NegOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.unary<NegOp>(g.dy());
  return success();
}

LogicalResult ExpOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.binary<MulOp>(g.dy(), getOutput());
  return success();
}

LogicalResult LogOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.binary<DivOp>(g.dy(), getInput());
  return success();
}

LogicalResult SqrtOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value y = getOutput();
  g.grads[0] = g.binary<DivOp>(g.dy(), g.binary<MulOp>(y, g.scalar(y, 2.0)));
  return success();
}

LogicalResult AbsOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.binary<MulOp>(g.dy(), g.unary<SignOp>(getInput()));
  return success();
}

LogicalResult AddOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  auto dy = [&] { return g.dy(); };
  return g.broadcasting(*this, dy, dy, /*negateRhs=*/false);
}

LogicalResult SubOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  auto dy = [&] { return g.dy(); };
  return g.broadcasting(*this, dy, dy, /*negateRhs=*/true);
}

LogicalResult MulOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  return g.broadcasting(
      *this, [&] { return g.binary<MulOp>(g.dy(), getRhs()); },
      [&] { return g.binary<MulOp>(g.dy(), getLhs()); },
      /*negateRhs=*/false);
}

/// d(a / b)/db = -a / b^2 = -(y / b), as PyTorch's div backward.
LogicalResult DivOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  return g.broadcasting(
      *this, [&] { return g.binary<DivOp>(g.dy(), getRhs()); },
      [&] {
        return g.binary<MulOp>(g.dy(), g.binary<DivOp>(getOutput(), getRhs()));
      },
      /*negateRhs=*/true);
}

/// PyTorch's where backward: the output gradient where the condition chose
/// the branch, 0 elsewhere (a select, so that an inf or NaN gradient does
/// not leak into the other branch), summed to the branch's shape. The
/// condition, a mask, gets none.
LogicalResult SelectOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  for (unsigned operand : {1u, 2u}) {
    if (!g.wants(operand))
      continue;
    Value zero = g.scalar(g.dy(), 0.0);
    bool onTrue = operand == 1;
    Value grad = SelectOp::create(builder, getLoc(), g.dy().getType(),
                                  getCondition(), onTrue ? g.dy() : zero,
                                  onTrue ? zero : g.dy());
    g.grads[operand] = g.sumToShape(grad, shapeOf(getOperand(operand)));
  }
  return success();
}

/// Piecewise constant (a drop-path or drop-connect mask): the gradient is
/// zero, as PyTorch's, so no operand gets one.
LogicalResult CompareOp::emitGradients(OpBuilder &, ArrayRef<Value>,
                                       ArrayRef<bool>,
                                       MutableArrayRef<Value>) {
  return success();
}
LogicalResult FloorOp::emitGradients(OpBuilder &, ArrayRef<Value>,
                                     ArrayRef<bool>, MutableArrayRef<Value>) {
  return success();
}

/// The mask holds 0 or 1 / (1 - ratio) per element; it does not depend on
/// the input, so a gradient reaching it is dropped.
LogicalResult DropoutOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  if (g.dy())
    g.grads[0] = g.binary<MulOp>(g.dy(), getMask());
  return success();
}

/// The result gradient converted back to the input's element type.
LogicalResult CastOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  if (wanted[0])
    operandGrads[0] = CastOp::create(builder, getLoc(), getInput().getType(),
                                     resultGrads.front());
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

LogicalResult MaxPoolOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = MaxPoolBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getInput(),
      getKernel(), getStrides(), getPads(), getDilations(), getCeilMode());
  return success();
}

LogicalResult AvgPoolOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = AvgPoolBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getKernel(),
      getStrides(), getPads(), getCeilMode(), getCountIncludePad(),
      shapeOf(getInput()));
  return success();
}

/// Every position receives dy / (H * W).
LogicalResult
GlobalAvgPoolOp::emitGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                               ArrayRef<bool> wanted,
                               MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t spatial = 1;
  for (int64_t extent : shape.drop_front(2))
    spatial *= extent;
  Value scaled = g.binary<DivOp>(
      g.dy(), g.scalar(g.dy(), static_cast<double>(spatial)));
  g.grads[0] = g.broadcast(scaled, shape);
  return success();
}

LogicalResult ResizeOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = ResizeBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getMode(),
      getCoordinateMode(), getNearestMode(), getSizesAttr(), getScales(),
      shapeOf(getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// Each input receives its slice of the output gradient along the axis.
LogicalResult ConcatOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  ArrayRef<int64_t> outShape = shapeOf(getOutput());
  int64_t axis = getAxis();
  int64_t offset = 0;
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    int64_t size = shapeOf(input)[axis];
    if (wanted[index]) {
      SmallVector<int64_t> starts(outShape.size(), 0);
      SmallVector<int64_t> ends(outShape);
      SmallVector<int64_t> steps(outShape.size(), 1);
      starts[axis] = offset;
      ends[axis] = offset + size;
      operandGrads[index] =
          SliceOp::create(builder, getLoc(), input.getType(),
                          resultGrads.front(), starts, ends, steps);
    }
    offset += size;
  }
  return success();
}

LogicalResult SliceOp::emitGradients(OpBuilder &builder,
                                     ArrayRef<Value> resultGrads,
                                     ArrayRef<bool> wanted,
                                     MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = SliceBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getStarts(),
      getEnds(), getSteps(), shapeOf(getInput()));
  return success();
}

/// The scatter-add of the output gradient onto the gathered positions.
LogicalResult GatherOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = GatherBackwardOp::create(
      builder, getLoc(), getInput().getType(), resultGrads.front(), getAxis(),
      getIndices(), shapeOf(getInput()));
  return success();
}

/// A constant pad's gradient is the slice of the unpadded region; reflect
/// and edge pads also add the gradient of the copied borders back onto the
/// positions they copy (tg.pad_backward). A pad of all-zero widths is the
/// identity whatever its mode.
LogicalResult PadOp::emitGradients(OpBuilder &builder,
                                   ArrayRef<Value> resultGrads,
                                   ArrayRef<bool> wanted,
                                   MutableArrayRef<Value> operandGrads) {
  bool padded = llvm::any_of(getPads(), [](int64_t p) { return p != 0; });
  if (!padded) {
    operandGrads[0] = resultGrads.front();
    return success();
  }
  if (getMode() != PadMode::constant) {
    operandGrads[0] = PadBackwardOp::create(
        builder, getLoc(), getInput().getType(), resultGrads.front(),
        getPads(), getMode(), shapeOf(getInput()));
    return success();
  }
  ArrayRef<int64_t> shape = shapeOf(getInput());
  ArrayRef<int64_t> begins = getPads().take_front(shape.size());
  SmallVector<int64_t> ends;
  for (auto [begin, size] : llvm::zip_equal(begins, shape))
    ends.push_back(begin + size);
  SmallVector<int64_t> steps(shape.size(), 1);
  operandGrads[0] = SliceOp::create(builder, getLoc(), getInput().getType(),
                                    resultGrads.front(), begins, ends, steps);
  return success();
}

LogicalResult BroadcastOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.sumToShape(g.dy(), shapeOf(getInput()));
  return success();
}

LogicalResult ReshapeOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  g.grads[0] = g.reshape(g.dy(), shapeOf(getInput()));
  return success();
}

LogicalResult TransposeOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, axis] : llvm::enumerate(perm))
    inverse[axis] = i;
  g.grads[0] = g.transpose(g.dy(), inverse);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// da = dy * b^T and db = a^T * dy, summed over the batch axes that the
/// operand was broadcast along.
LogicalResult MatMulOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value a = getLhs(), b = getRhs(), dy = g.dy();
  ArrayRef<int64_t> batch = shapeOf(dy).drop_back(2);
  if (g.wants(0))
    g.grads[0] =
        g.sumToShape(g.matmul(dy, g.transposeMatrix(b), batch), shapeOf(a));
  if (g.wants(1))
    g.grads[1] =
        g.sumToShape(g.matmul(g.transposeMatrix(a), dy, batch), shapeOf(b));
  return success();
}

/// y = alpha * op(a) * op(b) + beta * c, with each gradient a gemm that
/// reads the operands in place (the transposes are flags).
LogicalResult GemmOp::emitGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> wanted,
                                    MutableArrayRef<Value> operandGrads) {
  Gradient g(builder, *this, resultGrads, wanted, operandGrads);
  Value a = getA(), b = getB(), dy = g.dy();
  bool transA = getTransA(), transB = getTransB();
  llvm::APFloat alpha = getAlpha(), one(1.0);
  auto gemm = [&](Value like, Value lhs, Value rhs, bool tl, bool tr) {
    return GemmOp::create(builder, g.loc, like.getType(), lhs, rhs,
                          /*c=*/Value(), alpha, one, tl, tr)
        .getResult();
  };
  if (g.wants(0))
    g.grads[0] =
        transA ? gemm(a, b, dy, transB, true) : gemm(a, dy, b, false, !transB);
  if (g.wants(1))
    g.grads[1] =
        transB ? gemm(b, dy, a, true, transA) : gemm(b, a, dy, !transA, false);
  if (Value c = getC(); c && g.wants(2)) {
    double beta = getBeta().convertToDouble();
    Value scaled = beta == 1.0 ? dy : g.binary<MulOp>(dy, g.scalar(dy, beta));
    g.grads[2] = g.sumToShape(scaled, shapeOf(c));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::emitGradients(OpBuilder &builder,
                                         ArrayRef<Value> resultGrads,
                                         ArrayRef<bool> wanted,
                                         MutableArrayRef<Value> operandGrads) {
  return Gradient(builder, *this, resultGrads, wanted, operandGrads)
      .reduction(getInput(), getAxes(), /*mean=*/false);
}

LogicalResult ReduceMeanOp::emitGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool> wanted,
                                          MutableArrayRef<Value> operandGrads) {
  return Gradient(builder, *this, resultGrads, wanted, operandGrads)
      .reduction(getInput(), getAxes(), /*mean=*/true);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

namespace {

/// The gradient of a loss with respect to its prediction (or logits): its
/// backward op on the loss's gradient and operands, with `attrs`, the
/// attributes the loss and its backward share. The target is data: a
/// target that depends on a parameter is an error, not a silent zero.
template <typename BackwardOp, typename... Attrs>
LogicalResult lossGradient(Operation *op, OpBuilder &builder,
                           ArrayRef<Value> resultGrads, ArrayRef<bool> wanted,
                           MutableArrayRef<Value> operandGrads,
                           Attrs... attrs) {
  if (wanted[1])
    return op->emitOpError("has no gradient with respect to its target; the "
                           "target must not depend on a parameter");
  Value prediction = op->getOperand(0);
  operandGrads[0] =
      BackwardOp::create(builder, op->getLoc(), prediction.getType(),
                         resultGrads.front(), prediction, op->getOperand(1),
                         attrs...);
  return success();
}

} // namespace

LogicalResult MSELossOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  return lossGradient<MSELossBackwardOp>(*this, builder, resultGrads, wanted,
                                         operandGrads);
}

LogicalResult L1LossOp::emitGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> wanted,
                                      MutableArrayRef<Value> operandGrads) {
  return lossGradient<L1LossBackwardOp>(*this, builder, resultGrads, wanted,
                                        operandGrads);
}

LogicalResult BCELossOp::emitGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> wanted,
                                       MutableArrayRef<Value> operandGrads) {
  return lossGradient<BCELossBackwardOp>(*this, builder, resultGrads, wanted,
                                         operandGrads);
}

LogicalResult
CrossEntropyLossOp::emitGradients(OpBuilder &builder,
                                  ArrayRef<Value> resultGrads,
                                  ArrayRef<bool> wanted,
                                  MutableArrayRef<Value> operandGrads) {
  return lossGradient<CrossEntropyLossBackwardOp>(
      *this, builder, resultGrads, wanted, operandGrads);
}

LogicalResult DiceLossOp::emitGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool> wanted,
                                        MutableArrayRef<Value> operandGrads) {
  return lossGradient<DiceLossBackwardOp>(*this, builder, resultGrads, wanted,
                                          operandGrads, getEpsilonAttr());
}
