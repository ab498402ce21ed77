//===- Autodiff.cpp - The training step from the forward function ---------===//
//
// tg-autodiff replaces the imported forward function @main by @train_step:
// the forward ops, the loss, the reverse-mode gradients (each forward op
// gives its own through GradientOpInterface) and one optimizer update per
// parameter.
// Parameters, BatchNorm running statistics and optimizer state are
// arguments and results, so that every later pass sees the whole step and
// the runtime can keep the state resident across steps.
//
//===----------------------------------------------------------------------===//

#include "DeepSupervision.h"
#include "DiceCELoss.h"
#include "EvalStep.h"
#include "MSSSIM.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace memopt::tg {
#define GEN_PASS_DEF_AUTODIFF
#include "memopt/Dialect/TG/Transforms/Passes.h.inc"
} // namespace memopt::tg

using namespace mlir;
using namespace memopt::tg;

namespace {

constexpr StringLiteral kForwardName = "main";
constexpr StringLiteral kTrainStepName = "train_step";
constexpr StringLiteral kTargetName = "target";
constexpr StringLiteral kLossName = "loss";
constexpr StringLiteral kStepName = "step";
constexpr StringLiteral kSeedName = "seed";
constexpr StringLiteral kLossScaleName = "loss_scale";

StringRef lossName(LossKind loss) {
  switch (loss) {
  case LossKind::mse:
    return "mse";
  case LossKind::l1:
    return "l1";
  case LossKind::bce:
    return "bce";
  case LossKind::ce:
    return "ce";
  case LossKind::dice:
    return "dice";
  case LossKind::ceDice:
    return "ce+dice";
  case LossKind::msssim:
    return "ms-ssim";
  case LossKind::msssimL1:
    return "ms-ssim+l1";
  case LossKind::graph:
    return "graph";
  }
  llvm_unreachable("unknown loss");
}

/// Counts the ops a builder inserts (the gradient-ops statistic).
struct CountingListener : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *, OpBuilder::InsertPoint) override {
    ++count;
  }
  unsigned count = 0;
};

/// Records the ops a builder inserts (the loss subgraph).
struct RecordingListener : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

/// One argument of @train_step: its type, role attributes and location.
struct Argument {
  Type type;
  DictionaryAttr attrs;
  Location loc;
};

/// A forward output that the loss is taken of and the weight of its loss
/// (1 without deep supervision); with loss=graph, the output that is the
/// loss.
struct SupervisedOutput {
  unsigned index;
  double weight;
};

/// The optimizer state of one updated parameter: the argument indices of
/// its slots in @train_step (momentum buffer, or exp_avg and exp_avg_sq).
struct ParamUpdate {
  unsigned param;
  SmallVector<unsigned, 2> slots;
};

/// Builds @train_step from @main. Each stage either succeeds or emits a
/// diagnostic and fails.
class TrainStepBuilder {
public:
  TrainStepBuilder(const AutodiffOptions &options, func::FuncOp forward)
      : options(options), forward(forward), builder(forward) {}

  /// Creates @train_step before @main; on failure nothing is left behind.
  LogicalResult build();

  unsigned gradientOps = 0, frozenParams = 0, runningStats = 0, optStates = 0;
  SmallVector<ParamUpdate> updates;

private:
  LogicalResult classifySignature();
  LogicalResult chooseSupervisedOutputs();
  LogicalResult checkLossOutput(unsigned index);
  void analyzeDependencies();
  void createFunction();
  Value emitLoss(Value prediction, Value target);
  Value emitSupervisedLoss();
  LogicalResult emitLossAndBackward();
  LogicalResult collectRunningStats();
  void emitUpdatesAndReturn();

  StringAttr roleName(DictionaryAttr attrs, StringRef role) const {
    return attrs ? attrs.getAs<StringAttr>(role) : StringAttr();
  }
  DictionaryAttr roleAttrs(StringRef role, StringRef name) {
    return builder.getDictionaryAttr(
        builder.getNamedAttr(role, builder.getStringAttr(name)));
  }
  unsigned addArgument(Type type, DictionaryAttr attrs, Location loc) {
    arguments.push_back({type, attrs, loc});
    return arguments.size() - 1;
  }

