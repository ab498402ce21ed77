//===- ConvertOps.cpp - ONNX operators to tg ops --------------------------===//
//
// One converter per ONNX operator family. Each reads the ONNX attributes,
// resolves what must be static (pads, scales, axes) and builds tg ops whose
// own shape inference checks the rest.
//
//===----------------------------------------------------------------------===//

#include "ConstantFolding.h"
#include "GraphImporter.h"
#include "OnnxAttributes.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace memopt;
using namespace memopt::onnx_import;

namespace {
std::string listString(ArrayRef<int64_t> values) {
  return llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      ", ");
}

/// Pads [begin..., end...] for ONNX auto_pad SAME_UPPER / SAME_LOWER.
SmallVector<int64_t> samePads(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations, bool upper) {
  size_t n = in.size();
  SmallVector<int64_t> pads(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t span = (kernel[i] - 1) * dilations[i] + 1;
    int64_t total = std::max<int64_t>((out - 1) * strides[i] + span - in[i], 0);
    pads[i] = upper ? total / 2 : total - total / 2;
    pads[i + n] = total - pads[i];
  }
  return pads;
}
} // namespace

/// Reads strides, dilations and pads of a window op over the spatial axes
/// `inSpatial`, resolving auto_pad. AttributeChecks has checked that the
/// lists agree with one another in length; they must also agree with the
/// input's spatial axes.
static LogicalResult
windowAttrs(const onnx::NodeProto &node, ArrayRef<int64_t> inSpatial,
            ArrayRef<int64_t> kernel, SmallVector<int64_t> &strides,
            SmallVector<int64_t> &dilations, SmallVector<int64_t> &pads,
            std::string &error) {
  size_t axes = inSpatial.size();
  strides = attrInts(node, "strides", SmallVector<int64_t>(axes, 1));
  dilations = attrInts(node, "dilations", SmallVector<int64_t>(axes, 1));
  pads = attrInts(node, "pads", SmallVector<int64_t>(2 * axes, 0));
  if (strides.size() != axes || dilations.size() != axes ||
      pads.size() != 2 * axes || kernel.size() != axes) {
    error = "the window attributes (strides, dilations, pads, kernel_shape) "
            "do not match the input's " +
            std::to_string(axes) + " spatial axes";
    return failure();
  }
  std::string autoPad = attrString(node, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    pads = samePads(inSpatial, kernel, strides, dilations,
                    autoPad == "SAME_UPPER");
  else if (autoPad == "VALID")
    pads.assign(2 * axes, 0);
  else if (autoPad != "NOTSET") {
    error = "unsupported auto_pad '" + autoPad + "'";
    return failure();
  }
  return success();
}

/// A bias known at import time whose every value is zero adds nothing, in
/// whatever shape it comes: torch.export writes a convolution without bias
/// as one (onnxscript 0.7's conv3d: Expand(0, [C, 2]), not a valid Conv
/// bias), which memopt drops.
static bool isZeroConstant(const HostTensor *tensor) {
  if (!tensor)
    return false;
  for (int64_t i = 0, n = tensor->numElements(); i < n; ++i)
    if (tensor->getDouble(i) != 0)
      return false;
  return true;
}

FailureOr<SmallVector<Value>> GraphImporter::convOperands() {
  FailureOr<Value> x = input(0), w = input(1);
  if (failed(x) || failed(w))
    return failure();
  int64_t xRank = cast<RankedTensorType>(x->getType()).getRank();
  int64_t wRank = cast<RankedTensorType>(w->getType()).getRank();
  if (xRank < 3 || xRank > 5 || wRank != xRank)
    return nodeError() << node->op_type()
                       << " takes 1-D, 2-D or 3-D inputs (rank 3, 4 or 5) "
                          "and a weight of the input's rank, got input rank "
                       << xRank << " and weight rank " << wRank;
  // kernel_shape is redundant with the weight; a model where they differ is
  // invalid, whichever of the two its author meant.
  ArrayRef<int64_t> kernel =
      cast<RankedTensorType>(w->getType()).getShape().drop_front(2);
  SmallVector<int64_t> declared =
      attrInts(*node, "kernel_shape", SmallVector<int64_t>(kernel));
  if (ArrayRef<int64_t>(declared) != kernel)
    return nodeError() << "kernel_shape [" << listString(declared)
                       << "] differs from the weight's spatial size ["
                       << listString(kernel) << "]";
  SmallVector<Value> operands = {*x, *w};
  if (hasInput(2) && isZeroConstant(constantInput(2, /*allowTrainable=*/false)))
    return operands;
  if (hasInput(2)) {
    FailureOr<Value> b = input(2);
    if (failed(b))
      return failure();
    operands.push_back(*b);
  }
  return operands;
}

LogicalResult GraphImporter::convertConv() {
  FailureOr<SmallVector<Value>> operands = convOperands();
  if (failed(operands))
    return failure();
  auto xType = cast<RankedTensorType>((*operands)[0].getType());
  auto wType = cast<RankedTensorType>((*operands)[1].getType());
  SmallVector<int64_t> strides, dilations, pads;
  std::string error;
  if (failed(windowAttrs(*node, xType.getShape().drop_front(2),
                         wType.getShape().drop_front(2), strides, dilations,
                         pads, error)))
    return nodeError() << error;
  FailureOr<tg::ConvOp> op = build<tg::ConvOp>(
      *operands,
      {builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr(strides)),
       builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(pads)),
       builder.getNamedAttr("dilations", builder.getDenseI64ArrayAttr(dilations)),
       builder.getNamedAttr("groups", builder.getI64IntegerAttr(
                                          attrInt(*node, "group", 1)))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertConvTranspose() {
  FailureOr<SmallVector<Value>> operands = convOperands();
  if (failed(operands))
    return failure();
  auto xType = cast<RankedTensorType>((*operands)[0].getType());
  auto wType = cast<RankedTensorType>((*operands)[1].getType());
  size_t axes = xType.getRank() - 2;
  SmallVector<int64_t> strides =
      attrInts(*node, "strides", SmallVector<int64_t>(axes, 1));
  SmallVector<int64_t> dilations =
      attrInts(*node, "dilations", SmallVector<int64_t>(axes, 1));
  SmallVector<int64_t> pads =
      attrInts(*node, "pads", SmallVector<int64_t>(2 * axes, 0));
  SmallVector<int64_t> outputPadding =
      attrInts(*node, "output_padding", SmallVector<int64_t>(axes, 0));
  SmallVector<int64_t> outputShape = attrInts(*node, "output_shape", {});
  std::string autoPad = attrString(*node, "auto_pad", "NOTSET");
  if (strides.size() != axes || dilations.size() != axes ||
      pads.size() != 2 * axes || outputPadding.size() != axes)
    return nodeError() << "the window attributes (strides, dilations, pads, "
                          "output_padding) do not match the input's "
                       << axes << " spatial axes";
  if (!outputShape.empty() && outputShape.size() != axes &&
      outputShape.size() != axes + 2)
    return nodeError() << "output_shape has " << outputShape.size()
                       << " values, expected " << axes << " (or "
                       << axes + 2 << " with N and C)";
  if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
      autoPad == "SAME_LOWER") {
    // ONNX: total padding follows from the requested output size.
    if (outputShape.empty())
      for (size_t i = 0; i < axes; ++i)
        outputShape.push_back(xType.getDimSize(2 + i) * strides[i]);
    outputShape = SmallVector<int64_t>(
        ArrayRef<int64_t>(outputShape).take_back(axes));
    for (size_t i = 0; i < axes; ++i) {
      int64_t total = strides[i] * (xType.getDimSize(2 + i) - 1) +
                      outputPadding[i] +
                      (wType.getDimSize(2 + i) - 1) * dilations[i] + 1 -
                      outputShape[i];
      if (total < 0)
        return nodeError() << "output_shape " << outputShape[i]
                           << " is larger than the transposed convolution "
                              "can produce";
      bool lower = autoPad == "SAME_LOWER";
      pads[i] = lower ? total - total / 2 : total / 2;
      pads[i + axes] = total - pads[i];
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * axes, 0);
  }
  FailureOr<tg::ConvTransposeOp> op = build<tg::ConvTransposeOp>(
      *operands,
      {builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr(strides)),
       builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(pads)),
       builder.getNamedAttr("dilations", builder.getDenseI64ArrayAttr(dilations)),
       builder.getNamedAttr("output_padding",
                            builder.getDenseI64ArrayAttr(outputPadding)),
       builder.getNamedAttr("groups", builder.getI64IntegerAttr(
                                          attrInt(*node, "group", 1)))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertBatchNorm() {
  FailureOr<Value> x = input(0), scale = input(1), bias = input(2);
  FailureOr<Value> mean = input(3, Role::State), var = input(4, Role::State);
  if (failed(x) || failed(scale) || failed(bias) || failed(mean) || failed(var))
    return failure();
  double epsilon = attrFloat(*node, "epsilon", 1e-5f);
  // What model.train() does, whichever form the exporter wrote: PyTorch 2's
  // default exporter writes the inference form even in training mode.
  bool exportedTraining = attrInt(*node, "training_mode", 0) != 0;
  bool training = !options.freezeBatchNorm;
  summary.batchNorms.push_back(
      {cast<NameLoc>(loc).getName().str(),
       exportedTraining ? "training" : "inference",
       training ? "batch statistics" : "frozen"});
  if (!training) {
    if (outputUsed(1) || outputUsed(2))
      return nodeError() << "a frozen BatchNormalization (--freeze-batchnorm) "
                            "has no running statistics outputs to read; "
                            "train it (drop --freeze-batchnorm)";
    FailureOr<tg::BatchNormInferenceOp> op = build<tg::BatchNormInferenceOp>(
        {*x, *scale, *bias, *mean, *var},
        {builder.getNamedAttr("epsilon", builder.getF64FloatAttr(epsilon))});
    return failed(op) ? failure() : define(0, *op);
  }
  // ONNX weights the old running value by `momentum`; PyTorch (and tg)
  // weight the batch statistic by it.
  double momentum = shortestDecimal(
      static_cast<float>(1.0 - attrFloat(*node, "momentum", 0.9f)));
  FailureOr<tg::BatchNormOp> op = build<tg::BatchNormOp>(
      {*x, *scale, *bias, *mean, *var},
      {builder.getNamedAttr("epsilon", builder.getF64FloatAttr(epsilon)),
       builder.getNamedAttr("momentum", builder.getF64FloatAttr(momentum))},
      /*numResults=*/5);
  if (failed(op))
    return failure();
  for (int i = 0; i < 3; ++i)
    if (failed(define(i, op->getResult(i))))
      return failure();
  return success();
}

NamedAttribute GraphImporter::floatAttr(StringRef name, float defaultValue) {
  return builder.getNamedAttr(
      name, builder.getF64FloatAttr(attrFloat(*node, name.str(), defaultValue)));
}

LogicalResult GraphImporter::convertUnary() {
  const std::string &op = node->op_type();
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  if (op == "Identity")
    return define(0, *x);
  if (!isa<FloatType>(getElementTypeOrSelf(x->getType())))
    return nodeError() << "operates on a non-float tensor";
  FailureOr<Operation *> result = failure();
  auto make = [&](auto tag, ArrayRef<NamedAttribute> attrs = {}) {
    using OpT = decltype(tag);
    FailureOr<OpT> built = build<OpT>({*x}, attrs);
    result = failed(built) ? FailureOr<Operation *>(failure())
                           : FailureOr<Operation *>(built->getOperation());
  };
  if (op == "Relu")
    make(tg::ReluOp());
  else if (op == "Sigmoid")
    make(tg::SigmoidOp());
  else if (op == "Tanh")
    make(tg::TanhOp());
  else if (op == "Neg")
    make(tg::NegOp());
  else if (op == "Exp")
    make(tg::ExpOp());
  else if (op == "Log")
    make(tg::LogOp());
  else if (op == "Sqrt")
    make(tg::SqrtOp());
  else if (op == "Abs")
    make(tg::AbsOp());
  else if (op == "HardSigmoid")
    make(tg::HardSigmoidOp(), {floatAttr("alpha", 0.2f), floatAttr("beta", 0.5f)});
  else if (op == "HardSwish")
    make(tg::HardSwishOp());
  else if (op == "Elu")
    make(tg::EluOp(), {floatAttr("alpha", 1.0f)});
  else if (op == "Softplus")
    make(tg::SoftplusOp());
  else if (op == "Erf")
    make(tg::ErfOp());
  else if (op == "Floor")
    make(tg::FloorOp());
  else // LeakyRelu
    make(tg::LeakyReluOp(), {floatAttr("alpha", 0.01f)});
  return failed(result) ? failure() : define(0, (*result)->getResult(0));
}

LogicalResult GraphImporter::convertPRelu() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> slope = inputAs(1, getElementTypeOrSelf(x->getType()));
  if (failed(slope))
    return failure();
  FailureOr<tg::PReluOp> op = build<tg::PReluOp>({*x, *slope}, {});
  return failed(op) ? failure() : define(0, *op);
}

FailureOr<int64_t> GraphImporter::axisAttr(int64_t rank,
                                           int64_t defaultValue) {
  int64_t axis = attrInt(*node, "axis", defaultValue);
  if (axis < -rank || axis >= rank)
    return nodeError() << "axis " << axis << " is out of range for a tensor of "
                       << "rank " << rank << "; use an axis in [" << -rank
                       << ", " << rank - 1 << "]";
  return axis < 0 ? axis + rank : axis;
}

LogicalResult GraphImporter::convertSoftmax() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(getElementTypeOrSelf(x->getType())))
    return nodeError() << "operates on a non-float tensor";
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> axis = axisAttr(rank, -1);
  if (failed(axis))
    return failure();
  NamedAttribute axisNamed =
      builder.getNamedAttr("axis", builder.getI64IntegerAttr(*axis));
  if (node->op_type() == "Softmax") {
    FailureOr<tg::SoftmaxOp> op = build<tg::SoftmaxOp>({*x}, {axisNamed});
    return failed(op) ? failure() : define(0, *op);
  }
  FailureOr<tg::LogSoftmaxOp> op = build<tg::LogSoftmaxOp>({*x}, {axisNamed});
  return failed(op) ? failure() : define(0, *op);
}

