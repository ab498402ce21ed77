//===- EvalStep.cpp - The evaluation function of a training step ----------===//
//
// @eval_step reuses the training step's forward ops and loss, so that
// validation computes exactly what training computes, except for the two
// ops that PyTorch's `model.eval()` switches: BatchNorm normalizes with its
// running statistics and updates none, Dropout passes its input through;
// and the random masks of drop-path and drop-connect, which those modules
// skip in evaluation mode, become their expectations (NoiseEvaluator).
//
//===----------------------------------------------------------------------===//

#include "EvalStep.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "memopt/Dialect/TG/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace memopt::tg;

namespace {

/// Fails if an op of `evaluated` reads a result of `op` other than its
/// first (output): evaluation mode computes none of them.
LogicalResult checkOnlyOutputRead(Operation *op,
                                  const llvm::DenseSet<Operation *> &evaluated,
                                  StringRef what) {
  for (OpResult result : op->getResults().drop_front())
    for (Operation *user : result.getUsers())
      if (evaluated.contains(user))
        return user->emitOpError()
               << "reads the " << what << " of " << op->getName()
               << ", which evaluation mode does not compute";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Random numbers in evaluation mode
//===----------------------------------------------------------------------===//

namespace {

/// What the eval step knows about a value computed from random ops and
/// constants only (a "noise value").
struct Noise {
  enum class Kind {
    /// A uniform distribution on [lo, hi): a tg.random_uniform, shifted,
    /// scaled, reshaped.
    uniform,
    /// An affine function a * B + b of a Bernoulli variable B (a compare
    /// of a uniform with a constant, the floor of a uniform less than 1
    /// wide), whose expectation `mean` (in the element type) is exact.
    mask,
    /// Anything else: no exact expectation memopt would stand by.
    other
  };
  Kind kind = Kind::other;
  double lo = 0, hi = 0;
  std::optional<APFloat> mean;
  /// The random op that the value derives from (its first, if several).
  RandomUniformOp source;
};

/// The value of a splat float constant.
std::optional<APFloat> splatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat() ||
      !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>();
}

double toDouble(APFloat value) {
  bool lost;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return value.convertToDouble();
}

APFloat inTypeOf(double value, Value like) {
  auto type = cast<FloatType>(getElementTypeOrSelf(like.getType()));
  APFloat result(value);
  bool lost;
  result.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                 &lost);
  return result;
}

Noise maskOf(APFloat mean, RandomUniformOp source) {
  Noise noise;
  noise.kind = Noise::Kind::mask;
  noise.mean = mean;
  noise.source = source;
  return noise;
}

/// The Bernoulli mask `uniform pred c` (`c pred uniform` when `swapped`):
/// its probability of 1, the fraction of [lo, hi) where it holds.
Noise compareMask(const Noise &uniform, double c, ComparisonPredicate pred,
                  bool swapped, Value result) {
  if (pred == ComparisonPredicate::eq || std::isnan(c) ||
      !(uniform.hi > uniform.lo))
    return Noise{Noise::Kind::other, 0, 0, std::nullopt, uniform.source};
  bool below = pred == ComparisonPredicate::lt ||
               pred == ComparisonPredicate::le;
  if (swapped)
    below = !below;
  // P(U < c); the boundary has probability zero.
  double p = std::clamp((c - uniform.lo) / (uniform.hi - uniform.lo), 0.0, 1.0);
  return maskOf(inTypeOf(below ? p : 1.0 - p, result), uniform.source);
}

/// floor(U) for U uniform on [lo, hi) at most 1 wide: k = floor(lo), plus 1
/// on the part of [lo, hi) at or above k + 1.
Noise floorMask(const Noise &uniform, Value result) {
  if (!(uniform.hi > uniform.lo) || uniform.hi - uniform.lo > 1.0)
    return Noise{Noise::Kind::other, 0, 0, std::nullopt, uniform.source};
  double k = std::floor(uniform.lo);
  double q = uniform.hi <= k + 1
                 ? 0.0
                 : (uniform.hi - (k + 1)) / (uniform.hi - uniform.lo);
  return maskOf(inTypeOf(k + q, result), uniform.source);
}

/// Evaluation mode for the random numbers of @eval_step (docs/passes/
/// autodiff.md#random-numbers-in-evaluation-mode): every mask that data
/// multiplies becomes its expectation; any other use of a noise value is a
/// refusal, returned as its message and the op that draws the numbers.
class NoiseEvaluator {
public:
  explicit NoiseEvaluator(func::FuncOp evalStep) : evalStep(evalStep) {}