  const AutodiffOptions &options;
  func::FuncOp forward;
  OpBuilder builder;

  // @main's arguments by role (indices into @main's arguments) and the
  // outputs that the loss is taken of (or, with loss=graph, that is it).
  SmallVector<unsigned> inputs, params, states;
  SmallVector<SupervisedOutput> supervised;
  // Values of @main that depend on a parameter and reach the loss.
  llvm::DenseSet<Value> forwardNeedsGrad;

  // @train_step under construction.
  SmallVector<Argument> arguments;
  DenseMap<unsigned, unsigned> mainToStep; // argument index map
  std::optional<unsigned> targetArg, stepArg, lossScaleArg;
  func::FuncOp trainStep;
  IRMapping mapping;
  SmallVector<Operation *> forwardOps;
  llvm::DenseSet<Value> needsGrad;
  DenseMap<Value, Value> grads;
  DenseMap<Value, Value> stateUpdates;
  Value loss;
};

LogicalResult TrainStepBuilder::classifySignature() {
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i) {
    DictionaryAttr attrs = forward.getArgAttrDict(i);
    if (roleName(attrs, TGDialect::kInputAttrName))
      inputs.push_back(i);
    else if (roleName(attrs, TGDialect::kParamAttrName))
      params.push_back(i);
    else if (roleName(attrs, TGDialect::kStateAttrName))
      states.push_back(i);
    else
      return forward.emitOpError()
             << "argument #" << i
             << " has no tg.input, tg.param or tg.state role; autodiff needs "
                "the role of every argument of the forward function";
  }
  unsigned numOutputs = forward.getNumResults();
  if (numOutputs == 0)
    return forward.emitOpError("has no output to take the loss of");
  for (unsigned i = 0; i < numOutputs; ++i) {
    if (!forward.getResultAttrOfType<StringAttr>(i, TGDialect::kOutputAttrName))
      return forward.emitOpError()
             << "result #" << i << " has no tg.output name";
    auto type = dyn_cast<RankedTensorType>(forward.getResultTypes()[i]);
    if (!type || !type.hasStaticShape() ||
        !isa<FloatType>(type.getElementType()))
      return forward.emitOpError()
             << "result #" << i
             << " must be a statically shaped float tensor, got "
             << forward.getResultTypes()[i];
  }
  return chooseSupervisedOutputs();
}

/// The type of forward output `index`.
static RankedTensorType outputType(func::FuncOp forward, unsigned index) {
  return cast<RankedTensorType>(forward.getResultTypes()[index]);
}

/// With loss=graph the first output; otherwise the single output, or with
/// deep supervision every output of non-zero weight, each checked for the
/// loss and (but output #0, whose shape the target has) for downsampling.
LogicalResult TrainStepBuilder::chooseSupervisedOutputs() {
  unsigned numOutputs = forward.getNumResults();
  bool deepSupervision = !options.deepSupervision.empty();
  if (options.loss == LossKind::graph) {
    if (deepSupervision)
      return forward.emitOpError()
             << "deep-supervision weighs one loss per output, but loss=graph "
                "takes the model's own loss; use a loss of the outputs "
                "(mse, l1, bce, ce, dice, ce+dice, ms-ssim, ms-ssim+l1)";
    RankedTensorType type = outputType(forward, 0);
    if (type.getRank() != 0)
      return forward.emitOpError()
             << "loss=graph needs a rank-0 first output (the model's own "
                "loss), got "
             << type;
    supervised.push_back({0, 1.0});
    return success();
  }
  SmallVector<double> weights = {1.0};
  if (!deepSupervision && numOutputs != 1)
    return forward.emitOpError()
           << "loss=" << lossName(options.loss)
           << " takes the loss of a single output, but the function has "
           << numOutputs
           << " outputs; for outputs at decreasing resolutions pass "
              "deep-supervision=nnunet, halving or W0,W1,... (one loss per "
              "output against the target downsampled to its shape), "
              "otherwise export the model with the one output to train";
  if (deepSupervision) {
    std::string error;
    std::optional<DeepSupervision> spec =
        parseDeepSupervision(options.deepSupervision, error);
    std::optional<SmallVector<double>> given =
        spec ? spec->weightsFor(numOutputs, error) : std::nullopt;
    if (!given)
      return emitError(forward.getLoc()) << error;
    weights = *given;
  }
  Operation *terminator = forward.getBody().front().getTerminator();
  for (auto [index, weight] : llvm::enumerate(weights)) {
    // nnU-Net's DeepSupervisionWrapper computes no loss of weight 0.
    if (weight == 0.0)
      continue;
    RankedTensorType type = outputType(forward, index);
    std::string why;
    if (index > 0 && failed(memopt::tg::detail::checkDeepSupervisedShape(
                         outputType(forward, 0), type, why)))
      // At the output's producer, which names the ONNX node.
      return emitError(terminator->getOperand(index).getLoc())
             << "output #" << index << " (" << type << ") " << why;
    if (failed(checkLossOutput(index)))
      return failure();
    supervised.push_back({static_cast<unsigned>(index), weight});
  }
  return success();
}