/// Scale and bias are parameters (InstanceNorm2d(affine=True)) or
/// constants (PyTorch exports ones and zeros without affine, and GroupNorm's
/// inner normalization).
LogicalResult GraphImporter::convertInstanceNorm() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  Type elementType = getElementTypeOrSelf(x->getType());
  FailureOr<Value> scale = inputAs(1, elementType),
                   bias = inputAs(2, elementType);
  if (failed(scale) || failed(bias))
    return failure();
  FailureOr<tg::InstanceNormOp> op = build<tg::InstanceNormOp>(
      {*x, *scale, *bias}, {floatAttr("epsilon", 1e-5f)}, /*numResults=*/3);
  return failed(op) ? failure() : define(0, op->getOutput());
}

/// LayerNormalization normalizes every row of the axes from `axis` on. It
/// imports as the ops PyTorch exports GroupNorm to: the instance norm of a
/// 1 x M x K view (M rows, K elements per row) with unit scale and zero bias,
/// a reshape back, then the elementwise scale and bias broadcast over the
/// rows; so LayerNorm has InstanceNorm's gradient, its f32 statistics under
/// mixed precision, its kernels on both backends and its cost entries.
LogicalResult GraphImporter::convertLayerNorm() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  Type elementType = type.getElementType();
  if (!isa<FloatType>(elementType))
    return nodeError() << "operates on a non-float tensor";
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = axisAttr(rank, -1);
  if (failed(axis))
    return failure();
  if (outputUsed(1) || outputUsed(2))
    return nodeError() << "its Mean or InvStdDev output is read; memopt keeps "
                          "the statistics for the gradient only: export the "
                          "model without reading them (nn.LayerNorm does not)";
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = 1, row = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? rows : row) *= shape[d];
  auto reshape = [&](Value value, ArrayRef<int64_t> to) {
    return build<tg::ReshapeOp>(
        {value},
        {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(to))});
  };
  FailureOr<tg::ReshapeOp> view = reshape(*x, {1, rows, row});
  if (failed(view))
    return failure();
  Value ones = materialize(
      HostTensor::makeFloats({rows}, std::vector<double>(rows, 1.0)),
      elementType);
  Value zeros = materialize(
      HostTensor::makeFloats({rows}, std::vector<double>(rows, 0.0)),
      elementType);
  FailureOr<tg::InstanceNormOp> norm = build<tg::InstanceNormOp>(
      {*view, ones, zeros}, {floatAttr("epsilon", 1e-5f)}, /*numResults=*/3);
  if (failed(norm))
    return failure();
  FailureOr<tg::ReshapeOp> back = reshape(norm->getOutput(), shape);
  if (failed(back))
    return failure();
  FailureOr<Value> scale = inputAs(1, elementType);
  if (failed(scale))
    return failure();
  FailureOr<tg::MulOp> scaled = build<tg::MulOp>({*back, *scale}, {});
  if (failed(scaled))
    return failure();
  if (!hasInput(2))
    return define(0, *scaled);
  FailureOr<Value> bias = inputAs(2, elementType);
  if (failed(bias))
    return failure();
  FailureOr<tg::AddOp> shifted = build<tg::AddOp>({*scaled, *bias}, {});
  return failed(shifted) ? failure() : define(0, *shifted);
}

