//===- TGToEmitC.cpp - The convert-tg-to-emitc pass -----------------------===//
//
// Lays out the step (StepContext: names, placements from the memory plan
// that tg-plan-memory recorded), converts
// its ops to EmitC with one pattern family per file, then adds the Program
// and main (Program.cpp).
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/Path.h"

namespace memopt {
#define GEN_PASS_DEF_CONVERTTGTOEMITC
#include "memopt/Conversion/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

/// The threads `func`'s CPU workspaces were sized for (0: not recorded).
static int64_t plannedThreads(func::FuncOp func) {
  auto threads = func->getAttrOfType<IntegerAttr>(kWorkspaceThreadsAttr);
  return threads ? threads.getInt() : 0;
}

namespace {

/// Float views (and the tensors of kernel bodies) become C++ views, the
/// rank-0 step number an int64_t, a workspace and an arena pointers.
class ViewTypeConverter : public TypeConverter {
public:
  ViewTypeConverter() {
    addConversion([](Type type) -> std::optional<Type> {
      if (emitc::isSupportedEmitCType(type))
        return type;
      return std::nullopt;
    });
    addConversion([](RankedTensorType type) -> std::optional<Type> {
      if (type.getElementType().isF32() || type.getElementType().isBF16() ||
          type.getElementType().isF16())
        return tensorViewType(type.getContext());
      if (type.getRank() == 0 && type.getElementType().isInteger(64))
        return IntegerType::get(type.getContext(), 64);
      return std::nullopt;
    });
    // A transfer's token: complete when its blocking call returns.
    addConversion([](mbuf::TokenType type) -> Type {
      return emitc::OpaqueType::get(type.getContext(), "int");
    });
    // An arena is the `void *` of `arenas[index]`.
    addConversion([](mbuf::ArenaType type) -> Type {
      return emitc::PointerType::get(
          emitc::OpaqueType::get(type.getContext(), "void"));
    });
    addConversion([](mbuf::ViewType type) -> std::optional<Type> {
      MLIRContext *context = type.getContext();
      if (type.getElementType().isF32() || type.getElementType().isBF16() ||
          type.getElementType().isF16())
        return tensorViewType(context);
      if (type.getElementType().isInteger(8))
        return emitc::PointerType::get(emitc::OpaqueType::get(context, "void"));
      if (type.getShape().empty() && type.getElementType().isInteger(64))
        return IntegerType::get(context, 64);
      return std::nullopt;
    });
  }
};

/// The model's name: the option, or the stem of the imported file.
std::string modelNameOf(ModuleOp module, StringRef option) {
  if (!option.empty())
    return option.str();
  if (auto path = module->getAttrOfType<StringAttr>("tg.onnx_model"))
    return llvm::sys::path::stem(path.getValue()).str();
  return "model";
}

/// Whether @eval_step can share the trainer's buffers with `step`: the same
/// arguments, and results that are the first results of `step`, all
/// forward outputs (Program::evalStep).
LogicalResult checkEvalSignature(func::FuncOp eval, func::FuncOp step) {
  bool same = eval.getArgumentTypes() == step.getArgumentTypes() &&
              eval.getNumResults() <= step.getNumResults();
  for (unsigned i = 0, e = eval.getNumArguments(); same && i < e; ++i)
    same = eval.getArgAttrDict(i) == step.getArgAttrDict(i);
  for (unsigned i = 0, e = eval.getNumResults(); same && i < e; ++i)
    same = eval.getResultTypes()[i] == step.getResultTypes()[i] &&
           eval.getResultAttrDict(i) == step.getResultAttrDict(i) &&
           eval.getResultAttr(i, "tg.output");
  if (same)
    return success();
  return eval.emitOpError()
         << "must take the arguments of @" << step.getSymName()
         << " and return its first results, forward outputs only (as "
            "tg-autodiff{eval-step=true} emits it)";
}

class ConvertTGToEmitCPass
    : public memopt::impl::ConvertTGToEmitCBase<ConvertTGToEmitCPass> {
public:
  using ConvertTGToEmitCBase::ConvertTGToEmitCBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp stepFunc, evalFunc;
    unsigned numSteps = 0;
    SmallVector<func::FuncOp> stages;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      if (StageAttr stage = getDecision<StageAttr>(func)) {
        StringAttr of = stage.getOf();
        if (of && of.getValue() == kEvalFunctionName) {
          func.emitError("convert-tg-to-emitc: @")
              << func.getSymName()
              << " is a pipeline stage of the evaluation step, which the "
                 "multi-process trainer does not run yet: build the step "
                 "without @"
              << kEvalFunctionName << " (tg-autodiff eval-step=false)";
          return signalPassFailure();
        }
        stages.push_back(func);
        continue;
      }
      if (func.getSymName() == kEvalFunctionName) {
        evalFunc = func;
      } else {
        stepFunc = func;
        ++numSteps;
      }
    }
    if (!stages.empty()) {
      if (numSteps != 0 || evalFunc) {
        module.emitError("expected only the pipeline stages of one step "
                         "(tg-partition) besides them, found @")
            << (evalFunc ? evalFunc : stepFunc).getSymName();
        return signalPassFailure();
      }
      if (failed(convertStages(module, stages)))
        return signalPassFailure();
      return;
    }
    if (numSteps != 1) {
      module.emitError("expected one func.func (the training step) besides "
                       "an optional @")
          << kEvalFunctionName << ", found " << numSteps;
      return signalPassFailure();
    }

