//===- StepContext.cpp - Names and placements of the step's tensors -------===//
//
// Before any pattern runs, every view of the step (a function in the mbuf
// dialect) gets a C++ name (from the ONNX node of the op of the kernel that
// writes it first and the op kind, or from its role attribute) and its
// place, which its defining op states: an argument or result buffer, an
// arena at an offset, or a static array for constants.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Runtime/Tensor.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// The role attribute of graph outputs.
constexpr StringLiteral kOutputRole = "tg.output";

/// The ONNX node name in `loc`, if any.
StringRef nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (StringRef name = nodeName(inner); !name.empty())
        return name;
  return "";
}

/// A PyTorch scope name as an identifier: "/encoder/layer1/layer1.0/conv1/
/// Conv" -> "encoder_layer1_0_conv1" (the op type and the module prefixes
/// that the next scope repeats dropped).
std::string scopeName(StringRef node) {
  SmallVector<StringRef> parts;
  node.split(parts, '/', -1, /*KeepEmpty=*/false);
  if (parts.size() > 1 && llvm::isUpper(parts.back().front()))
    parts.pop_back();
  SmallVector<StringRef> kept;
  for (auto [index, part] : llvm::enumerate(parts))
    if (index + 1 == parts.size() ||
        !parts[index + 1].starts_with((part + ".").str()))
      kept.push_back(part);
  return sanitizeName(llvm::join(kept, "_"));
}

/// The short kind of a tg op for names: "conv", "bn", "relu_grad", ...
std::string opKind(Operation *op) {
  StringRef mnemonic = op->getName().stripDialect();
  std::string kind = llvm::StringSwitch<std::string>(mnemonic)
                         .Case("conv_backward_data", "conv_grad_input")
                         .Case("conv_backward_filter", "conv_grad_weight")
                         .Case("conv_transpose_backward_filter",
                               "conv_transpose_grad_weight")
                         .Case("batch_norm", "bn")
                         .Case("batch_norm_inference", "bn")
                         .Case("batch_norm_backward", "bn_grad")
                         .Default(mnemonic.str());
  StringRef base(kind);
  if (base.consume_back("_backward"))
    kind = (base + "_grad").str();
  return kind;
}

/// The suffix that tells the results of a multi-result op apart: the ODS
/// result name ("saved_mean"), none for the first (main) result.
std::string resultSuffix(OpResult result) {
  Operation *op = result.getOwner();
  if (op->getNumResults() == 1)
    return "";
  std::string suffix;
  if (auto asmOp = dyn_cast<OpAsmOpInterface>(op))
    asmOp.getAsmResultNames([&](Value value, StringRef name) {
      if (value == result)
        suffix = name.str();
    });
  if (suffix.empty())
    suffix = "result" + std::to_string(result.getResultNumber());
  StringRef ref(suffix);
  ref.consume_front("new_");
  ref.consume_front("saved_");
  ref.consume_front("grad_");
  if (result.getResultNumber() == 0 && (ref == "output" || ref == "param"))
    return "";
  return ref.str();
}

bool isStepNumberType(Type type) {
  auto view = dyn_cast<mbuf::ViewType>(type);
  return view && view.getShape().empty() &&
         view.getElementType().isInteger(64);
}

LogicalResult checkFloatView(Value value, Location loc) {
  auto view = dyn_cast<mbuf::ViewType>(value.getType());
  if (view && view.getElementType().isF32() &&
      view.getShape().size() <= static_cast<size_t>(rt::kMaxRank))
    return success();
  return emitError(loc) << "the backend supports float32 views of rank <= "
                        << rt::kMaxRank
                        << " only (other element types are not supported by "
                           "this backend yet), not "
                        << value.getType();
}

bool isLowPrecision(Type type) {
  auto view = dyn_cast<mbuf::ViewType>(type);
  return view && (view.getElementType().isBF16() ||
                  view.getElementType().isF16());
}