/// The shape requirements of the configured loss on output `index`.
LogicalResult TrainStepBuilder::checkLossOutput(unsigned index) {
  RankedTensorType type = outputType(forward, index);
  bool segmentation = options.loss == LossKind::ce ||
                      options.loss == LossKind::dice ||
                      options.loss == LossKind::ceDice;
  if (segmentation) {
    if (type.getRank() < 2)
      return forward.emitOpError()
             << "loss=" << lossName(options.loss)
             << " needs logits N x C x ... (rank >= 2), got " << type;
    if (options.loss != LossKind::dice && type.getDimSize(1) < 2)
      return forward.emitOpError()
             << "loss=" << lossName(options.loss)
             << " needs at least 2 classes on axis 1 of the output, got "
             << type << "; use loss=bce or loss=dice for one channel";
  }
  if (options.loss == LossKind::msssim ||
      options.loss == LossKind::msssimL1) {
    std::string why;
    if (failed(memopt::tg::detail::checkMSSSIMShape(type, why)))
      // Not emitOpError: its note would print the whole model.
      return emitError(forward.getLoc())
             << "loss=" << lossName(options.loss) << " " << why;
  }
  return success();
}

/// The type of the target of `loss` for the forward output `output`: the
/// output's own type, or for the segmentation losses a class map (the
/// output's shape without axis 1; Dice of one channel takes a mask).
static RankedTensorType targetType(LossKind loss, Type output) {
  auto type = cast<RankedTensorType>(output);
  bool classMap = loss == LossKind::ce || loss == LossKind::ceDice ||
                  (loss == LossKind::dice && type.getDimSize(1) != 1);
  if (!classMap)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + 1);
  return type.clone(shape);
}

/// A value needs a gradient when it depends on a parameter and the loss
/// depends on it: the input of the first convolution, constants and the
/// BatchNorm statistics that only feed the running averages need none.
void TrainStepBuilder::analyzeDependencies() {
  Block &body = forward.getBody().front();
  llvm::DenseSet<Value> active;
  for (unsigned i : params)
    active.insert(forward.getArgument(i));
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.result_begin(), op.result_end());

  llvm::DenseSet<Value> reaches;
  Operation *terminator = body.getTerminator();
  for (const SupervisedOutput &output : supervised)
    reaches.insert(terminator->getOperand(output.index));
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (llvm::any_of(op.getResults(),
                     [&](Value v) { return reaches.contains(v); }))
      reaches.insert(op.operand_begin(), op.operand_end());

  for (Value v : active)
    if (reaches.contains(v))
      forwardNeedsGrad.insert(v);
}