LogicalResult GraphImporter::convertClip() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  for (int i : {1, 2}) {
    if (!hasInput(i))
      continue;
    FailureOr<double> bound = requireScalar(i, i == 1 ? "min" : "max");
    if (failed(bound))
      return failure();
    ((i == 1) ? lo : hi) = *bound;
  }
  FailureOr<tg::ClipOp> op = build<tg::ClipOp>(
      {*x}, {builder.getNamedAttr("min", builder.getF64FloatAttr(lo)),
             builder.getNamedAttr("max", builder.getF64FloatAttr(hi))});
  return failed(op) ? failure() : define(0, *op);
}

FailureOr<std::pair<Value, Value>> GraphImporter::binaryOperands() {
  // One operand may be a constant: it takes the other operand's element type.
  int runtimeIndex = constantInput(0, false) ? 1 : 0;
  FailureOr<Value> runtime = input(runtimeIndex);
  if (failed(runtime))
    return failure();
  Type elementType = getElementTypeOrSelf(runtime->getType());
  FailureOr<Value> other = inputAs(1 - runtimeIndex, elementType);
  if (failed(other))
    return failure();
  if (runtimeIndex == 0)
    return std::make_pair(*runtime, *other);
  return std::make_pair(*other, *runtime);
}

LogicalResult GraphImporter::convertBinary() {
  FailureOr<std::pair<Value, Value>> operands = binaryOperands();
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  const std::string &op = node->op_type();
  FailureOr<Operation *> result = failure();
  auto make = [&](auto tag) {
    using OpT = decltype(tag);
    FailureOr<OpT> built = build<OpT>({lhs, rhs}, {});
    result = failed(built) ? FailureOr<Operation *>(failure())
                           : FailureOr<Operation *>(built->getOperation());
  };
  if (op == "Add")
    make(tg::AddOp());
  else if (op == "Sub")
    make(tg::SubOp());
  else if (op == "Mul")
    make(tg::MulOp());
  else
    make(tg::DivOp());
  return failed(result) ? failure() : define(0, (*result)->getResult(0));
}

LogicalResult GraphImporter::checkBooleanUses() {
  // tg has no boolean tensors: a comparison becomes a 0/1 float tensor,
  // which is what a Cast to float of the boolean would compute, and what
  // tg.select takes as its condition.
  const std::string &result = node->output(0);
  for (const onnx::NodeProto &user : model.graph().node()) {
    for (auto [index, name] : llvm::enumerate(user.input())) {
      if (name != result)
        continue;
      const std::string &op = user.op_type();
      bool castToFloat =
          op == "Cast" && elementTypeOf(context, attrInt(user, "to", 0));
      if (castToFloat || op == "Not" || (op == "Where" && index == 0))
        continue;
      return nodeError() << "its boolean result '" << result << "' feeds "
                         << op << " node '" << user.name()
                         << "'; memopt imports a comparison of run-time "
                            "tensors only where every use casts it to float "
                            "(a 0/1 mask, as drop-path's Less + Cast), "
                            "negates it (Not) or is the condition of a Where";
    }
  }
  if (llvm::any_of(model.graph().output(), [&](const onnx::ValueInfoProto &o) {
        return o.name() == result;
      }))
    return nodeError() << "its boolean result '" << result
                       << "' is a graph output; memopt imports a comparison "
                          "of run-time tensors only where every use casts it "
                          "to float, negates it or is the condition of a Where";
  return success();
}

FailureOr<Value> GraphImporter::buildCompare(Value lhs, Value rhs,
                                             tg::ComparisonPredicate predicate) {
  FailureOr<tg::CompareOp> compare = build<tg::CompareOp>(
      {lhs, rhs}, {builder.getNamedAttr("predicate",
                                        tg::ComparisonPredicateAttr::get(
                                            context, predicate))});
  return failed(compare) ? FailureOr<Value>(failure())
                         : FailureOr<Value>(compare->getResult());
}