  /// Folds the masks; on a use it cannot evaluate, the random op and the
  /// reason.
  std::optional<std::pair<RandomUniformOp, std::string>> run();

private:
  /// The noise value `op` computes from `noise` (its one noise operand)
  /// and constants.
  Noise propagate(Operation *op, const Noise &noise, unsigned index);
  /// Replaces the mask operand `index` of `mul` by its expectation and
  /// simplifies `x * 1` and `x / c * c` (c the expectation) to x.
  void foldMask(MulOp mul, unsigned index, const APFloat &mean);
  void eraseDead();

  func::FuncOp evalStep;
  llvm::DenseMap<Value, Noise> noise;
  llvm::SetVector<Operation *> candidates;
};

Noise NoiseEvaluator::propagate(Operation *op, const Noise &in,
                                unsigned index) {
  Noise out = in;
  Value result = op->getResult(0);
  // Reshapes, broadcasts and casts keep the distribution of each element.
  if (isa<ReshapeOp, TransposeOp, BroadcastOp>(op))
    return out;
  if (isa<CastOp>(op)) {
    if (out.mean) {
      bool lost;
      auto type = cast<FloatType>(getElementTypeOrSelf(result.getType()));
      out.mean->convert(type.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &lost);
    }
    return out;
  }
  Noise other{Noise::Kind::other, 0, 0, std::nullopt, in.source};
  if (in.kind == Noise::Kind::other)
    return other;
  if (isa<NegOp>(op)) {
    if (out.mean)
      out.mean->changeSign();
    std::tie(out.lo, out.hi) = std::make_pair(-in.hi, -in.lo);
    return out;
  }
  if (auto floor = dyn_cast<FloorOp>(op))
    return in.kind == Noise::Kind::uniform ? floorMask(in, result) : other;
  if (op->getNumOperands() != 2)
    return other;
  std::optional<APFloat> c = splatConstant(op->getOperand(1 - index));
  if (!c)
    return other;
  double cd = toDouble(*c);
  bool lhs = index == 0;
  if (auto compare = dyn_cast<CompareOp>(op))
    return in.kind == Noise::Kind::uniform
               ? compareMask(in, cd, compare.getPredicate(), !lhs, result)
               : other;
  if (in.kind == Noise::Kind::mask) {
    // Affine in the mask: the expectation goes through, rounded as the op
    // rounds.
    APFloat mean = *in.mean;
    APFloat::roundingMode rm = APFloat::rmNearestTiesToEven;
    if (isa<AddOp>(op))
      mean.add(*c, rm);
    else if (isa<SubOp>(op) && lhs)
      mean.subtract(*c, rm);
    else if (isa<SubOp>(op)) {
      APFloat from = *c;
      from.subtract(mean, rm);
      mean = from;
    } else if (isa<MulOp>(op))
      mean.multiply(*c, rm);
    else if (isa<DivOp>(op) && lhs)
      mean.divide(*c, rm);
    else
      return other;
    out.mean = mean;
    return out;
  }
  // A uniform distribution, shifted or scaled.
  if (isa<AddOp>(op) || (isa<SubOp>(op) && lhs)) {
    double shift = isa<AddOp>(op) ? cd : -cd;
    out.lo = in.lo + shift;
    out.hi = in.hi + shift;
    return out;
  }
  if (isa<SubOp>(op)) {
    out.lo = cd - in.hi;
    out.hi = cd - in.lo;
    return out;
  }
  if ((isa<MulOp>(op) || (isa<DivOp>(op) && lhs)) && cd != 0.0 &&
      std::isfinite(cd)) {
    double factor = isa<MulOp>(op) ? cd : 1.0 / cd;
    out.lo = std::min(in.lo * factor, in.hi * factor);
    out.hi = std::max(in.lo * factor, in.hi * factor);
    return out;
  }
  return other;
}

void NoiseEvaluator::foldMask(MulOp mul, unsigned index, const APFloat &mean) {
  Value mask = mul->getOperand(index);
  Value data = mul->getOperand(1 - index);
  // A scalar where the mask does not broadcast the activations.
  auto maskType = cast<RankedTensorType>(mask.getType());
  if (data.getType() == mul.getType())
    maskType = RankedTensorType::get({}, maskType.getElementType());
  OpBuilder builder(mul);
  Value expectation = ConstantOp::create(
      builder, mask.getLoc(), maskType,
      DenseElementsAttr::get(maskType, mean));
  mul->setOperand(index, expectation);
  candidates.insert(expectation.getDefiningOp());
  if (data.getType() != mul.getType())
    return;
  // x * 1 is x; x / c * c is x too, as PyTorch's evaluation mode returns x
  // (timm's x.div(keep) * mask, EfficientNet's x / keep * floor(keep + u)).
  Value simplified;
  if (mean.isExactlyValue(1.0)) {
    simplified = data;
  } else if (auto div = data.getDefiningOp<DivOp>()) {
    std::optional<APFloat> c = splatConstant(div.getRhs());
    if (c && c->bitwiseIsEqual(mean) &&
        div.getLhs().getType() == mul.getType()) {
      simplified = div.getLhs();
      candidates.insert(div);
      candidates.insert(div.getRhs().getDefiningOp());
    }
  }
  if (!simplified)
    return;
  mul.getOutput().replaceAllUsesWith(simplified);
  candidates.insert(mul);
}

void NoiseEvaluator::eraseDead() {
  // Users before their operands: reverse program order.
  SmallVector<Operation *> ops(candidates.begin(), candidates.end());
  bool erased = true;
  while (erased) {
    erased = false;
    for (size_t i = 0; i < ops.size(); ++i)
      if (Operation *op = ops[i]; op && op->use_empty()) {
        // The constants that only the op read go too.
        for (Value operand : op->getOperands())
          if (auto constant = operand.getDefiningOp<ConstantOp>();
              constant && !candidates.contains(constant)) {
            candidates.insert(constant);
            ops.push_back(constant);
          }
        op->erase();
        ops[i] = nullptr;
        erased = true;
      }
  }
}

std::optional<std::pair<RandomUniformOp, std::string>> NoiseEvaluator::run() {
  Block &body = evalStep.getBody().front();
  // Ops whose results the outputs do not read compute nothing PyTorch
  // returns: their uses of random numbers do not matter.
  llvm::DenseSet<Operation *> live;
  for (Operation &op : llvm::reverse(body))
    if (isa<func::ReturnOp>(op) ||
        llvm::any_of(op.getUsers(),
                     [&](Operation *user) { return live.contains(user); }))
      live.insert(&op);
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!live.contains(&op))
      continue;
    if (auto random = dyn_cast<RandomUniformOp>(op)) {
      noise[random.getOutput()] =
          Noise{Noise::Kind::uniform, random.getLow().convertToDouble(),
                random.getHigh().convertToDouble(), std::nullopt, random};
      candidates.insert(random);
      continue;
    }
    // The noise operands and whether data (anything else but a splat
    // constant) is read too.
    SmallVector<unsigned, 2> noisy;
    bool readsData = false;
    for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
      if (noise.count(operand))
        noisy.push_back(i);
      else if (!splatConstant(operand))
        readsData = true;
    }
    if (noisy.empty())
      continue;
    Noise first = noise.find(op.getOperand(noisy.front()))->second;
    auto refuse = [&](StringRef why) {
      std::string message;
      llvm::raw_string_ostream os(message);
      auto name = dyn_cast<NameLoc>(first.source.getLoc());
      os << "node '"
         << (name ? name.getName().getValue() : StringRef("?"))
         << "' draws random numbers that the model uses other than as a "
            "dropout or drop-path mask multiplying the activations ("
         << why
         << "), so memopt cannot evaluate it as PyTorch's model.eval() "
            "does: export the evaluation model without the random module, "
            "or train without --val-data";
      return std::make_optional(std::make_pair(first.source, message));
    };
    if (isa<func::ReturnOp>(op))
      return refuse("as an output");
    if (!readsData) {
      if (noisy.size() == 1 && op.getNumResults() == 1)
        noise[op.getResult(0)] = propagate(&op, first, noisy.front());
      else
        for (Value result : op.getResults())
          noise[result] = Noise{Noise::Kind::other, 0, 0, std::nullopt,
                                first.source};
      candidates.insert(&op);
      continue;
    }
    auto mul = dyn_cast<MulOp>(op);
    if (!mul || noisy.size() != 1)
      return refuse(("read by " + op.getName().getStringRef() +
                     " together with the activations")
                        .str());
    if (first.kind != Noise::Kind::mask)
      return refuse(first.kind == Noise::Kind::uniform
                        ? "multiplying by the uniform numbers themselves"
                        : "multiplying by a function of them that is not "
                          "affine in one 0/1 mask");
    foldMask(mul, noisy.front(), *first.mean);
  }
  eraseDead();
  return std::nullopt;
}

} // namespace