void TrainStepBuilder::createFunction() {
  auto copyArgument = [&](unsigned i) {
    mainToStep[i] =
        addArgument(forward.getArgument(i).getType(), forward.getArgAttrDict(i),
                    forward.getArgument(i).getLoc());
  };
  for (unsigned i : inputs)
    copyArgument(i);
  Location loc = forward.getLoc();
  if (options.loss != LossKind::graph)
    targetArg =
        addArgument(targetType(options.loss, forward.getResultTypes().front()),
                    roleAttrs(TGDialect::kTargetAttrName, kTargetName),
                    NameLoc::get(builder.getStringAttr(kTargetName), loc));
  for (unsigned i : params)
    copyArgument(i);
  for (unsigned i : states)
    copyArgument(i);

  // Optimizer state for each parameter the loss depends on, as torch.optim
  // creates it lazily for parameters that have a gradient.
  bool sgd = options.optimizer == OptimizerKind::sgd;
  SmallVector<StringRef, 2> slots;
  if (!sgd)
    slots = {TGDialect::kExpAvgSlot, TGDialect::kExpAvgSqSlot};
  else if (options.momentum != 0.0)
    slots = {TGDialect::kMomentumBufferSlot};
  for (unsigned i : params) {
    BlockArgument param = forward.getArgument(i);
    if (!forwardNeedsGrad.contains(param)) {
      ++frozenParams;
      continue;
    }
    ParamUpdate update{mainToStep[i], {}};
    StringRef name =
        roleName(forward.getArgAttrDict(i), TGDialect::kParamAttrName);
    for (StringRef slot : slots)
      update.slots.push_back(addArgument(
          param.getType(),
          roleAttrs(TGDialect::kOptStateAttrName, (name + "." + slot).str()),
          param.getLoc()));
    optStates += slots.size();
    updates.push_back(std::move(update));
  }
  if (!slots.empty() && !updates.empty())
    stepArg = addArgument(RankedTensorType::get({}, builder.getI64Type()),
                          roleAttrs(TGDialect::kStepAttrName, kStepName),
                          NameLoc::get(builder.getStringAttr(kStepName), loc));
  // Dropout and random_uniform draw from a seed that the runtime gives each
  // step.
  if (llvm::any_of(forward.getBody().front(), [](Operation &op) {
        return isa<DropoutOp, RandomUniformOp>(op);
      }))
    addArgument(RankedTensorType::get({}, builder.getI64Type()),
                roleAttrs(TGDialect::kSeedAttrName, kSeedName),
                NameLoc::get(builder.getStringAttr(kSeedName), loc));
  // fp16 loss scaling: the backward starts from the scale the trainer
  // sets, so every gradient of the loss is scaled, whatever ops the loss
  // is made of (tg-loss-scale then unscales the updates).
  if (options.scaledSeed)
    lossScaleArg = addArgument(
        RankedTensorType::get({}, builder.getF32Type()),
        roleAttrs(TGDialect::kLossScaleAttrName, kLossScaleName),
        NameLoc::get(builder.getStringAttr(kLossScaleName), loc));

  SmallVector<Type> types;
  SmallVector<Location> locs;
  SmallVector<Attribute> attrs;
  for (const Argument &arg : arguments) {
    types.push_back(arg.type);
    locs.push_back(arg.loc);
    attrs.push_back(arg.attrs ? arg.attrs : builder.getDictionaryAttr({}));
  }
  trainStep = func::FuncOp::create(builder, loc, kTrainStepName,
                                   builder.getFunctionType(types, {}));
  trainStep.setAllArgAttrs(attrs);
  Block *entry = new Block();
  trainStep.getBody().push_back(entry);
  entry->addArguments(types, locs);

  for (auto [mainIndex, stepIndex] : mainToStep)
    mapping.map(forward.getArgument(mainIndex), entry->getArgument(stepIndex));
  builder.setInsertionPointToEnd(entry);
  for (Operation &op : forward.getBody().front().without_terminator())
    forwardOps.push_back(builder.clone(op, mapping));
  for (Value v : forwardNeedsGrad)
    needsGrad.insert(mapping.lookup(v));
}