LogicalResult GraphImporter::convertCompare() {
  if (failed(checkBooleanUses()))
    return failure();
  FailureOr<std::pair<Value, Value>> operands = binaryOperands();
  if (failed(operands))
    return failure();
  const std::string &op = node->op_type();
  tg::ComparisonPredicate predicate =
      op == "Less"             ? tg::ComparisonPredicate::lt
      : op == "LessOrEqual"    ? tg::ComparisonPredicate::le
      : op == "Greater"        ? tg::ComparisonPredicate::gt
      : op == "GreaterOrEqual" ? tg::ComparisonPredicate::ge
                               : tg::ComparisonPredicate::eq;
  FailureOr<Value> compare =
      buildCompare(operands->first, operands->second, predicate);
  return failed(compare) ? failure() : define(0, *compare);
}

LogicalResult GraphImporter::convertNot() {
  // The 0/1 mask of a comparison negated: 1 where it is 0.
  if (failed(checkBooleanUses()))
    return failure();
  FailureOr<Value> mask = requireCondition(0);
  if (failed(mask))
    return failure();
  Value zero = tg::ConstantOp::createScalar(
      builder, loc, getElementTypeOrSelf(mask->getType()), 0.0);
  FailureOr<Value> negated =
      buildCompare(*mask, zero, tg::ComparisonPredicate::eq);
  return failed(negated) ? failure() : define(0, *negated);
}

FailureOr<Value> GraphImporter::requireCondition(int i) {
  FailureOr<Value> condition = input(i);
  if (failed(condition))
    return failure();
  if (!condition->getDefiningOp<tg::CompareOp>())
    return nodeError() << "its condition '" << node->input(i)
                       << "' is neither known at import time nor a "
                          "comparison (Less, LessOrEqual, Greater, "
                          "GreaterOrEqual, Equal or their Not) of run-time "
                          "tensors";
  return condition;
}

LogicalResult GraphImporter::convertWhere() {
  // The branches' element type: a run-time branch's, else the constant's.
  Type elementType;
  for (int i : {1, 2})
    if (!constantInput(i, /*allowTrainable=*/false)) {
      FailureOr<Value> branch = input(i);
      if (failed(branch))
        return failure();
      elementType = getElementTypeOrSelf(branch->getType());
      break;
    }
  if (!elementType) {
    const HostTensor *onTrue = constantInput(1, /*allowTrainable=*/false);
    elementType = elementTypeOf(context, onTrue->dtype);
    if (!elementType)
      return nodeError() << "its branches are " << dtypeName(onTrue->dtype)
                         << " constants; memopt selects float32, float16 "
                            "or bfloat16 values";
  }
  // A condition known at import time becomes a constant 0/1 mask.
  FailureOr<Value> condition =
      constantInput(0, /*allowTrainable=*/true) ? inputAs(0, elementType)
                                                 : requireCondition(0);
  FailureOr<Value> onTrue = inputAs(1, elementType);
  FailureOr<Value> onFalse = inputAs(2, elementType);
  if (failed(condition) || failed(onTrue) || failed(onFalse))
    return failure();
  FailureOr<tg::SelectOp> select =
      build<tg::SelectOp>({*condition, *onTrue, *onFalse}, {});
  return failed(select) ? failure() : define(0, *select);
}

LogicalResult GraphImporter::convertPow() {
  FailureOr<Value> x = input(0);
  FailureOr<double> exponent = requireScalar(1, "exponent");
  if (failed(x) || failed(exponent))
    return failure();
  double e = *exponent;
  if (e == 1.0)
    return define(0, *x);
  if (e == 2.0) {
    FailureOr<tg::MulOp> op = build<tg::MulOp>({*x, *x}, {});
    return failed(op) ? failure() : define(0, *op);
  }
  if (e == 0.5) {
    FailureOr<tg::SqrtOp> op = build<tg::SqrtOp>({*x}, {});
    return failed(op) ? failure() : define(0, *op);
  }
  return nodeError() << "exponent " << e
                     << " is not supported (supported: 0.5, 1, 2)";
}