/// The ops whose kernels take bf16 / f16 tensors (Kernels.h; the CPU and
/// the CUDA runtime both have them, and a fused elementwise chain is one
/// generated CUDA kernel in its tensors' type): those
/// that tg-amp's table runs low or lets follow a low operand, their
/// gradients, and the data movement between them. The rest (losses,
/// optimizer updates, softmax, log_softmax, global_avg_pool, which the
/// table keeps in f32) compute in f32 and get f32 operands from the pass's
/// casts.
bool hasLowPrecisionKernel(Operation *op) {
  return isa<tg::CastOp, tg::ConstantOp, tg::ConvOp,
             tg::ConvBackwardDataOp, tg::ConvBackwardFilterOp,
             tg::ConvTransposeOp, tg::ConvTransposeBackwardFilterOp,
             tg::MatMulOp, tg::GemmOp, tg::BatchNormOp, tg::BatchNormInferenceOp,
             tg::BatchNormBackwardOp, tg::InstanceNormOp,
             tg::InstanceNormBackwardOp, tg::PReluOp, tg::PReluBackwardOp,
             tg::SignOp, tg::ReluOp, tg::ReluBackwardOp,
             tg::SigmoidOp, tg::SigmoidBackwardOp, tg::ExpOp, tg::LogOp,
             tg::SoftplusOp, tg::SoftplusBackwardOp, tg::TanhOp,
             tg::TanhBackwardOp, tg::NegOp, tg::AbsOp, tg::SqrtOp,
             tg::LeakyReluOp, tg::LeakyReluBackwardOp, tg::ClipOp,
             tg::ClipBackwardOp, tg::EluOp, tg::EluBackwardOp, tg::ErfOp,
             tg::ErfBackwardOp, tg::HardSigmoidOp, tg::HardSigmoidBackwardOp,
             tg::HardSwishOp, tg::HardSwishBackwardOp, tg::AddOp, tg::SubOp,
             tg::MulOp, tg::DivOp, tg::CompareOp, tg::FloorOp, tg::SelectOp,
             tg::DropoutOp, tg::RandomUniformOp, tg::MaxPoolOp,
             tg::MaxPoolBackwardOp, tg::AvgPoolOp,
             tg::AvgPoolBackwardOp, tg::ResizeOp, tg::ResizeBackwardOp,
             tg::ConcatOp, tg::SliceOp, tg::SliceBackwardOp, tg::PadOp,
             tg::PadBackwardOp, tg::GatherOp, tg::GatherBackwardOp,
             tg::ReshapeOp, tg::TransposeOp, tg::BroadcastOp,
             tg::ReduceSumOp, tg::ReduceMeanOp, tg::FusedElementwiseOp>(op);
}

/// A view of a kernel: f32, or bf16 / f16 where the backends have the
/// op's kernel in low precision (both do: Kernels.h).
LogicalResult checkKernelView(Value value, Operation *computation) {
  if (!isLowPrecision(value.getType()))
    return checkFloatView(value, computation->getLoc());
  if (!hasLowPrecisionKernel(computation))
    return computation->emitError("'")
           << computation->getName()
           << "' has no bf16/f16 kernel; keep it in f32 with "
              "--amp-fp32-ops="
           << computation->getName().stripDialect();
  if (cast<mbuf::ViewType>(value.getType()).getShape().size() >
      static_cast<size_t>(rt::kMaxRank))
    return computation->emitError("the backend supports views of rank <= ")
           << rt::kMaxRank << " only, not " << value.getType();
  return success();
}

} // namespace