    FailureOr<TargetAttr> target = lookupTarget(module, "convert-tg-to-emitc");
    if (failed(target))
      return signalPassFailure();
    bool cuda = target->getBackend() == Backend::cuda;
    FailureOr<StepSignature> signature = StepSignature::read(stepFunc);
    if (failed(signature) ||
        (evalFunc && failed(checkEvalSignature(evalFunc, stepFunc))))
      return signalPassFailure();
    // One scope owns every file-scope identifier; the step functions' scopes
    // nest in it.
    NameScope file;
    for (StringRef fixed : {kStepFunctionName, kEvalFunctionName,
                            kLearningRateName, kArgsSpecsName,
                            kResultsSpecsName, kArenasSpecsName, kProgramName})
      file.reserve(fixed);
    FailureOr<StepContext> step = StepContext::build(stepFunc, file);
    if (failed(step))
      return signalPassFailure();
    std::optional<StepContext> eval;
    if (evalFunc) {
      FailureOr<StepContext> built = StepContext::build(evalFunc, file);
      if (failed(built))
        return signalPassFailure();
      eval = std::move(*built);
    }
    for (auto [index, value] : llvm::enumerate(
             stepFunc.getBody().front().getTerminator()->getOperands())) {
      const Placement &where = step->placement(value);
      if (where.kind != Placement::Kind::Result || where.index != index)
        ++numResultCopies;
    }
    // A fused op is one kernel; the ops of its body are not calls.
    for (func::FuncOp func : {stepFunc, evalFunc}) {
      if (!func)
        continue;
      for (auto kernel : func.getBody().front().getOps<mbuf::KernelOp>()) {
        Operation *op = kernel.getComputation();
        if (isa<tg::FusedElementwiseOp>(op) && !cuda) {
          op->emitError("tg.fused_elementwise needs #memopt.target<cuda> (run "
                        "tg-fuse-elementwise for the CUDA backend only)");
          return signalPassFailure();
        }
        if (!isa<tg::ConstantOp>(op))
          ++numKernelCalls;
      }
    }
    // Training and evaluation never run at the same time: an arena index
    // serves both, with the larger size.
    std::map<uint64_t, ArenaInfo> arenas = step->arenas();
    if (eval)
      for (auto [index, info] : eval->arenas()) {
        auto [it, inserted] = arenas.try_emplace(index, info);
        if (!inserted && (it->second.space != info.space ||
                          it->second.device != info.device)) {
          evalFunc.emitError("arena ")
              << index << " differs in memory space or device from the "
              << "training step's";
          return signalPassFailure();
        }
        it->second.bytes = std::max(it->second.bytes, info.bytes);
      }
    uint64_t arenaBytes = 0;
    for (auto [position, entry] : llvm::enumerate(arenas)) {
      // Program::arenas is indexed by the arena's index.
      if (entry.first != position) {
        stepFunc.emitError("the arenas must be numbered 0, 1, ... without "
                           "gaps; arena ")
            << position << " is missing";
        return signalPassFailure();
      }
      // The device's arenas: tg-offload's pinned host pool is host memory.
      if (entry.second.space == mbuf::MemorySpace::Device)
        arenaBytes += entry.second.bytes;
    }
    numArenaBytes = arenaBytes;