LogicalResult GraphImporter::convertPool() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  if (xType.getRank() < 3 || xType.getRank() > 5)
    return nodeError() << node->op_type()
                       << " takes 1-D, 2-D or 3-D inputs (rank 3, 4 or 5), "
                          "got rank "
                       << xType.getRank();
  if (outputUsed(1))
    return nodeError() << "the Indices output of MaxPool is not supported";
  SmallVector<int64_t> kernel = attrInts(*node, "kernel_shape", {});
  if (kernel.size() != static_cast<size_t>(xType.getRank() - 2))
    return nodeError() << "kernel_shape must have " << xType.getRank() - 2
                       << " values, one per spatial axis of the input";
  SmallVector<int64_t> strides, dilations, pads;
  std::string error;
  if (failed(windowAttrs(*node, xType.getShape().drop_front(2), kernel,
                         strides, dilations, pads, error)))
    return nodeError() << error;
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr("kernel", builder.getDenseI64ArrayAttr(kernel)),
      builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr(strides)),
      builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(pads)),
      builder.getNamedAttr("ceil_mode", builder.getBoolAttr(
                                            attrInt(*node, "ceil_mode", 0)))};
  if (node->op_type() == "MaxPool") {
    attrs.push_back(builder.getNamedAttr(
        "dilations", builder.getDenseI64ArrayAttr(dilations)));
    FailureOr<tg::MaxPoolOp> op = build<tg::MaxPoolOp>({*x}, attrs);
    return failed(op) ? failure() : define(0, *op);
  }
  if (llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return nodeError() << "dilated average pooling is not supported";
  attrs.push_back(builder.getNamedAttr(
      "count_include_pad",
      builder.getBoolAttr(attrInt(*node, "count_include_pad", 0))));
  FailureOr<tg::AvgPoolOp> op = build<tg::AvgPoolOp>({*x}, attrs);
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertGlobalAveragePool() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  FailureOr<tg::GlobalAvgPoolOp> op = build<tg::GlobalAvgPoolOp>({*x}, {});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertResize() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  int64_t rank = xType.getRank();
  if (rank < 3 || rank > 5)
    return nodeError() << "Resize takes 1-D, 2-D or 3-D inputs (rank 3, 4 "
                          "or 5), got rank "
                       << rank;
  std::string mode = attrString(*node, "mode", "nearest");
  std::optional<tg::ResizeMode> resizeMode =
      mode == "nearest" ? std::optional(tg::ResizeMode::nearest)
      : mode == "linear" ? std::optional(tg::ResizeMode::bilinear)
                         : std::nullopt;
  if (!resizeMode)
    return nodeError() << "Resize mode '" << mode
                       << "' is not supported; supported: nearest, linear";
  std::string coord =
      attrString(*node, "coordinate_transformation_mode", "half_pixel");
  std::optional<tg::CoordinateMode> coordMode =
      tg::symbolizeCoordinateMode(coord);
  if (!coordMode)
    return nodeError() << "coordinate_transformation_mode '" << coord
                       << "' is not supported; supported: half_pixel, "
                          "pytorch_half_pixel, align_corners, asymmetric";
  std::string nearest = attrString(*node, "nearest_mode", "round_prefer_floor");
  std::optional<tg::NearestMode> nearestMode = tg::symbolizeNearestMode(nearest);
  if (!nearestMode)
    return nodeError() << "nearest_mode '" << nearest << "' is not supported";
  if (attrInt(*node, "exclude_outside", 0) != 0)
    return nodeError() << "exclude_outside=1 is not supported";

  // Inputs: X, roi, scales, sizes; an empty tensor counts as absent.
  const HostTensor *scales = nullptr, *sizes = nullptr;
  for (int i : {2, 3}) {
    if (!hasInput(i))
      continue;
    FailureOr<const HostTensor *> t =
        requireConstant(i, i == 2 ? "scales" : "sizes");
    if (failed(t))
      return failure();
    if ((*t)->numElements() > 0)
      (i == 2 ? scales : sizes) = *t;
  }
  if (!scales && !sizes)
    return nodeError() << "Resize needs scales or sizes";
  const HostTensor *given = sizes ? sizes : scales;
  if (given->numElements() != rank)
    return nodeError() << "Resize " << (sizes ? "sizes" : "scales")
                       << " must have " << rank
                       << " values (N, C and the spatial axes)";
  SmallVector<int64_t> outSizes;
  SmallVector<double> outScales;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xType.getDimSize(d);
    int64_t out = sizes ? sizes->getInt(d)
                        : static_cast<int64_t>(std::floor(in * scales->getDouble(d)));
    double scale = sizes ? static_cast<double>(out) / in : scales->getDouble(d);
    if (d < 2) {
      if (out != in)
        return nodeError() << "Resize may only change the spatial axes, not "
                              "dimension "
                           << d;
      continue;
    }
    outSizes.push_back(out);
    outScales.push_back(scale);
  }
  FailureOr<tg::ResizeOp> op = build<tg::ResizeOp>(
      {*x},
      {builder.getNamedAttr("mode", tg::ResizeModeAttr::get(context, *resizeMode)),
       builder.getNamedAttr("coordinate_mode",
                            tg::CoordinateModeAttr::get(context, *coordMode)),
       builder.getNamedAttr("nearest_mode",
                            tg::NearestModeAttr::get(context, *nearestMode)),
       builder.getNamedAttr("sizes", builder.getDenseI64ArrayAttr(outSizes)),
       builder.getNamedAttr("scales", builder.getDenseF64ArrayAttr(outScales))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertConcat() {
  SmallVector<Value> operands;
  Type elementType;
  for (int i = 0; i < node->input_size(); ++i) {
    if (!constantInput(i, false)) {
      FailureOr<Value> v = input(i);
      if (failed(v))
        return failure();
      elementType = getElementTypeOrSelf(v->getType());
      break;
    }
  }
  for (int i = 0; i < node->input_size(); ++i) {
    FailureOr<Value> v = inputAs(i, elementType);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  int64_t rank = cast<RankedTensorType>(operands.front().getType()).getRank();
  int64_t axis = attrInt(*node, "axis", 0);
  if (axis < 0)
    axis += rank;
  FailureOr<tg::ConcatOp> op = build<tg::ConcatOp>(
      operands, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertSlice() {
  FailureOr<Value> x = input(0);
  FailureOr<const HostTensor *> starts = requireConstant(1, "starts");
  FailureOr<const HostTensor *> ends = requireConstant(2, "ends");
  if (failed(x) || failed(starts) || failed(ends))
    return failure();
  const HostTensor *axes = nullptr, *steps = nullptr;
  if (hasInput(3)) {
    FailureOr<const HostTensor *> t = requireConstant(3, "axes");
    if (failed(t))
      return failure();
    axes = *t;
  }
  if (hasInput(4)) {
    FailureOr<const HostTensor *> t = requireConstant(4, "steps");
    if (failed(t))
      return failure();
    steps = *t;
  }
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  int64_t n = (*starts)->numElements();
  if ((*ends)->numElements() != n || (axes && axes->numElements() != n) ||
      (steps && steps->numElements() != n))
    return nodeError() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> begin(rank, 0), end(type.getShape()), step(rank, 1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t axis = axes ? axes->getInt(i) : i;
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return nodeError() << "slice axis " << axis
                         << " is out of range for rank " << rank;
    int64_t s = steps ? steps->getInt(i) : 1;
    if (s <= 0)
      return nodeError() << "Slice with step " << s
                         << " of a run-time tensor is not supported (steps "
                            "must be positive)";
    begin[axis] = (*starts)->getInt(i);
    end[axis] = (*ends)->getInt(i);
    step[axis] = s;
    if (normalizeSliceAxis(type.getDimSize(axis), begin[axis], end[axis], s) == 0)
      return nodeError() << "Slice selects nothing along axis " << axis;
  }
  FailureOr<tg::SliceOp> op = build<tg::SliceOp>(
      {*x}, {builder.getNamedAttr("starts", builder.getDenseI64ArrayAttr(begin)),
             builder.getNamedAttr("ends", builder.getDenseI64ArrayAttr(end)),
             builder.getNamedAttr("steps", builder.getDenseI64ArrayAttr(step))});
  return failed(op) ? failure() : define(0, *op);
}

FailureOr<Value> GraphImporter::sliceAlong(Value data, int64_t axis,
                                           int64_t begin, int64_t end) {
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
      steps(type.getRank(), 1);
  starts[axis] = begin;
  ends[axis] = end;
  FailureOr<tg::SliceOp> slice = build<tg::SliceOp>(
      {data},
      {builder.getNamedAttr("starts", builder.getDenseI64ArrayAttr(starts)),
       builder.getNamedAttr("ends", builder.getDenseI64ArrayAttr(ends)),
       builder.getNamedAttr("steps", builder.getDenseI64ArrayAttr(steps))});
  return failed(slice) ? FailureOr<Value>(failure()) : FailureOr<Value>(*slice);
}

/// Split (torch.split, chunk, unbind's first step) of a run-time tensor:
/// one slice per output that is read.
LogicalResult GraphImporter::convertSplit() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> axis = axisAttr(type.getRank(), 0);
  if (failed(axis))
    return failure();
  int64_t size = type.getDimSize(*axis), parts = node->output_size();
  SmallVector<int64_t> sizes;
  if (hasInput(1)) {
    FailureOr<const HostTensor *> split = requireConstant(1, "split");
    if (failed(split))
      return failure();
    for (int64_t i = 0; i < (*split)->numElements(); ++i)
      sizes.push_back((*split)->getInt(i));
  } else if (parts > 0 && size % parts == 0) {
    sizes.assign(parts, size / parts);
  }
  int64_t total = 0;
  for (int64_t part : sizes)
    total += part;
  if (static_cast<int64_t>(sizes.size()) != parts || total != size ||
      llvm::any_of(sizes, [](int64_t part) { return part <= 0; }))
    return nodeError() << "cannot split axis " << *axis << " of size " << size
                       << " into its " << parts
                       << " outputs: give split sizes that add up to it";
  int64_t begin = 0;
  for (auto [i, part] : llvm::enumerate(sizes)) {
    if (outputUsed(i)) {
      FailureOr<Value> slice = sliceAlong(*x, *axis, begin, begin + part);
      if (failed(slice) || failed(define(i, *slice)))
        return failure();
    }
    begin += part;
  }
  return success();
}

FailureOr<Value> GraphImporter::gatherAt(Value data, int64_t axis,
                                         ArrayRef<int64_t> indexShape,
                                         ArrayRef<int64_t> indices) {
  if (!indexShape.empty()) {
    auto attr = DenseIntElementsAttr::get(
        RankedTensorType::get(indexShape, builder.getI64Type()), indices);
    FailureOr<tg::GatherOp> op = build<tg::GatherOp>(
        {data}, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis)),
                 builder.getNamedAttr("indices", attr)});
    return failed(op) ? FailureOr<Value>(failure()) : FailureOr<Value>(*op);
  }
  // One index: a slice of the axis without it, no gather kernel.
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  FailureOr<Value> slice =
      sliceAlong(data, axis, indices.front(), indices.front() + 1);
  if (failed(slice))
    return failure();
  FailureOr<tg::ReshapeOp> op = build<tg::ReshapeOp>(
      {*slice},
      {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))});
  return failed(op) ? FailureOr<Value>(failure()) : FailureOr<Value>(*op);
}