FailureOr<func::FuncOp>
memopt::tg::detail::buildEvalStep(func::FuncOp trainStep,
                                  ArrayRef<Operation *> forwardOps,
                                  unsigned numOutputs) {
  Block &trainBody = trainStep.getBody().front();
  Operation *terminator = trainBody.getTerminator();
  llvm::DenseSet<Operation *> evaluated(forwardOps.begin(), forwardOps.end());
  // The loss op (absent with loss=graph, where the loss is a forward value).
  Operation *lossOp = terminator->getOperand(0).getDefiningOp();
  if (lossOp && !evaluated.contains(lossOp))
    evaluated.insert(lossOp);
  else
    lossOp = nullptr;
  for (Operation *op : forwardOps) {
    if (isa<BatchNormOp>(op) &&
        failed(checkOnlyOutputRead(op, evaluated, "batch statistics")))
      return failure();
    if (isa<DropoutOp>(op) &&
        failed(checkOnlyOutputRead(op, evaluated, "mask")))
      return failure();
  }

  OpBuilder builder(trainStep->getContext());
  builder.setInsertionPointAfter(trainStep);
  auto results = terminator->getOperands().take_front(numOutputs);
  auto evalStep = func::FuncOp::create(
      builder, trainStep.getLoc(), kEvalStepName,
      builder.getFunctionType(trainStep.getArgumentTypes(),
                              ValueRange(results).getTypes()));
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  trainStep.getAllArgAttrs(argAttrs);
  trainStep.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(numOutputs);
  evalStep.setAllArgAttrs(argAttrs);
  evalStep.setAllResultAttrs(resultAttrs);
  Block *entry = evalStep.addEntryBlock();
  IRMapping mapping;
  mapping.map(trainBody.getArguments(), entry->getArguments());

  builder.setInsertionPointToEnd(entry);
  for (Operation *op : forwardOps) {
    if (auto bn = dyn_cast<BatchNormOp>(op)) {
      Value output = BatchNormInferenceOp::create(
          builder, bn.getLoc(), mapping.lookup(bn.getInput()),
          mapping.lookup(bn.getScale()), mapping.lookup(bn.getBias()),
          mapping.lookup(bn.getRunningMean()),
          mapping.lookup(bn.getRunningVar()), bn.getEpsilonAttr());
      mapping.map(bn.getOutput(), output);
    } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
      mapping.map(dropout.getOutput(), mapping.lookup(dropout.getInput()));
    } else {
      builder.clone(*op, mapping);
    }
  }
  if (lossOp)
    builder.clone(*lossOp, mapping);
  SmallVector<Value> evalResults;
  for (Value result : results)
    evalResults.push_back(mapping.lookup(result));
  func::ReturnOp::create(builder, terminator->getLoc(), evalResults);

  // The random numbers: masks become their expectations; anything else
  // leaves the model without an evaluation step, and the trainer refuses
  // --val-data with the reason.
  if (auto refusal = NoiseEvaluator(evalStep).run()) {
    emitWarning(refusal->first.getLoc())
        << "no evaluation step, the training binary will refuse --val-data: "
        << refusal->second;
    ModuleOp module = trainStep->getParentOfType<ModuleOp>();
    module->setAttr(kEvalRefusalAttrName,
                    StringAttr::get(module.getContext(), refusal->second));
    evalStep.erase();
    return func::FuncOp();
  }
  return evalStep;
}