    std::optional<double> learningRate = sharedLearningRate(stepFunc);
    int64_t threads = plannedThreads(stepFunc);
    // Read from the mbuf step, before the conversion replaces it.
    uint64_t exchangeBytes = largestExchangeBytes(stepFunc);
    if (failed(convert(stepFunc, *step, kStepFunctionName,
                       learningRate.has_value(), cuda)) ||
        (evalFunc && failed(convert(evalFunc, *eval, kEvalFunctionName,
                                    /*runtimeLearningRate=*/false, cuda))))
      return signalPassFailure();

    if (failed(splitFunctions(module, file)))
      return signalPassFailure();

    emitProgram(module,
                {ProgramPart{*signature, arenas, kStepFunctionName.str(),
                             threads, exchangeBytes}},
                modelNameOf(module, modelName), weightsFile, learningRate,
                static_cast<bool>(evalFunc), replicasOf(module),
                evalRefusalOf(module, evalFunc));
    finishModule(module, cuda, arenaBytes);
  }

private:
  /// Why tg-autodiff emitted no @eval_step (tg.eval_refusal), for the
  /// trainer's --val-data; empty with an @eval_step or no reason.
  static std::string evalRefusalOf(ModuleOp module, func::FuncOp evalFunc) {
    auto refusal =
        module->getAttrOfType<StringAttr>(tg::kEvalRefusalAttrName);
    return refusal && !evalFunc ? refusal.getValue().str() : std::string();
  }

  /// tg-data-parallel's replicas (1: none).
  static int64_t replicasOf(ModuleOp module) {
    auto replicas =
        module->getAttrOfType<IntegerAttr>("memopt.data_parallel");
    return replicas ? replicas.getInt() : 1;
  }

  /// Bounded functions keep the C++ compiler's time linear in the model.
  LogicalResult splitFunctions(ModuleOp module, NameScope &file) {
    for (auto func : llvm::to_vector(module.getOps<emitc::FuncOp>())) {
      FailureOr<unsigned> parts =
          splitStepFunction(func, maxCallsPerFunction, file);
      if (failed(parts))
        return failure();
      if (*parts > 1)
        numStepParts += *parts;
    }
    return success();
  }