FailureOr<std::pair<Value, const HostTensor *>>
GraphImporter::gatherOperands() {
  FailureOr<Value> data = input(0);
  if (failed(data))
    return failure();
  FailureOr<const HostTensor *> indices = requireConstant(1, "indices");
  if (failed(indices))
    return failure();
  return std::make_pair(*data, *indices);
}

LogicalResult GraphImporter::convertGather() {
  FailureOr<std::pair<Value, const HostTensor *>> operands = gatherOperands();
  if (failed(operands))
    return failure();
  auto [data, indices] = *operands;
  auto type = cast<RankedTensorType>(data.getType());
  int64_t rank = type.getRank();
  int64_t axis = attrInt(*node, "axis", 0);
  if (axis < -rank || axis >= rank)
    return nodeError() << "gather axis " << axis << " is out of range for rank "
                       << rank;
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> normalized;
  std::string error;
  if (!normalizeGatherIndices(*indices, type.getDimSize(axis), normalized,
                              error))
    return nodeError() << error << " for axis " << axis << " of size "
                       << type.getDimSize(axis);
  FailureOr<Value> result = gatherAt(data, axis, indices->shape, normalized);
  return failed(result) ? failure() : define(0, *result);
}

/// GatherND (batch_dims 0) is a Gather along the data's first `depth` axes
/// flattened into one, at the tuples' flat offsets.
LogicalResult GraphImporter::convertGatherND() {
  FailureOr<std::pair<Value, const HostTensor *>> operands = gatherOperands();
  if (failed(operands))
    return failure();
  auto [data, indices] = *operands;
  auto type = cast<RankedTensorType>(data.getType());
  GatherNDPlan plan;
  std::string error;
  if (!planGatherND(type.getShape(), *indices, attrInt(*node, "batch_dims", 0),
                    plan, error))
    return nodeError() << error;
  Value flat = data;
  if (plan.depth > 1) {
    SmallVector<int64_t> shape = {1};
    for (int64_t d = 0; d < plan.depth; ++d)
      shape[0] *= type.getDimSize(d);
    shape.append(type.getShape().begin() + plan.depth, type.getShape().end());
    FailureOr<tg::ReshapeOp> reshape = build<tg::ReshapeOp>(
        {flat},
        {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))});
    if (failed(reshape))
      return failure();
    flat = *reshape;
  }
  FailureOr<Value> result = gatherAt(flat, 0, plan.indexShape, plan.flat);
  return failed(result) ? failure() : define(0, *result);
}

LogicalResult GraphImporter::convertPad() {
  FailureOr<Value> x = input(0);
  FailureOr<const HostTensor *> padsTensor = requireConstant(1, "pads");
  if (failed(x) || failed(padsTensor))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if ((*padsTensor)->numElements() != 2 * rank)
    return nodeError() << "pads must have " << 2 * rank << " values";
  if (hasInput(3))
    return nodeError() << "the axes input of Pad is not supported";
  double value = 0.0;
  if (hasInput(2)) {
    FailureOr<const HostTensor *> v = requireConstant(2, "constant_value");
    if (failed(v))
      return failure();
    if ((*v)->numElements() > 0)
      value = (*v)->getDouble(0);
  }
  std::string mode = attrString(*node, "mode", "constant");
  std::optional<tg::PadMode> padMode = tg::symbolizePadMode(mode);
  if (!padMode)
    return nodeError() << "Pad mode '" << mode
                       << "' is not supported; supported: constant, reflect, edge";
  // Negative pads crop: a slice first, then the non-negative padding.
  SmallVector<int64_t> pads, begin(rank, 0), end(type.getShape()), step(rank, 1);
  bool crops = false;
  for (int64_t i = 0; i < 2 * rank; ++i) {
    int64_t p = (*padsTensor)->getInt(i);
    pads.push_back(std::max<int64_t>(p, 0));
    if (p >= 0)
      continue;
    crops = true;
    if (i < rank)
      begin[i] = -p;
    else
      end[i - rank] += p;
  }
  Value current = *x;
  if (crops) {
    for (int64_t d = 0; d < rank; ++d)
      if (begin[d] >= end[d])
        return nodeError() << "negative pads remove all of axis " << d;
    FailureOr<tg::SliceOp> slice = build<tg::SliceOp>(
        {current},
        {builder.getNamedAttr("starts", builder.getDenseI64ArrayAttr(begin)),
         builder.getNamedAttr("ends", builder.getDenseI64ArrayAttr(end)),
         builder.getNamedAttr("steps", builder.getDenseI64ArrayAttr(step))});
    if (failed(slice))
      return failure();
    current = *slice;
  }
  FailureOr<tg::PadOp> op = build<tg::PadOp>(
      {current},
      {builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(pads)),
       builder.getNamedAttr("mode", tg::PadModeAttr::get(context, *padMode)),
       builder.getNamedAttr("value", builder.getF64FloatAttr(value))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertShapeOp() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  SmallVector<const HostTensor *> inputs = {nullptr};
  for (int i = 1; i < node->input_size(); ++i) {
    if (!hasInput(i)) {
      inputs.push_back(nullptr);
      continue;
    }
    FailureOr<const HostTensor *> t = requireConstant(i, "shape or axes");
    if (failed(t))
      return failure();
    inputs.push_back(*t);
  }
  SmallVector<int64_t> shape;
  std::string error;
  auto type = cast<RankedTensorType>(x->getType());
  if (resolveShapeOp(*node, type.getShape(), inputs, shape, error) !=
          ShapeOpResult::Resolved &&
      !rederiveBatch(type.getShape(), shape)) {
    InFlightDiagnostic diag = nodeError() << error;
    if (node->op_type() == "Reshape" && (options.batch ||
                                         !options.inputShape.empty()))
      diag << ": the exporter fixed this shape for the input size it "
              "exported at, which --batch or --input-shape changed; export "
              "at the size you train (memopt.export_module), or with dynamic "
              "shapes (torch.onnx.export(..., dynamic_shapes=...)) so that "
              "the shape follows the input";
    return diag;
  }
  FailureOr<tg::ReshapeOp> op = build<tg::ReshapeOp>(
      {*x}, {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))});
  return failed(op) ? failure() : define(0, *op);
}