FailureOr<StepContext> StepContext::build(func::FuncOp step,
                                          NameScope &file) {
  if (!step.getBody().hasOneBlock())
    return step.emitError("the training step must have a single block");
  Block &body = step.getBody().front();
  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  StepContext context;
  context.localScope = std::make_unique<NameScope>(file);
  NameScope &table = *context.localScope;
  // The parameters of the step function, as every view declaration spells
  // them (FunctionPatterns.cpp).
  for (StringRef param : {kArgsName, kResultsName, kArenasName})
    table.reserve(param);

  // Arguments: named after their role's value.
  for (Operation &op : body.without_terminator())
    if (isa<tg::TGDialect>(op.getDialect()))
      return op.emitError("the backend cannot lower this op; run "
                          "-tg-plan-memory first");
  for (BlockArgument arg : body.getArguments()) {
    unsigned index = arg.getArgNumber();
    std::optional<NamedAttribute> role = roleOf(step.getArgAttrDict(index));
    if (!role)
      return emitError(arg.getLoc())
             << "argument " << index << " of the step has no tg role";
    StringRef name = cast<StringAttr>(role->getValue()).getValue();
    bool isSeed =
        role->getName().getValue() == tg::TGDialect::kSeedAttrName;
    if (isSeed && !isStepNumberType(arg.getType()))
      return emitError(arg.getLoc())
             << "the step's seed must be a view<i64>, not " << arg.getType();
    if (isStepNumberType(arg.getType())) {
      context.placements[arg] = {Placement::Kind::StepNumber, index};
    } else {
      if (failed(checkFloatView(arg, arg.getLoc())))
        return failure();
      context.placements[arg] = {Placement::Kind::Argument, index};
    }
    context.names[arg] = table.unique(name);
    if (isSeed)
      context.seedName = context.names[arg];
  }

  // Result buffers: named after their role's value.
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    std::optional<NamedAttribute> role =
        roleOf(step.getResultAttrDict(index));
    if (!role)
      return returnOp.emitError()
             << "result " << index << " of the step has no tg role";
    if (failed(checkFloatView(value, returnOp.getLoc())))
      return failure();
    StringRef roleName = role->getName().getValue();
    StringRef name = cast<StringAttr>(role->getValue()).getValue();
    context.resultNames.push_back(table.unique(
        roleName == kOutputRole ? name.str() : "new_" + name.str()));
  }

  // Views: placed by their op; named by the kernel that writes them first
  // (or, for constants and result buffers, by their op).
  for (Operation &op : body.without_terminator()) {
    if (auto arena = dyn_cast<mbuf::ArenaOp>(op)) {
      ArenaInfo &info = context.arenaInfos[arena.getIndex()];
      info = {arena.getSize(), arena.getSpace(), arena.getDevice()};
      continue;
    }
    if (auto result = dyn_cast<mbuf::ResultOp>(op)) {
      context.placements[result] = {Placement::Kind::Result,
                                    result.getIndex()};
      context.names[result] = context.resultNames[result.getIndex()];
      continue;
    }
    if (isa<mbuf::ViewOp, mbuf::SubviewOp>(op)) {
      std::optional<mbuf::ArenaPlace> place =
          mbuf::arenaPlace(op.getResult(0));
      if (!place)
        return op.emitError("the view's arena must be an mbuf.arena of the "
                            "step");
      context.placements[op.getResult(0)] = {
          Placement::Kind::Arena, static_cast<uint64_t>(place->offset),
          place->arena.getIndex()};
      continue;
    }
    if (auto constant = dyn_cast<mbuf::ConstantOp>(op)) {
      if (!isLowPrecision(constant.getType()) &&
          failed(checkFloatView(constant, op.getLoc())))
        return failure();
      std::string base = "constant";
      if (std::string scope = scopeName(nodeName(op.getLoc())); !scope.empty())
        base += "_" + scope;
      context.names[constant] = table.unique(base);
      context.dataNames[constant] =
          file.unique(context.names[constant] + "_data");
      context.placements[constant] = {Placement::Kind::Constant, 0};
      continue;
    }
    // A pipeline stage's transfers and tg-offload's copies
    // (MBufPatterns.cpp), numbered in the step's order.
    if (isa<mbuf::SendOp, mbuf::RecvOp, mbuf::WaitOp>(op))
      continue;
    if (isa<mbuf::CopyAsyncOp>(op)) {
      std::string name = scopeName(nodeName(op.getLoc()));
      context.copies[&op] = {static_cast<int64_t>(context.copies.size()),
                             name.empty() ? "copy" : name};
      continue;
    }
    auto kernel = dyn_cast<mbuf::KernelOp>(op);
    if (!kernel)
      return op.emitError("the backend cannot lower this op");
    Operation *computation = kernel.getComputation();
    if (!isa<tg::TGDialect>(computation->getDialect()))
      return computation->emitError("the backend cannot lower this op");
    for (auto [arg, in] :
         llvm::zip(kernel.getBody().getArguments(), kernel.getIns()))
      context.kernelViews[arg] = in;
    if (Value workspace = kernel.getWorkspace())
      context.workspaces[computation] = workspace;
    // Dropout and random_uniform draw from the step's seed: a dropout from
    // the stream of its position among the step's dropouts, random_uniform
    // from its stream attribute (which its remat clones keep).
    if (isa<tg::DropoutOp, tg::RandomUniformOp>(computation)) {
      if (context.seedName.empty())
        return computation->emitError()
               << computation->getName()
               << " needs the step's random seed: an argument {tg.seed = "
                  "\"seed\"} of type tensor<i64>, as tg-autodiff adds it";
      if (isa<tg::DropoutOp>(computation)) {
        unsigned stream = context.randomStreams.size();
        context.randomStreams[computation] = stream;
      }
    }
    std::string scope = scopeName(nodeName(computation->getLoc()));
    for (auto [result, out] :
         llvm::zip(computation->getResults(), kernel.getOuts())) {
      context.kernelViews[result] = out;
      if (failed(checkKernelView(out, computation)))
        return failure();
      if (context.names.count(out))
        continue;
      std::string base = opKind(computation);
      if (std::string suffix = resultSuffix(cast<OpResult>(result));
          !suffix.empty())
        base += "_" + suffix;
      if (!scope.empty())
        base += "_" + scope;
      context.names[out] = table.unique(base);
      if (isa<tg::ConstantOp>(computation))
        context.dataNames[out] = file.unique(context.names[out] + "_data");
    }
    // The helpers of the op's call, named after its (first) result.
    if (isa<tg::ConcatOp>(computation))
      context.opNames[computation] =
          table.unique((context.name(computation->getResult(0)) + "_inputs").str());
    if (isa<tg::FusedElementwiseOp>(computation))
      context.opNames[computation] =
          file.unique(("kernel_" + context.name(computation->getResult(0))).str());
    if (isa<tg::GatherOp, tg::GatherBackwardOp>(computation))
      context.opNames[computation] = file.unique(
          (context.name(computation->getResult(0)) + "_indices").str());
  }
  // A view that no kernel writes (read before it is written) is named
  // after nothing; give it a name all the same.
  for (Operation &op : body.without_terminator())
    if (isa<mbuf::ViewOp, mbuf::SubviewOp>(op) &&
        !context.names.count(op.getResult(0)))
      context.names[op.getResult(0)] = table.unique("view");
  return context;
}