/// The seed of the backward pass: d loss / d loss = 1, of the loss's type.
Value emitSeed(OpBuilder &builder, Location loc, Value loss) {
  return ConstantOp::createScalar(
      builder, loc, cast<RankedTensorType>(loss.getType()).getElementType(),
      1.0);
}

/// The loss of the configured kind of `prediction` against `target`: a loss
/// op or a subgraph of tg ops, differentiated like the forward ops.
Value TrainStepBuilder::emitLoss(Value prediction, Value target) {
  Location loc =
      NameLoc::get(builder.getStringAttr(kLossName), prediction.getLoc());
  switch (options.loss) {
  case LossKind::mse:
    return MSELossOp::create(builder, loc, prediction, target);
  case LossKind::l1:
    return L1LossOp::create(builder, loc, prediction, target);
  case LossKind::bce:
    return BCELossOp::create(builder, loc, prediction, target);
  case LossKind::ce:
    return CrossEntropyLossOp::create(builder, loc, prediction, target);
  case LossKind::dice:
    // The smoothing term of memopt.losses.dice_loss (docs/user-guide.md).
    return DiceLossOp::create(builder, loc, prediction, target,
                              builder.getF64FloatAttr(1.0));
  case LossKind::ceDice:
    return memopt::tg::detail::emitDiceCELoss(builder, loc, prediction, target);
  case LossKind::msssim:
  case LossKind::msssimL1:
    return memopt::tg::detail::emitMSSSIMLoss(builder, loc, prediction, target,
                                  options.loss == LossKind::msssimL1);
  case LossKind::graph:
    break;
  }
  llvm_unreachable("loss=graph has no loss to emit");
}

/// The weighted sum of the losses of the supervised outputs, each against
/// the target downsampled to its shape (one output of weight 1 without
/// deep supervision: its loss alone).
Value TrainStepBuilder::emitSupervisedLoss() {
  Operation *terminator = forward.getBody().front().getTerminator();
  Value target = trainStep.getArgument(*targetArg);
  bool labelMap = options.loss == LossKind::ce ||
                  options.loss == LossKind::dice ||
                  options.loss == LossKind::ceDice;
  Value total;
  for (const SupervisedOutput &output : supervised) {
    Value prediction = mapping.lookup(terminator->getOperand(output.index));
    Location loc =
        NameLoc::get(builder.getStringAttr(kLossName), prediction.getLoc());
    Value scaled = memopt::tg::detail::emitDownsampledTarget(
        builder, loc, target, targetType(options.loss, prediction.getType()),
        labelMap);
    Value term = emitLoss(prediction, scaled);
    if (output.weight != 1.0) {
      Value weight = ConstantOp::createScalar(
          builder, loc, cast<RankedTensorType>(term.getType()).getElementType(),
          output.weight);
      term = MulOp::create(builder, loc, term, weight);
    }
    total = total ? AddOp::create(builder, loc, total, term).getResult() : term;
  }
  return total;
}