bool GraphImporter::rederiveBatch(ArrayRef<int64_t> input,
                                  SmallVectorImpl<int64_t> &shape) {
  if (node->op_type() != "Reshape" || !options.batch ||
      !options.inputShape.empty())
    return false;
  auto in = exportShapes.find(node->input(0));
  auto out = exportShapes.find(node->output(0));
  if (in == exportShapes.end() || out == exportShapes.end())
    return false;
  std::optional<SmallVector<int64_t>> rebatched =
      rebatchedShape(in->second, out->second, input);
  if (!rebatched)
    return false;
  shape.assign(rebatched->begin(), rebatched->end());
  ++summary.rebatchedReshapes;
  // ONNX's inference followed the fixed shape from here on: its shapes no
  // longer check memopt's, whose own inference stays.
  onnxShapes.clear();
  return true;
}

LogicalResult GraphImporter::convertTranspose() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> perm = attrInts(*node, "perm", {});
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  FailureOr<tg::TransposeOp> op = build<tg::TransposeOp>(
      {*x}, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertExpand() {
  // Expand of a run-time value (one of constants is folded): NumPy's
  // broadcast of the input and the shape, both ways (a 1 in the shape
  // keeps the input's axis).
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  FailureOr<const HostTensor *> shapeInput = requireConstant(1, "shape");
  if (failed(shapeInput))
    return failure();
  const HostTensor &target = **shapeInput;
  if (target.shape.size() != 1)
    return nodeError() << "Expand's shape must be a 1-D tensor, got rank "
                       << target.shape.size();
  ArrayRef<int64_t> in = cast<RankedTensorType>(x->getType()).getShape();
  size_t rank = std::max<size_t>(in.size(), target.numElements());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t fromEnd = rank - 1 - i;
    int64_t a = fromEnd < in.size() ? in[in.size() - 1 - fromEnd] : 1;
    int64_t b = fromEnd < static_cast<size_t>(target.numElements())
                    ? target.getInt(target.numElements() - 1 - fromEnd)
                    : 1;
    if (a != b && a != 1 && b != 1)
      return nodeError() << "Expand cannot broadcast axis " << i
                         << " of size " << a << " to " << b;
    if (b < 1)
      return nodeError() << "Expand's shape has a size " << b
                         << "; sizes must be positive";
    shape[i] = a == 1 ? b : a;
  }
  if (ArrayRef<int64_t>(shape) == in)
    return define(0, *x);
  FailureOr<tg::BroadcastOp> op = build<tg::BroadcastOp>(
      {*x}, {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertTile() {
  // Tile of a run-time value (x.repeat(...): MONAI's VNet input block), per
  // repeated axis: a unit axis before it, broadcast to the repeat count,
  // merged back (output[k * d + j] = x[j]); the broadcast's gradient sums
  // the copies.
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  FailureOr<const HostTensor *> repeatsInput = requireConstant(1, "repeats");
  if (failed(repeatsInput))
    return failure();
  const HostTensor &repeats = **repeatsInput;
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(x->getType()).getShape());
  if (repeats.shape.size() != 1 ||
      repeats.numElements() != static_cast<int64_t>(shape.size()))
    return nodeError() << "Tile's repeats must be a 1-D tensor of "
                       << shape.size() << " values (the input's rank), got "
                       << repeats.numElements();
  Value tiled = *x;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    int64_t count = repeats.getInt(axis);
    if (count < 1)
      return nodeError() << "Tile's repeat " << count << " for axis " << axis
                         << " must be positive";
    if (count == 1)
      continue;
    SmallVector<int64_t> unit(shape), copies(shape);
    unit.insert(unit.begin() + axis, 1);
    copies.insert(copies.begin() + axis, count);
    shape[axis] *= count;
    auto reshapeTo = [&](Value value, ArrayRef<int64_t> to) {
      return build<tg::ReshapeOp>(
          {value}, {builder.getNamedAttr("shape",
                                         builder.getDenseI64ArrayAttr(to))});
    };
    FailureOr<tg::ReshapeOp> unsqueezed = reshapeTo(tiled, unit);
    if (failed(unsqueezed))
      return failure();
    FailureOr<tg::BroadcastOp> broadcast = build<tg::BroadcastOp>(
        {*unsqueezed},
        {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(copies))});
    if (failed(broadcast))
      return failure();
    FailureOr<tg::ReshapeOp> merged = reshapeTo(*broadcast, shape);
    if (failed(merged))
      return failure();
    tiled = *merged;
  }
  return define(0, tiled);
}

LogicalResult GraphImporter::convertMatMul() {
  FailureOr<Value> a = input(0), b = input(1);
  if (failed(a) || failed(b))
    return failure();
  if (cast<RankedTensorType>(a->getType()).getRank() < 2 ||
      cast<RankedTensorType>(b->getType()).getRank() < 2)
    return nodeError() << "MatMul of 1-D tensors is not supported";
  FailureOr<tg::MatMulOp> op = build<tg::MatMulOp>({*a, *b}, {});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertGemm() {
  FailureOr<Value> a = input(0), b = input(1);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<Value> operands = {*a, *b};
  if (hasInput(2)) {
    FailureOr<Value> c = inputAs(2, getElementTypeOrSelf(a->getType()));
    if (failed(c))
      return failure();
    operands.push_back(*c);
  }
  FailureOr<tg::GemmOp> op = build<tg::GemmOp>(
      operands,
      {builder.getNamedAttr("alpha", builder.getF64FloatAttr(
                                         attrFloat(*node, "alpha", 1.0f))),
       builder.getNamedAttr("beta", builder.getF64FloatAttr(
                                        attrFloat(*node, "beta", 1.0f))),
       builder.getNamedAttr("trans_a", builder.getBoolAttr(
                                           attrInt(*node, "transA", 0))),
       builder.getNamedAttr("trans_b", builder.getBoolAttr(
                                           attrInt(*node, "transB", 0)))});
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertReduce() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> axes = attrInts(*node, "axes", {});
  if (hasInput(1)) {
    FailureOr<const HostTensor *> t = requireConstant(1, "axes");
    if (failed(t))
      return failure();
    axes.assign((*t)->ints.begin(), (*t)->ints.end());
  }
  if (axes.empty() && attrInt(*node, "noop_with_empty_axes", 0) != 0)
    return define(0, *x);
  for (int64_t &a : axes)
    if (a < 0)
      a += rank;
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr(axes)),
      builder.getNamedAttr("keepdims",
                           builder.getBoolAttr(attrInt(*node, "keepdims", 1)))};
  if (node->op_type() == "ReduceSum") {
    FailureOr<tg::ReduceSumOp> op = build<tg::ReduceSumOp>({*x}, attrs);
    return failed(op) ? failure() : define(0, *op);
  }
  FailureOr<tg::ReduceMeanOp> op = build<tg::ReduceMeanOp>({*x}, attrs);
  return failed(op) ? failure() : define(0, *op);
}