Value StepContext::viewOf(Value value) const {
  auto it = kernelViews.find(value);
  return it == kernelViews.end() ? value : it->second;
}

const Placement &StepContext::placement(Value value) const {
  auto it = placements.find(viewOf(value));
  assert(it != placements.end() && "value of another function");
  return it->second;
}

StringRef StepContext::name(Value value) const {
  auto it = names.find(viewOf(value));
  assert(it != names.end() && "value of another function");
  return it->second;
}

StringRef StepContext::dataName(Value value) const {
  auto it = dataNames.find(viewOf(value));
  assert(it != dataNames.end() && "not a constant of the step");
  return it->second;
}

StringRef StepContext::arrayName(Operation *op) const {
  auto it = opNames.find(op);
  assert(it != opNames.end() && isa<tg::ConcatOp>(op) && "not a concat");
  return it->second;
}

StringRef StepContext::indicesName(Operation *op) const {
  auto it = opNames.find(op);
  assert(it != opNames.end() &&
         (isa<tg::GatherOp, tg::GatherBackwardOp>(op)) && "not a gather");
  return it->second;
}

StringRef StepContext::kernelName(Operation *op) const {
  auto it = opNames.find(op);
  assert(it != opNames.end() && isa<tg::FusedElementwiseOp>(op) &&
         "not a fused op");
  return it->second;
}

static std::string shapeOf(Type type) {
  return cppList(cast<mbuf::ViewType>(type).getShape());
}