LogicalResult TrainStepBuilder::emitLossAndBackward() {
  Operation *terminator = forward.getBody().front().getTerminator();
  auto prediction = [&](const SupervisedOutput &output) {
    return mapping.lookup(terminator->getOperand(output.index));
  };
  if (llvm::none_of(supervised, [&](const SupervisedOutput &output) {
        return needsGrad.contains(prediction(output));
      }))
    return forward.emitOpError(
        "computes a loss that depends on no parameter; there is nothing to "
        "train");

  Value root = prediction(supervised.front());
  if (options.loss == LossKind::graph) {
    loss = root;
  } else {
    // The loss belongs to the forward ops: differentiated by its ops' own
    // rules, and evaluated by @eval_step as the rest of the forward pass.
    RecordingListener recorder;
    builder.setListener(&recorder);
    loss = emitSupervisedLoss();
    for (Operation *op : recorder.ops) {
      forwardOps.push_back(op);
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return needsGrad.contains(v); }))
        needsGrad.insert(op->result_begin(), op->result_end());
    }
  }
  CountingListener counter;
  builder.setListener(&counter);
  if (lossScaleArg) {
    // A scale of 2^16 is beyond f16: the seed must be an f32 loss's.
    if (cast<RankedTensorType>(loss.getType()).getElementType() !=
        builder.getF32Type())
      return forward.emitOpError(
                 "scaled-seed: the loss is not f32 but ")
             << loss.getType()
             << "; loss scaling seeds the backward with a scale up to 2^24 "
                "(compute the loss in f32)";
    grads[loss] = trainStep.getBody().front().getArgument(*lossScaleArg);
  } else {
    grads[loss] = emitSeed(
        builder,
        NameLoc::get(builder.getStringAttr(kLossName), root.getLoc()), loss);
  }

  // Reverse forward order: all uses of a value are differentiated before
  // its definition, so its gradient is complete when its op is reached.
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    if (llvm::none_of(resultGrads, [](Value g) { return g; }))
      continue;
    SmallVector<bool> wanted;
    for (Value operand : op->getOperands())
      wanted.push_back(needsGrad.contains(operand));
    auto differentiable = dyn_cast<GradientOpInterface>(op);
    if (!differentiable)
      return op->emitOpError("has no gradient rule; autodiff cannot "
                             "differentiate through it");
    SmallVector<Value> operandGrads(op->getNumOperands());
    if (failed(differentiable.emitGradients(builder, resultGrads, wanted,
                                            operandGrads)))
      return failure();
    for (auto [operand, grad, want] :
         llvm::zip_equal(op->getOperands(), operandGrads, wanted)) {
      if (!want || !grad)
        continue;
      Value &sum = grads[operand];
      sum = sum ? AddOp::create(builder, op->getLoc(), operand.getType(), sum,
                                grad)
                      .getResult()
                : grad;
    }
  }
  builder.setListener(nullptr);
  gradientOps = counter.count;
  return success();
}

/// Each tg.batch_norm yields the new running statistics of the state
/// arguments it reads; they become the state results of the step.
LogicalResult TrainStepBuilder::collectRunningStats() {
  for (Operation *op : forwardOps) {
    auto bn = dyn_cast<BatchNormOp>(op);
    if (!bn)
      continue;
    for (auto [running, updated] :
         {std::pair{bn.getRunningMean(), bn.getNewRunningMean()},
          std::pair{bn.getRunningVar(), bn.getNewRunningVar()}}) {
      auto arg = dyn_cast<BlockArgument>(running);
      StringAttr name = arg ? trainStep.getArgAttrOfType<StringAttr>(
                                  arg.getArgNumber(), TGDialect::kStateAttrName)
                            : StringAttr();
      if (!name)
        continue;
      if (!stateUpdates.try_emplace(running, updated).second)
        return bn.emitOpError()
               << "updates the running statistic '" << name.getValue()
               << "' that another batch normalization updates too";
      ++runningStats;
    }
  }
  return success();
}

