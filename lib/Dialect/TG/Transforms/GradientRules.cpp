//===- GradientRules.cpp - Backward rules of the tg forward ops -----------===//
//
// One rule per forward op family. A rule emits only the gradients its
// caller asks for (the input of the first convolution needs none) and
// follows PyTorch's autograd formula for the op, so that the compiled step
// reproduces a PyTorch step. Gradients of broadcasting operands are summed
// back to the operand's shape. Every op is built with its result type
// given, never inferred, so that a mistake shows as a verifier error and not
// as a crash.
//
//===----------------------------------------------------------------------===//

#include "GradientRules.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// Emits the gradient ops of one forward op at one location.
class GradientEmitter {
public:
  GradientEmitter(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  Value scalar(Value like, double value) {
    return memopt::tg::detail::emitScalarConstant(
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

  OpBuilder &builder;
  Location loc;
};

/// The operands of a rule: what it is given and what it must fill in.
struct RuleArgs {
  Operation *op;
  ArrayRef<Value> resultGrads;
  ArrayRef<bool> wanted;
  MutableArrayRef<Value> grads;
  GradientEmitter &emit;

  Value dy() const { return resultGrads.front(); }
  bool wants(unsigned operand) const { return wanted[operand]; }
};

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// The bias gradient of a convolution: the output gradient summed over all
/// axes but the channels.
void convBiasGrad(const RuleArgs &args, Value bias, unsigned operand) {
  if (bias && args.wants(operand))
    args.grads[operand] = args.emit.reduceSum(args.dy(), {0, 2, 3},
                                              /*keepdims=*/false);
}

LogicalResult conv2dRule(Conv2DOp op, const RuleArgs &args) {
  OpBuilder &b = args.emit.builder;
  Location loc = args.emit.loc;
  Value x = op.getInput(), w = op.getWeight();
  if (args.wants(0))
    args.grads[0] = Conv2DBackwardDataOp::create(
        b, loc, x.getType(), args.dy(), w, op.getStrides(), op.getPads(),
        op.getDilations(), op.getGroups(), shapeOf(x));
  if (args.wants(1))
    args.grads[1] = Conv2DBackwardFilterOp::create(
        b, loc, w.getType(), args.dy(), x, op.getStrides(), op.getPads(),
        op.getDilations(), op.getGroups(), shapeOf(w));
  convBiasGrad(args, op.getBias(), 2);
  return success();
}

/// The data gradient of a transposed convolution is the convolution of the
/// output gradient with the same weight.
LogicalResult convTranspose2dRule(ConvTranspose2DOp op, const RuleArgs &args) {
  OpBuilder &b = args.emit.builder;
  Location loc = args.emit.loc;
  Value x = op.getInput(), w = op.getWeight();
  if (args.wants(0))
    args.grads[0] =
        Conv2DOp::create(b, loc, x.getType(), args.dy(), w,
                         /*bias=*/Value(), op.getStrides(), op.getPads(),
                         op.getDilations(), op.getGroups());
  if (args.wants(1))
    args.grads[1] = ConvTranspose2DBackwardFilterOp::create(
        b, loc, w.getType(), args.dy(), x, op.getStrides(), op.getPads(),
        op.getDilations(), op.getOutputPadding(), op.getGroups(), shapeOf(w));
  convBiasGrad(args, op.getBias(), 2);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// The input, scale and bias gradients of a batch or instance
/// normalization from its saved statistics, as far as they are wanted.
template <typename BackwardOp, typename NormOp>
LogicalResult normBackward(NormOp op, const RuleArgs &args) {
  if (!args.wants(0) && !args.wants(1) && !args.wants(2))
    return success();
  auto backward = BackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(),
      op.getScale().getType(), op.getBias().getType(), args.dy(), op.getInput(),
      op.getScale(), op.getSavedMean(), op.getSavedInvStd());
  for (unsigned i = 0; i < 3; ++i)
    if (args.wants(i))
      args.grads[i] = backward->getResult(i);
  return success();
}

LogicalResult batchNormRule(BatchNormOp op, const RuleArgs &args) {
  // The running and batch statistics are results too; a loss that reads
  // them would need their gradients, which PyTorch does not define either.
  if (llvm::any_of(args.resultGrads.drop_front(), [](Value g) { return g; }))
    return op.emitOpError(
        "has a gradient through its running or batch statistics, which "
        "autodiff does not support");
  if (args.wants(3) || args.wants(4))
    return op.emitOpError("running statistics that depend on a parameter "
                          "are not supported by autodiff");
  return normBackward<BatchNormBackwardOp>(op, args);
}

LogicalResult instanceNormRule(InstanceNormOp op, const RuleArgs &args) {
  if (llvm::any_of(args.resultGrads.drop_front(), [](Value g) { return g; }))
    return op.emitOpError("has a gradient through its saved statistics, "
                          "which autodiff does not support");
  return normBackward<InstanceNormBackwardOp>(op, args);
}

/// y = (x - mean) * k + bias with k = scale / sqrt(var + epsilon), per
/// channel: dx = dy * k, dscale = sum(dy * (x - mean)) / sqrt(var + eps),
/// dbias = sum(dy).
LogicalResult batchNormInferenceRule(BatchNormInferenceOp op,
                                     const RuleArgs &args) {
  if (args.wants(3) || args.wants(4))
    return op.emitOpError("the gradient with respect to given statistics "
                          "('mean', 'var') is not supported by autodiff");
  Value x = op.getInput();
  if (cast<RankedTensorType>(op.getScale().getType()).getElementType() !=
      cast<RankedTensorType>(x.getType()).getElementType())
    return op.emitOpError("autodiff needs per-channel operands of the "
                          "input's element type");
  GradientEmitter &emit = args.emit;
  ArrayRef<int64_t> xShape = shapeOf(x);
  int64_t channels = xShape[1];
  // Per-channel vectors as C x 1 x ... x 1, which broadcast against x.
  SmallVector<int64_t> channelShape(xShape.size() - 1, 1);
  channelShape[0] = channels;
  SmallVector<int64_t> otherAxes;
  for (int64_t axis = 0, e = xShape.size(); axis < e; ++axis)
    if (axis != 1)
      otherAxes.push_back(axis);

  Value var = op.getVar();
  Value std = emit.unary<SqrtOp>(emit.binary<AddOp>(
      var, emit.scalar(var, op.getEpsilon().convertToDouble())));
  if (args.wants(0)) {
    Value k = emit.binary<DivOp>(op.getScale(), std);
    args.grads[0] =
        emit.binary<MulOp>(args.dy(), emit.reshape(k, channelShape));
  }
  if (args.wants(1)) {
    Value centered =
        emit.binary<SubOp>(x, emit.reshape(op.getMean(), channelShape));
    Value sum = emit.reduceSum(emit.binary<MulOp>(args.dy(), centered),
                               otherAxes, /*keepdims=*/false);
    args.grads[1] = emit.binary<DivOp>(sum, std);
  }
  if (args.wants(2))
    args.grads[2] = emit.reduceSum(args.dy(), otherAxes, /*keepdims=*/false);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Activations whose backward op reads the forward output.
template <typename BackwardOp>
LogicalResult outputActivationRule(Operation *op, const RuleArgs &args) {
  args.grads[0] = BackwardOp::create(args.emit.builder, args.emit.loc,
                                     op->getOperand(0).getType(), args.dy(),
                                     op->getResult(0));
  return success();
}

LogicalResult leakyReluRule(LeakyReluOp op, const RuleArgs &args) {
  args.grads[0] = LeakyReluBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getInput(), op.getAlpha());
  return success();
}

LogicalResult clipRule(ClipOp op, const RuleArgs &args) {
  args.grads[0] = ClipBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getInput(), op.getMin(), op.getMax());
  return success();
}

/// Activations whose backward op reads the forward input and has the
/// forward op's attributes.
LogicalResult inputActivationRule(Operation *op, const RuleArgs &args) {
  OpBuilder &b = args.emit.builder;
  Location loc = args.emit.loc;
  Value x = op->getOperand(0), dy = args.dy();
  Type type = x.getType();
  args.grads[0] =
      TypeSwitch<Operation *, Value>(op)
          .Case([&](HardSigmoidOp hs) {
            return HardSigmoidBackwardOp::create(b, loc, type, dy, x,
                                                 hs.getAlpha(), hs.getBeta());
          })
          .Case([&](HardSwishOp) {
            return HardSwishBackwardOp::create(b, loc, type, dy, x);
          })
          .Case([&](EluOp elu) {
            return EluBackwardOp::create(b, loc, type, dy, x, elu.getAlpha());
          })
          .Case([&](SoftplusOp) {
            return SoftplusBackwardOp::create(b, loc, type, dy, x);
          })
          .Case([&](ErfOp) {
            return ErfBackwardOp::create(b, loc, type, dy, x);
          })
          .Default([](Operation *) { return Value(); });
  return success();
}

/// dx = x > 0 ? dy : slope * dy; dslope = dy * min(x, 0) summed back to the
/// slope's shape, with min(x, 0) = x - relu(x) (exact in float).
LogicalResult preluRule(PReluOp op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  Value x = op.getInput(), slope = op.getSlope(), dy = args.dy();
  if (args.wants(0))
    args.grads[0] = PReluBackwardOp::create(emit.builder, emit.loc,
                                            x.getType(), dy, x, slope);
  if (args.wants(1)) {
    Value negativePart =
        emit.binary<SubOp>(x, emit.unary<ReluOp>(x));
    args.grads[1] = emit.sumToShape(emit.binary<MulOp>(dy, negativePart),
                                    shapeOf(slope));
  }
  return success();
}

/// PyTorch's softmax and log_softmax backward, which read the output.
template <typename BackwardOp, typename ForwardOp>
LogicalResult softmaxRule(ForwardOp op, const RuleArgs &args) {
  args.grads[0] = BackwardOp::create(args.emit.builder, args.emit.loc,
                                     op.getInput().getType(), args.dy(),
                                     op.getOutput(), op.getAxis());
  return success();
}

/// neg, exp, log, sqrt, abs: PyTorch's formulas with elementwise ops.
LogicalResult mathRule(Operation *op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  Value x = op->getOperand(0), y = op->getResult(0), dy = args.dy();
  args.grads[0] = TypeSwitch<Operation *, Value>(op)
                      .Case([&](NegOp) { return emit.unary<NegOp>(dy); })
                      .Case([&](ExpOp) { return emit.binary<MulOp>(dy, y); })
                      .Case([&](LogOp) { return emit.binary<DivOp>(dy, x); })
                      .Case([&](SqrtOp) {
                        return emit.binary<DivOp>(
                            dy, emit.binary<MulOp>(y, emit.scalar(y, 2.0)));
                      })
                      .Case([&](AbsOp) {
                        return emit.binary<MulOp>(dy, emit.unary<SignOp>(x));
                      })
                      .Default([](Operation *) { return Value(); });
  return success();
}

/// add, sub, mul, div with NumPy broadcasting: each gradient is computed
/// at the output's shape, then summed back to its operand's shape.
LogicalResult binaryRule(Operation *op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  Value a = op->getOperand(0), b = op->getOperand(1), y = op->getResult(0);
  Value dy = args.dy();
  if (args.wants(0)) {
    Value full =
        TypeSwitch<Operation *, Value>(op)
            .Case<AddOp, SubOp>([&](Operation *) { return dy; })
            .Case([&](MulOp) { return emit.binary<MulOp>(dy, b); })
            .Default([&](Operation *) { return emit.binary<DivOp>(dy, b); });
    args.grads[0] = emit.sumToShape(full, shapeOf(a));
  }
  if (args.wants(1)) {
    // d(a / b)/db = -a / b^2 = -(y / b), as PyTorch's div backward.
    Value full = TypeSwitch<Operation *, Value>(op)
                     .Case<AddOp, SubOp>([&](Operation *) { return dy; })
                     .Case([&](MulOp) { return emit.binary<MulOp>(dy, a); })
                     .Default([&](Operation *) {
                       return emit.binary<MulOp>(dy, emit.binary<DivOp>(y, b));
                     });
    Value grad = emit.sumToShape(full, shapeOf(b));
    args.grads[1] = isa<SubOp, DivOp>(op) ? emit.unary<NegOp>(grad) : grad;
  }
  return success();
}

/// The mask holds 0 or 1 / (1 - ratio) per element; it does not depend on
/// the input, so a gradient reaching it is dropped.
LogicalResult dropoutRule(DropoutOp op, const RuleArgs &args) {
  if (args.dy())
    args.grads[0] = args.emit.binary<MulOp>(args.dy(), op.getMask());
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

LogicalResult maxPool2dRule(MaxPool2DOp op, const RuleArgs &args) {
  args.grads[0] = MaxPool2DBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getInput(), op.getKernel(), op.getStrides(), op.getPads(),
      op.getDilations(), op.getCeilMode());
  return success();
}

LogicalResult avgPool2dRule(AvgPool2DOp op, const RuleArgs &args) {
  args.grads[0] = AvgPool2DBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getKernel(), op.getStrides(), op.getPads(), op.getCeilMode(),
      op.getCountIncludePad(), shapeOf(op.getInput()));
  return success();
}

/// Every position receives dy / (H * W).
LogicalResult globalAvgPoolRule(GlobalAvgPoolOp op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  Value scaled = emit.binary<DivOp>(
      args.dy(),
      emit.scalar(args.dy(), static_cast<double>(shape[2] * shape[3])));
  args.grads[0] = emit.broadcast(scaled, shape);
  return success();
}

LogicalResult resizeRule(ResizeOp op, const RuleArgs &args) {
  args.grads[0] = ResizeBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getMode(), op.getCoordinateMode(), op.getNearestMode(),
      op.getSizesAttr(), op.getScales(), shapeOf(op.getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// Each input receives its slice of the output gradient along the axis.
LogicalResult concatRule(ConcatOp op, const RuleArgs &args) {
  ArrayRef<int64_t> outShape = shapeOf(op.getOutput());
  int64_t axis = op.getAxis();
  int64_t offset = 0;
  for (auto [index, input] : llvm::enumerate(op.getInputs())) {
    int64_t size = shapeOf(input)[axis];
    if (args.wants(index)) {
      SmallVector<int64_t> starts(outShape.size(), 0);
      SmallVector<int64_t> ends(outShape);
      SmallVector<int64_t> steps(outShape.size(), 1);
      starts[axis] = offset;
      ends[axis] = offset + size;
      args.grads[index] =
          SliceOp::create(args.emit.builder, args.emit.loc, input.getType(),
                          args.dy(), starts, ends, steps);
    }
    offset += size;
  }
  return success();
}

LogicalResult sliceRule(SliceOp op, const RuleArgs &args) {
  args.grads[0] = SliceBackwardOp::create(
      args.emit.builder, args.emit.loc, op.getInput().getType(), args.dy(),
      op.getStarts(), op.getEnds(), op.getSteps(), shapeOf(op.getInput()));
  return success();
}

/// A constant pad's gradient is the slice of the unpadded region; reflect
/// and edge pads add the gradient of the copied borders, which has no op yet.
LogicalResult padRule(PadOp op, const RuleArgs &args) {
  if (op.getMode() != PadMode::constant)
    return op.emitOpError("the gradient of a '")
           << stringifyPadMode(op.getMode())
           << "' pad is not supported yet; only constant pads are "
              "differentiable";
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  ArrayRef<int64_t> begins = op.getPads().take_front(shape.size());
  SmallVector<int64_t> ends;
  for (auto [begin, size] : llvm::zip_equal(begins, shape))
    ends.push_back(begin + size);
  SmallVector<int64_t> steps(shape.size(), 1);
  args.grads[0] =
      SliceOp::create(args.emit.builder, args.emit.loc, op.getInput().getType(),
                      args.dy(), begins, ends, steps);
  return success();
}

LogicalResult reshapeRule(ReshapeOp op, const RuleArgs &args) {
  args.grads[0] = args.emit.reshape(args.dy(), shapeOf(op.getInput()));
  return success();
}

LogicalResult transposeRule(TransposeOp op, const RuleArgs &args) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, axis] : llvm::enumerate(perm))
    inverse[axis] = i;
  args.grads[0] = args.emit.transpose(args.dy(), inverse);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// da = dy * b^T and db = a^T * dy, summed over the batch axes that the
/// operand was broadcast along.
LogicalResult matmulRule(MatMulOp op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  Value a = op.getLhs(), b = op.getRhs(), dy = args.dy();
  ArrayRef<int64_t> batch = shapeOf(dy).drop_back(2);
  if (args.wants(0))
    args.grads[0] = emit.sumToShape(
        emit.matmul(dy, emit.transposeMatrix(b), batch), shapeOf(a));
  if (args.wants(1))
    args.grads[1] = emit.sumToShape(
        emit.matmul(emit.transposeMatrix(a), dy, batch), shapeOf(b));
  return success();
}

/// y = alpha * op(a) * op(b) + beta * c, with each gradient a gemm that
/// reads the operands in place (the transposes are flags).
LogicalResult gemmRule(GemmOp op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  OpBuilder &builder = emit.builder;
  Value a = op.getA(), b = op.getB(), dy = args.dy();
  bool transA = op.getTransA(), transB = op.getTransB();
  llvm::APFloat alpha = op.getAlpha(), one(1.0);
  auto gemm = [&](Value like, Value lhs, Value rhs, bool tl, bool tr) {
    return GemmOp::create(builder, emit.loc, like.getType(), lhs, rhs,
                          /*c=*/Value(), alpha, one, tl, tr)
        .getResult();
  };
  if (args.wants(0))
    args.grads[0] =
        transA ? gemm(a, b, dy, transB, true) : gemm(a, dy, b, false, !transB);
  if (args.wants(1))
    args.grads[1] =
        transB ? gemm(b, dy, a, true, transA) : gemm(b, a, dy, !transA, false);
  if (Value c = op.getC(); c && args.wants(2)) {
    double beta = op.getBeta().convertToDouble();
    Value scaled =
        beta == 1.0 ? dy : emit.binary<MulOp>(dy, emit.scalar(dy, beta));
    args.grads[2] = emit.sumToShape(scaled, shapeOf(c));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The output gradient broadcast back over the reduced axes (and divided by
/// their element count for a mean).
template <typename ReduceOp>
LogicalResult reduceRule(ReduceOp op, const RuleArgs &args) {
  GradientEmitter &emit = args.emit;
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  SmallVector<int64_t> axes(op.getAxes());
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
  Value grad = emit.reshape(args.dy(), kept);
  if constexpr (std::is_same_v<ReduceOp, ReduceMeanOp>)
    grad =
        emit.binary<DivOp>(grad, emit.scalar(grad, static_cast<double>(count)));
  args.grads[0] = emit.broadcast(grad, shape);
  return success();
}

} // namespace

Value memopt::tg::detail::emitScalarConstant(OpBuilder &builder, Location loc,
                                             Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  auto attr =
      DenseElementsAttr::get(type, builder.getFloatAttr(elementType, value));
  return ConstantOp::create(builder, loc, type, attr);
}

LogicalResult memopt::tg::detail::emitOperandGradients(
    OpBuilder &builder, Operation *op, ArrayRef<Value> resultGrads,
    ArrayRef<bool> wanted, MutableArrayRef<Value> operandGrads) {
  GradientEmitter emit(builder, op->getLoc());
  RuleArgs args{op, resultGrads, wanted, operandGrads, emit};
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](Conv2DOp conv) { return conv2dRule(conv, args); })
      .Case([&](ConvTranspose2DOp conv) {
        return convTranspose2dRule(conv, args);
      })
      .Case([&](BatchNormOp bn) { return batchNormRule(bn, args); })
      .Case([&](BatchNormInferenceOp bn) {
        return batchNormInferenceRule(bn, args);
      })
      .Case([&](ReluOp) {
        return outputActivationRule<ReluBackwardOp>(op, args);
      })
      .Case([&](SigmoidOp) {
        return outputActivationRule<SigmoidBackwardOp>(op, args);
      })
      .Case([&](TanhOp) {
        return outputActivationRule<TanhBackwardOp>(op, args);
      })
      .Case([&](LeakyReluOp relu) { return leakyReluRule(relu, args); })
      .Case([&](ClipOp clip) { return clipRule(clip, args); })
      .Case<HardSigmoidOp, HardSwishOp, EluOp, SoftplusOp, ErfOp>(
          [&](Operation *) { return inputActivationRule(op, args); })
      .Case([&](PReluOp prelu) { return preluRule(prelu, args); })
      .Case([&](SoftmaxOp softmax) {
        return softmaxRule<SoftmaxBackwardOp>(softmax, args);
      })
      .Case([&](LogSoftmaxOp softmax) {
        return softmaxRule<LogSoftmaxBackwardOp>(softmax, args);
      })
      .Case([&](InstanceNormOp norm) { return instanceNormRule(norm, args); })
      .Case<NegOp, ExpOp, LogOp, SqrtOp, AbsOp>(
          [&](Operation *) { return mathRule(op, args); })
      .Case<AddOp, SubOp, MulOp, DivOp>(
          [&](Operation *) { return binaryRule(op, args); })
      .Case([&](DropoutOp dropout) { return dropoutRule(dropout, args); })
      .Case([&](MaxPool2DOp pool) { return maxPool2dRule(pool, args); })
      .Case([&](AvgPool2DOp pool) { return avgPool2dRule(pool, args); })
      .Case([&](GlobalAvgPoolOp pool) { return globalAvgPoolRule(pool, args); })
      .Case([&](ResizeOp resize) { return resizeRule(resize, args); })
      .Case([&](ConcatOp concat) { return concatRule(concat, args); })
      .Case([&](SliceOp slice) { return sliceRule(slice, args); })
      .Case([&](PadOp pad) { return padRule(pad, args); })
      .Case([&](ReshapeOp reshape) { return reshapeRule(reshape, args); })
      .Case(
          [&](TransposeOp transpose) { return transposeRule(transpose, args); })
      .Case([&](MatMulOp matmul) { return matmulRule(matmul, args); })
      .Case([&](GemmOp gemm) { return gemmRule(gemm, args); })
      .Case([&](ReduceSumOp reduce) { return reduceRule(reduce, args); })
      .Case([&](ReduceMeanOp reduce) { return reduceRule(reduce, args); })
      .Default([&](Operation *) {
        return op->emitOpError("has no gradient rule; autodiff cannot "
                               "differentiate through it");
      });
}