LogicalResult GraphImporter::convertDropout() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  double ratio = attrFloat(*node, "ratio", 0.5f);
  if (hasInput(1)) {
    FailureOr<double> t = requireScalar(1, "ratio");
    if (failed(t))
      return failure();
    ratio = *t;
  }
  bool training = false;
  if (hasInput(2)) {
    FailureOr<double> t = requireScalar(2, "training_mode");
    if (failed(t))
      return failure();
    training = *t != 0.0;
  }
  if (outputUsed(1))
    return nodeError() << "the mask output of Dropout is not supported";
  if (!training || ratio == 0.0)
    return define(0, *x);
  FailureOr<tg::DropoutOp> op = build<tg::DropoutOp>(
      {*x}, {builder.getNamedAttr("ratio", builder.getF64FloatAttr(ratio))},
      /*numResults=*/2);
  return failed(op) ? failure() : define(0, op->getOutput());
}

LogicalResult GraphImporter::convertRandom() {
  // The numbers are memopt's: a function of --seed, the step, the op's
  // stream and the element index, so that remat and resume draw them again
  // exactly. The ONNX `seed` attribute, which would draw the same numbers
  // every step, is ignored (docs/importer.md).
  const std::string &op = node->op_type();
  // The shape and, without a dtype attribute, the element type: the
  // attribute's, a known input's or a run-time input's.
  SmallVector<int64_t> shape;
  std::optional<int32_t> dtype;
  Type elementType;
  if (op == "RandomUniform") {
    shape = attrInts(*node, "shape", {});
    dtype = onnx::TensorProto::FLOAT;
    if (llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
      return nodeError() << "shape [" << listString(shape)
                         << "] must have positive dimensions";
  } else if (const HostTensor *known = constantInput(0, true)) {
    shape.assign(known->shape.begin(), known->shape.end());
    dtype = known->dtype;
  } else {
    FailureOr<RankedTensorType> type = inputType(0);
    if (failed(type))
      return failure();
    shape.assign(type->getShape().begin(), type->getShape().end());
    elementType = type->getElementType();
  }
  // Bernoulli's probabilities have the fixed shape too: left as they are.
  if (op != "Bernoulli")
    rederiveRandomBatch(shape);
  if (findAttr(*node, "dtype"))
    dtype = attrInt(*node, "dtype", 0);
  if (dtype)
    elementType = elementTypeOf(context, *dtype);
  if (!elementType)
    return nodeError() << "draws " << dtypeName(*dtype)
                       << " numbers; memopt draws float32, float16 or "
                          "bfloat16";
  double low = op == "Bernoulli" ? 0.0 : attrFloat(*node, "low", 0.0f);
  double high = op == "Bernoulli" ? 1.0 : attrFloat(*node, "high", 1.0f);
  auto type = RankedTensorType::get(shape, elementType);
  auto random = tg::RandomUniformOp::create(
      builder, loc, type, builder.getF64FloatAttr(low),
      builder.getF64FloatAttr(high),
      builder.getI64IntegerAttr(nextRandomStream));
  std::string messages;
  if (failed(collectDiagnostics(context, messages, [&] {
        return verify(random, /*verifyRecursively=*/false);
      }))) {
    random->erase();
    return nodeError() << messages;
  }
  ++nextRandomStream;
  if (op != "Bernoulli")
    return define(0, random);
  // Bernoulli(p): 1 where a uniform number in [0, 1) is below p.
  FailureOr<Value> p = inputAs(0, elementType);
  if (failed(p))
    return failure();
  FailureOr<Value> compare =
      buildCompare(random, *p, tg::ComparisonPredicate::lt);
  return failed(compare) ? failure() : define(0, *compare);
}

void GraphImporter::rederiveRandomBatch(SmallVectorImpl<int64_t> &shape) {
  if (!options.batch || !options.inputShape.empty() || shape.empty())
    return;
  // The export-time batch: the first dimension of the graph's inputs then.
  std::optional<int64_t> exported;
  for (const onnx::ValueInfoProto &graphInput : model.graph().input()) {
    auto it = exportShapes.find(graphInput.name());
    if (it == exportShapes.end() || it->second.empty())
      continue;
    if (exported && *exported != it->second[0])
      return; // inputs of different batches: which one is unclear
    exported = it->second[0];
  }
  if (!exported || shape[0] != *exported || *exported == *options.batch)
    return;
  shape[0] = *options.batch;
  ++summary.rebatchedRandoms;
  // ONNX's inference kept the fixed shape: as after rederiveBatch, its
  // shapes no longer check memopt's.
  onnxShapes.clear();
}

LogicalResult GraphImporter::convertCast() {
  FailureOr<Value> x = input(0);
  if (failed(x))
    return failure();
  int64_t to = attrInt(*node, "to", 0);
  Type from = getElementTypeOrSelf(x->getType());
  Type target;
  switch (to) {
  case onnx::TensorProto::FLOAT:
    target = builder.getF32Type();
    break;
  case onnx::TensorProto::FLOAT16:
    target = builder.getF16Type();
    break;
  case onnx::TensorProto::BFLOAT16:
    target = builder.getBF16Type();
    break;
  default:
    break;
  }
  if (target != from)
    return nodeError() << "Cast of run-time tensor '" << node->input(0)
                       << "' to another element type is not supported: "
                          "memopt computes in one float type, and integer "
                          "values (such as shapes) must be known at compile "
                          "time";
  return define(0, *x);
}

LogicalResult GraphImporter::convertShape() {
  // The shape of a run-time value is static: it comes from its type. A weight
  // keeps its dims in the initializer, so reading it adds no argument.
  SmallVector<int64_t> shape;
  auto it = slots.find(node->input(0));
  if (it != slots.end() && !it->second.value && it->second.initializer) {
    shape.assign(it->second.initializer->dims().begin(),
                 it->second.initializer->dims().end());
  } else {
    FailureOr<RankedTensorType> type = inputType(0);
    if (failed(type))
      return failure();
    shape.assign(type->getShape().begin(), type->getShape().end());
  }
  HostTensor proxy = HostTensor::makeInts(shape, {});
  SmallVector<HostTensor> outputs;
  std::string error;
  const HostTensor *inputs[] = {&proxy};
  if (foldNode(*node, inputs, outputs, error) != FoldResult::Folded)
    return nodeError() << error;
  defineConstant(0, std::move(outputs.front()));
  return success();
}

LogicalResult GraphImporter::convertConstant() {
  HostTensor tensor;
  std::string error;
  if (const onnx::AttributeProto *value = findAttr(*node, "value")) {
    if (!readTensorProto(value->t(), tensor, error))
      return nodeError() << error;
  } else if (const onnx::AttributeProto *f = findAttr(*node, "value_float")) {
    tensor = HostTensor::makeFloats({}, {f->f()});
  } else if (const onnx::AttributeProto *fs = findAttr(*node, "value_floats")) {
    std::vector<double> values(fs->floats().begin(), fs->floats().end());
    int64_t n = values.size();
    tensor = HostTensor::makeFloats({n}, std::move(values));
  } else if (const onnx::AttributeProto *i = findAttr(*node, "value_int")) {
    tensor = HostTensor::makeInts({}, {i->i()});
  } else if (const onnx::AttributeProto *is = findAttr(*node, "value_ints")) {
    std::vector<int64_t> values(is->ints().begin(), is->ints().end());
    int64_t n = values.size();
    tensor = HostTensor::makeInts({n}, std::move(values));
  } else {
    return nodeError() << "Constant without a supported value attribute";
  }
  defineConstant(0, std::move(tensor));
  return success();
}