  /// The CUDA launch header, the importer's attributes dropped, the bytes
  /// of all arenas recorded.
  void finishModule(ModuleOp module, bool cuda, uint64_t arenaBytes) {
    if (cuda) {
      // The generated kernels launch on the CUDA runtime's stream.
      auto includes = llvm::to_vector(module.getOps<emitc::IncludeOp>());
      OpBuilder builder(module.getContext());
      builder.setInsertionPointAfter(includes.back());
      emitc::IncludeOp::create(builder, module.getLoc(),
                               "memopt/Runtime/CUDA/Launch.h",
                               /*isStandardInclude=*/false);
    }
    // The importer's module attributes describe the tg module; the bytes
    // of all arenas are visible in the IR (and read by memopt-compile's
    // report).
    for (NamedAttribute attr : llvm::to_vector(module->getAttrs()))
      if (attr.getName().getValue().starts_with("tg."))
        module->removeAttr(attr.getName());
    module->setAttr(kArenaBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     arenaBytes));
  }

  /// The arenas of `step`, checked to be numbered 0, 1, ... without gaps.
  static FailureOr<std::map<uint64_t, ArenaInfo>>
  numberedArenas(func::FuncOp func, const StepContext &step) {
    std::map<uint64_t, ArenaInfo> arenas = step.arenas();
    for (auto [position, entry] : llvm::enumerate(arenas))
      if (entry.first != position)
        return func.emitError("the arenas must be numbered 0, 1, ... "
                              "without gaps; arena ")
               << position << " is missing";
    return arenas;
  }

  /// The pipeline stages of tg-partition, in stage order: one C++ step
  /// function and one Program each, run by stageMain (one MPI rank per
  /// stage); their mbuf.send / mbuf.recv become MPI transfers.
  LogicalResult convertStages(ModuleOp module,
                              SmallVector<func::FuncOp> &stages) {
    auto indexOf = [](func::FuncOp func) {
      return getDecision<StageAttr>(func).getIndex();
    };
    llvm::sort(stages, [&](func::FuncOp a, func::FuncOp b) {
      return indexOf(a) < indexOf(b);
    });
    for (auto [position, func] : llvm::enumerate(stages))
      if (indexOf(func) != static_cast<int64_t>(position))
        return func.emitError("the pipeline stages must be numbered 0, 1, "
                              "... without gaps; stage ")
               << position << " is missing";
    FailureOr<TargetAttr> target = lookupTarget(module, "convert-tg-to-emitc");
    if (failed(target))
      return failure();
    // The transfers are the same calls on both backends: the runtime
    // linked in (MPI on host memory, or the CUDA exchange) implements them.
    bool cuda = target->getBackend() == Backend::cuda;
    NameScope file;
    for (StringRef fixed :
         {StringRef(kLearningRateName), StringRef(kProgramName),
          StringRef("kDataInput"), StringRef("kDataTarget")})
      file.reserve(fixed);
    std::vector<ProgramPart> parts;
    for (auto [index, func] : llvm::enumerate(stages)) {
      ProgramPart part;
      part.stepName = partGlobalName(kStepFunctionName, index, stages.size());
      part.threads = plannedThreads(func);
      file.reserve(part.stepName);
      for (StringRef base :
           {kArgsSpecsName, kResultsSpecsName, kArenasSpecsName})
        file.reserve(partGlobalName(base, index, stages.size()));
      parts.push_back(std::move(part));
    }
    // Every stage's updates read the one learning rate (a stage may have
    // none).
    std::optional<double> learningRate;
    for (func::FuncOp func : stages) {
      std::optional<double> rate = sharedLearningRate(func);
      if (rate && learningRate && *rate != *learningRate)
        return func.emitError("the stages' optimizer updates disagree on "
                              "the learning rate");
      if (rate)
        learningRate = rate;
    }
    uint64_t arenaBytes = 0;
    for (auto [func, part] : llvm::zip(stages, parts)) {
      FailureOr<StepSignature> signature =
          StepSignature::read(func, /*stage=*/true);
      FailureOr<StepContext> step =
          StepContext::build(func, file);
      if (failed(signature) || failed(step))
        return failure();
      FailureOr<std::map<uint64_t, ArenaInfo>> arenas =
          numberedArenas(func, *step);
      if (failed(arenas))
        return failure();
      part.signature = std::move(*signature);
      part.arenas = std::move(*arenas);
      part.exchangeBytes = largestExchangeBytes(func);
      for (const auto &entry : part.arenas)
        arenaBytes += entry.second.bytes;
      if (failed(convert(func, *step, part.stepName, learningRate.has_value(),
                         cuda)))
        return failure();
    }
    int numLosses = llvm::count_if(parts, [](const ProgramPart &part) {
      return part.signature.lossIndex >= 0;
    });
    if (numLosses != 1)
      return module.emitError("expected one pipeline stage to return the "
                              "loss (a rank-0 output), found ")
             << numLosses;
    numArenaBytes = arenaBytes;
    if (failed(splitFunctions(module, file)))
      return failure();
    emitProgram(module, parts, modelNameOf(module, modelName), weightsFile,
                learningRate, /*hasEvalStep=*/false, replicasOf(module));
    finishModule(module, cuda, arenaBytes);
    return success();
  }

  /// Converts `func` with the names and placements of `step` into the C++
  /// function `cppName`.
  LogicalResult convert(func::FuncOp func, const StepContext &step,
                        StringRef cppName, bool runtimeLearningRate,
                        bool cuda) {
    ViewTypeConverter converter;
    RewritePatternSet patterns(&getContext());
    populateFunctionPatterns(converter, patterns, step, cppName);
    populateMBufPatterns(converter, patterns, step);
    populateConvolutionPatterns(converter, patterns, step);
    populateNormalizationPatterns(converter, patterns, step);
    populateElementwisePatterns(converter, patterns, step);
    populatePoolingPatterns(converter, patterns, step);
    populateShapePatterns(converter, patterns, step);
    populateLinearAlgebraPatterns(converter, patterns, step);
    populateLossPatterns(converter, patterns, step);
    populateSegmentationPatterns(converter, patterns, step);
    populateOptimizerPatterns(converter, patterns, step, runtimeLearningRate);
    if (cuda)
      populateFusedElementwisePatterns(converter, patterns, step);

    ConversionTarget target(getContext());
    target.addLegalDialect<emitc::EmitCDialect>();
    target.addIllegalDialect<tg::TGDialect, mbuf::MBufDialect,
                             func::FuncDialect>();
    return applyPartialConversion(func.getOperation(), target,
                                  std::move(patterns));
  }
};

} // namespace