void TrainStepBuilder::emitUpdatesAndReturn() {
  Block &entry = trainStep.getBody().front();
  DenseMap<Value, Value> newValues = stateUpdates;
  Value stepValue = stepArg ? entry.getArgument(*stepArg) : Value();
  llvm::APFloat lr(options.lr), weightDecay(options.weightDecay);
  for (const ParamUpdate &update : updates) {
    BlockArgument param = entry.getArgument(update.param);
    Value grad = grads.lookup(param);
    Type type = param.getType();
    Location loc = param.getLoc();
    SmallVector<Value, 2> slots;
    for (unsigned slot : update.slots)
      slots.push_back(entry.getArgument(slot));
    Operation *op;
    if (options.optimizer == OptimizerKind::sgd) {
      bool momentum = !slots.empty();
      op = SGDUpdateOp::create(
          builder, loc, type, momentum ? type : Type(), param, grad,
          momentum ? slots[0] : Value(), momentum ? stepValue : Value(), lr,
          llvm::APFloat(options.momentum), llvm::APFloat(options.dampening),
          weightDecay, options.nesterov);
    } else {
      op = AdamUpdateOp::create(
          builder, loc, type, type, type, param, grad, slots[0], slots[1],
          stepValue, lr, llvm::APFloat(options.beta1),
          llvm::APFloat(options.beta2), llvm::APFloat(options.eps), weightDecay,
          options.optimizer == OptimizerKind::adamw);
    }
    newValues[param] = op->getResult(0);
    for (auto [slot, result] :
         llvm::zip_equal(slots, op->getResults().drop_front()))
      newValues[slot] = result;
  }

  // Results: the loss, the other forward outputs, then every parameter,
  // state and optimizer state, updated or passed through, named as its
  // argument.
  auto terminator =
      cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  SmallVector<Value> results = {loss};
  SmallVector<Attribute> resultAttrs = {
      options.loss == LossKind::graph
          ? forward.getResultAttrDict(0)
          : roleAttrs(TGDialect::kOutputAttrName, kLossName)};
  unsigned firstOutput = options.loss == LossKind::graph ? 1 : 0;
  for (unsigned i = firstOutput, e = forward.getNumResults(); i < e; ++i) {
    results.push_back(mapping.lookup(terminator.getOperand(i)));
    resultAttrs.push_back(forward.getResultAttrDict(i));
  }
  for (auto [index, arg] : llvm::enumerate(entry.getArguments())) {
    for (StringRef role : {TGDialect::kParamAttrName, TGDialect::kStateAttrName,
                           TGDialect::kOptStateAttrName}) {
      if (Attribute name = trainStep.getArgAttr(index, role)) {
        results.push_back(newValues.lookup(arg) ? newValues.lookup(arg)
                                                : Value(arg));
        resultAttrs.push_back(
            builder.getDictionaryAttr(builder.getNamedAttr(role, name)));
      }
    }
  }
  func::ReturnOp::create(builder, terminator.getLoc(), results);
  trainStep.setFunctionType(builder.getFunctionType(
      entry.getArgumentTypes(), ValueRange(results).getTypes()));
  trainStep.setAllResultAttrs(resultAttrs);
}

LogicalResult TrainStepBuilder::build() {
  if (failed(classifySignature()))
    return failure();
  analyzeDependencies();
  createFunction();
  if (failed(emitLossAndBackward()) || failed(collectRunningStats())) {
    trainStep.erase();
    return failure();
  }
  emitUpdatesAndReturn();
  if (!options.evalStep)
    return success();
  unsigned numOutputs = forward.getNumResults() +
                        (options.loss == LossKind::graph ? 0 : 1);
  if (failed(memopt::tg::detail::buildEvalStep(trainStep, forwardOps,
                                                numOutputs))) {
    trainStep.erase();
    return failure();
  }
  return success();
}

struct AutodiffPass : public memopt::tg::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(kForwardName);
    if (!forward) {
      module.emitError("tg-autodiff needs the forward function @")
          << kForwardName << " (as memopt-translate --import-onnx produces)";
      return signalPassFailure();
    }
    for (StringRef name :
         {kTrainStepName, memopt::tg::detail::kEvalStepName})
      if (module.lookupSymbol(name)) {
        module.emitError("tg-autodiff: the module already has a @") << name;
        return signalPassFailure();
      }
    if (!forward.getBody().hasOneBlock()) {
      forward.emitOpError("must have a single block for autodiff");
      return signalPassFailure();
    }

    AutodiffOptions options;
    options.loss = loss;
    options.deepSupervision = deepSupervision;
    options.optimizer = optimizer;
    options.lr = lr;
    options.momentum = momentum;
    options.dampening = dampening;
    options.nesterov = nesterov;
    options.weightDecay = weightDecay;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.eps = eps;
    options.evalStep = evalStep;
    options.scaledSeed = scaledSeed;
    TrainStepBuilder stepBuilder(options, forward);
    if (failed(stepBuilder.build()))
      return signalPassFailure();
    forward.erase();

    numGradientOps = stepBuilder.gradientOps;
    numUpdatedParams = stepBuilder.updates.size();
    numFrozenParams = stepBuilder.frozenParams;
    numRunningStats = stepBuilder.runningStats;
    numOptStates = stepBuilder.optStates;
  }
};

} // namespace