/// ", memopt::rt::ElementType::BF16" (or F16) for a low-precision view,
/// nothing for f32 (the views' default).
static std::string lowPrecisionTypeArg(Type type) {
  Type element = cast<mbuf::ViewType>(type).getElementType();
  if (element.isBF16())
    return ", memopt::rt::ElementType::BF16";
  if (element.isF16())
    return ", memopt::rt::ElementType::F16";
  return "";
}

std::string StepContext::workspaceAt(Value view) const {
  const Placement &where = placement(view);
  // The size too: the kernel checks its library's scratchpad against it.
  int64_t bytes = cast<mbuf::ViewType>(view.getType()).getNumElements();
  return "memopt::rt::arenaWorkspace(" + kArenasName.str() + "[" +
         std::to_string(where.arena) + "], " + std::to_string(where.index) +
         ", " + std::to_string(bytes) + ")";
}

Value StepContext::declareView(OpBuilder &builder, Location loc,
                               Value value) const {
  const Placement &where = placement(value);
  StringRef cppName = name(value);
  std::string decl;
  llvm::raw_string_ostream os(decl);
  Type viewType = tensorViewType(builder.getContext());
  switch (where.kind) {
  case Placement::Kind::StepNumber:
    os << "const int64_t " << cppName << " = memopt::rt::bufferInt64("
       << kArgsName << ", " << where.index << ");";
    viewType = builder.getI64Type();
    break;
  case Placement::Kind::Argument:
  case Placement::Kind::Result:
    os << "memopt::rt::Tensor " << cppName << " = memopt::rt::bufferTensor("
       << (where.kind == Placement::Kind::Argument ? kArgsName : kResultsName)
       << ", " << where.index << ", " << shapeOf(value.getType()) << ");";
    break;
  case Placement::Kind::Arena:
    os << "memopt::rt::Tensor " << cppName << " = memopt::rt::arenaTensor("
       << kArenasName << "[" << where.arena << "], " << where.index << ", "
       << shapeOf(value.getType()) << lowPrecisionTypeArg(value.getType())
       << ");";
    break;
  case Placement::Kind::Constant:
    if (isLowPrecision(value.getType()))
      os << "memopt::rt::Tensor " << cppName << "(reinterpret_cast<float *>("
         << dataName(value) << "), " << shapeOf(value.getType())
         << lowPrecisionTypeArg(value.getType()) << ");";
    else
      os << "memopt::rt::Tensor " << cppName << "(" << dataName(value)
         << ", " << shapeOf(value.getType()) << ");";
    break;
  }
  emitc::VerbatimOp::create(builder, loc, decl);
  return emitc::LiteralOp::create(builder, loc, viewType, cppName);
}

Value StepContext::resultView(OpBuilder &builder, Location loc,
                              Value result) const {
  return emitc::LiteralOp::create(
      builder, loc, tensorViewType(builder.getContext()), name(result));
}

Value StepContext::declareResultBuffer(OpBuilder &builder, Location loc,
                                       unsigned index, Type type) const {
  std::string decl = "memopt::rt::Tensor " + resultNames[index] +
                     " = memopt::rt::bufferTensor(" + kResultsName.str() +
                     ", " + std::to_string(index) + ", " + shapeOf(type) +
                     ");";
  emitc::VerbatimOp::create(builder, loc, decl);
  return emitc::LiteralOp::create(builder, loc,
                                  tensorViewType(builder.getContext()),
                                  resultNames[index]);
}

std::string StepContext::randomSeed(Operation *op) const {
  if (auto random = dyn_cast<tg::RandomUniformOp>(op))
    return "memopt::rt::randomUniformSeed(" + seedName + ", " +
           std::to_string(random.getStream()) + ")";
  auto it = randomStreams.find(op);
  assert(it != randomStreams.end() && "not a dropout of the step");
  return "memopt::rt::streamSeed(" + seedName + ", " +
         std::to_string(it->second) + ")";
}

std::string StepContext::workspace(Operation *op) const {
  auto it = workspaces.find(op);
  if (it == workspaces.end())
    return "nullptr";
  return workspaceAt(it->second);
}
