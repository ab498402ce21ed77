//===- Program.cpp - The Program of the model and main --------------------===//
//
// Around the step function the generated file holds the runtime headers,
// the TensorSpecs of the step's arguments and results, the ArenaSpecs of
// its arenas, the Program that ties them to the step and names the weights
// file the binary reads its initial weights from, and
// `main`, which hands the Program to memopt::rt::trainerMain. A pipeline
// (tg-partition) has one Program per stage, and `main` hands them to
// memopt::rt::stageMain, which picks its rank's.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

FailureOr<StepSignature> StepSignature::read(func::FuncOp step, bool stage) {
  StepSignature signature;
  auto readSpec = [&](DictionaryAttr attrs, Type type,
                      Location loc) -> FailureOr<TensorSpecInfo> {
    for (NamedAttribute attr : attrs ? attrs.getValue()
                                     : ArrayRef<NamedAttribute>()) {
      StringRef role =
          llvm::StringSwitch<StringRef>(attr.getName().getValue())
              .Case("tg.input", "Input")
              .Case("tg.target", "Target")
              .Case("tg.param", "Param")
              .Case("tg.state", "State")
              .Case("tg.opt_state", "OptState")
              .Case("tg.step", "Step")
              .Case("tg.output", "Output")
              .Case("tg.seed", "Seed")
              .Case("tg.loss_scale", "LossScale")
              .Default("");
      auto name = dyn_cast<StringAttr>(attr.getValue());
      if (role.empty() || !name)
        continue;
      auto view = cast<mbuf::ViewType>(type);
      Type element = view.getElementType();
      StringRef elementType = element.isInteger(64) ? "I64"
                              : element.isBF16()    ? "BF16"
                              : element.isF16()     ? "F16"
                                                    : "F32";
      return TensorSpecInfo{name.str(), role.str(), elementType.str(),
                            llvm::to_vector(view.getShape())};
    }
    return emitError(loc) << "a value of the step has no tg role";
  };
  for (auto [index, type] : llvm::enumerate(step.getArgumentTypes())) {
    FailureOr<TensorSpecInfo> spec =
        readSpec(step.getArgAttrDict(index), type, step.getLoc());
    if (failed(spec))
      return failure();
    signature.args.push_back(*spec);
  }
  std::optional<unsigned> loss;
  for (auto [index, type] : llvm::enumerate(step.getResultTypes())) {
    FailureOr<TensorSpecInfo> spec =
        readSpec(step.getResultAttrDict(index), type, step.getLoc());
    if (failed(spec))
      return failure();
    if (!loss && spec->role == "Output" && spec->shape.empty())
      loss = index;
    signature.results.push_back(*spec);
  }
  if (!loss && !stage)
    return step.emitError("the step has no rank-0 output (the loss)");
  // The step's segmentation loss against a class map (in the planned step
  // it sits inside the kernel op that places it) gives the class count.
  step.walk([&](Operation *op) {
    if (!isa<tg::CrossEntropyLossOp, tg::DiceLossOp>(op))
      return;
    auto logits = cast<RankedTensorType>(op->getOperand(0).getType());
    auto target = cast<RankedTensorType>(op->getOperand(1).getType());
    if (logits.getRank() == target.getRank() + 1)
      signature.targetClasses = logits.getDimSize(1);
  });

  signature.lossIndex = loss ? static_cast<int>(*loss) : -1;
  return signature;
}

/// `static const memopt::rt::TensorSpec <name>[] = {...};`, one spec per
/// line.
static void emitSpecs(OpBuilder &builder, Location loc, StringRef name,
                      ArrayRef<TensorSpecInfo> specs) {
  std::string init = "{";
  for (const TensorSpecInfo &spec : specs) {
    init +=
        "\n    {" + cppString(spec.name) + ", memopt::rt::Role::" + spec.role +
        ", memopt::rt::ElementType::" + spec.elementType + ", " +
        std::to_string(spec.shape.size()) + ", " + cppList(spec.shape) + "},";
  }
  init += "\n}";
  MLIRContext *context = builder.getContext();
  auto type = emitc::ArrayType::get(
      {static_cast<int64_t>(std::max<size_t>(specs.size(), 1))},
      emitc::OpaqueType::get(context, "memopt::rt::TensorSpec"));
  emitc::GlobalOp::create(builder, loc, name, type,
                          emitc::OpaqueAttr::get(context, init),
                          /*externSpecifier=*/false, /*staticSpecifier=*/true,
                          /*constSpecifier=*/true);
}

/// `static const memopt::rt::ArenaSpec <name>[] = {...};`, by index. A
/// pipeline stage's arenas, planned on the device of its index, are on
/// device 0 of the stage's own process (`onOwnDevice`).
static void emitArenas(OpBuilder &builder, Location loc, StringRef name,
                       const std::map<uint64_t, ArenaInfo> &arenas,
                       bool onOwnDevice) {
  std::string init = "{";
  for (const auto &[index, arena] : arenas)
    init +=
        "\n    {" + std::to_string(arena.bytes) +
        ", memopt::rt::MemorySpace::" +
        (arena.space == mbuf::MemorySpace::Device ? "Device" : "PinnedHost") +
        ", " + std::to_string(onOwnDevice ? 0 : arena.device) + "},";
  init += "\n}";
  MLIRContext *context = builder.getContext();
  auto type = emitc::ArrayType::get(
      {static_cast<int64_t>(std::max<size_t>(arenas.size(), 1))},
      emitc::OpaqueType::get(context, "memopt::rt::ArenaSpec"));
  emitc::GlobalOp::create(builder, loc, name, type,
                          emitc::OpaqueAttr::get(context, init),
                          /*externSpecifier=*/false, /*staticSpecifier=*/true,
                          /*constSpecifier=*/true);
}

std::string memopt::codegen::partGlobalName(StringRef base, unsigned index,
                                            unsigned numParts) {
  return numParts > 1 ? (base + Twine(index)).str() : base.str();
}

/// The spec of the data's `role` ("Input" or "Target") among the parts'
/// arguments (a pipeline stage may lack it, another stage takes it).
static const TensorSpecInfo *dataSpec(ArrayRef<ProgramPart> parts,
                                      StringRef role) {
  for (const ProgramPart &part : parts)
    for (const TensorSpecInfo &spec : part.signature.args)
      if (spec.role == role)
        return &spec;
  return nullptr;
}

void memopt::codegen::emitProgram(ModuleOp module, ArrayRef<ProgramPart> parts,
                                  StringRef modelName, StringRef weightsFile,
                                  std::optional<double> learningRate,
                                  bool hasEvalStep, int64_t replicas,
                                  StringRef evalRefusal) {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  bool pipeline = parts.size() > 1;
  // Several processes (stages, replicas or both): MPI's stageMain.
  bool multiProcess = pipeline || replicas > 1;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  // A comment line: the name without line breaks, control bytes or a
  // backslash (which would continue the comment onto the next line).
  std::string printableName = modelName.str();
  for (char &c : printableName)
    if (!llvm::isPrint(c) || c == '\\')
      c = '?';
  emitc::VerbatimOp::create(
      builder, loc,
      ("// The training step of " + StringRef(printableName) +
       ", generated by memopt (convert-tg-to-emitc). Do not edit.")
          .str());
  SmallVector<StringRef> headers = {
      "memopt/Runtime/Kernels.h", "memopt/Runtime/Program.h",
      "memopt/Runtime/StepSupport.h", "memopt/Runtime/StepTrace.h",
      "memopt/Runtime/Copy.h"};
  if (multiProcess)
    headers.append(
        {"memopt/Runtime/StageGroup.h", "memopt/Runtime/Transfer.h"});
  for (StringRef header : headers)
    emitc::IncludeOp::create(builder, loc, header, /*isStandardInclude=*/false);
  emitc::IncludeOp::create(builder, loc, "limits", /*isStandardInclude=*/true);
  // The updates read the learning rate at run time; the trainer's --lr
  // overwrites this compiled default.
  if (learningRate)
    emitc::GlobalOp::create(
        builder, loc, kLearningRateName, builder.getF64Type(),
        emitc::OpaqueAttr::get(context, cppDouble(*learningRate)),
        /*externSpecifier=*/false, /*staticSpecifier=*/true,
        /*constSpecifier=*/false);

  builder.setInsertionPointToEnd(module.getBody());
  // A pipeline's stages all know the shapes of the data's batches.
  // (Data-parallel replicas of one stage read the data themselves.)
  std::string dataSpecs = "";
  if (multiProcess) {
    for (StringRef role : {"Input", "Target"}) {
      std::string name = ("kData" + role).str();
      const TensorSpecInfo *spec = pipeline ? dataSpec(parts, role) : nullptr;
      if (pipeline)
        emitSpecs(builder, loc, name,
                  spec ? ArrayRef<TensorSpecInfo>(*spec)
                       : ArrayRef<TensorSpecInfo>());
      dataSpecs += ",\n    /*data" + role.str() + "=*/" +
                   (spec ? name : std::string("nullptr"));
    }
  }

  std::string programs;
  for (auto [index, part] : llvm::enumerate(parts)) {
    auto name = [&](StringRef base) {
      return partGlobalName(base, index, parts.size());
    };
    emitSpecs(builder, loc, name(kArgsSpecsName), part.signature.args);
    emitSpecs(builder, loc, name(kResultsSpecsName), part.signature.results);
    emitArenas(builder, loc, name(kArenasSpecsName), part.arenas, pipeline);
    llvm::raw_string_ostream os(programs);
    os << (index ? "," : "") << "{\n    /*modelName=*/" << cppString(modelName)
       << ",\n    /*args=*/" << name(kArgsSpecsName) << ", /*numArgs=*/"
       << part.signature.args.size() << ",\n    /*results=*/"
       << name(kResultsSpecsName) << ", "
       << "/*numResults=*/" << part.signature.results.size()
       << ",\n    /*lossIndex=*/" << part.signature.lossIndex
       << ",\n    /*arenas=*/" << name(kArenasSpecsName) << ", /*numArenas=*/"
       << part.arenas.size() << ",\n    /*weightsFile=*/"
       << (weightsFile.empty() ? std::string("nullptr")
                               : cppString(weightsFile))
       << ",\n    /*step=*/"
       << part.stepName << ",\n    /*learningRate=*/"
       << (learningRate ? "&" + kLearningRateName.str() : "nullptr")
       << ",\n    /*evalStep=*/"
       << (hasEvalStep ? StringRef(kEvalFunctionName) : StringRef("nullptr"))
       << ",\n    /*targetClasses=*/" << part.signature.targetClasses
       << (multiProcess ? dataSpecs
                        : ",\n    /*dataInput=*/nullptr, /*dataTarget=*/nullptr")
       << ",\n    /*threads=*/" << part.threads;
    // Sizes the staging buffer of a CUDA binary's exchange (Exchange.h).
    if (multiProcess || !evalRefusal.empty())
      os << ",\n    /*exchangeBytes=*/" << part.exchangeBytes;
    if (!evalRefusal.empty())
      os << ",\n    /*evalRefusal=*/" << cppString(evalRefusal);
    os << ",\n}";
  }
  Type programType = emitc::OpaqueType::get(context, "memopt::rt::Program");
  if (multiProcess)
    emitc::GlobalOp::create(
        builder, loc, kProgramName,
        emitc::ArrayType::get({static_cast<int64_t>(parts.size())},
                              programType),
        emitc::OpaqueAttr::get(context, "{" + programs + "}"),
        /*externSpecifier=*/false, /*staticSpecifier=*/true,
        /*constSpecifier=*/true);
  else
    emitc::GlobalOp::create(builder, loc, kProgramName, programType,
                            emitc::OpaqueAttr::get(context, programs),
                            /*externSpecifier=*/false,
                            /*staticSpecifier=*/true, /*constSpecifier=*/true);

  // int main(int argc, char **argv) {
  //   return memopt::rt::trainerMain(argc, argv, kProgram);
  //   (S stages, R replicas:
  //    return memopt::rt::stageMain(argc, argv, kProgram, S, R);)
  // }
  Type argvType = emitc::PointerType::get(
      emitc::PointerType::get(emitc::OpaqueType::get(context, "char")));
  auto intType = emitc::OpaqueType::get(context, "int");
  auto mainFunc = emitc::FuncOp::create(
      builder, loc, "main",
      FunctionType::get(context, {intType, argvType}, {intType}));
  Block *entry = mainFunc.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  Value programValue =
      emitc::LiteralOp::create(builder, loc, programType, kProgramName);
  SmallVector<Attribute> args;
  for (int64_t i = 0; i < 3; ++i)
    args.push_back(builder.getIndexAttr(i));
  if (multiProcess) {
    args.push_back(
        emitc::OpaqueAttr::get(context, std::to_string(parts.size())));
    args.push_back(emitc::OpaqueAttr::get(context, std::to_string(replicas)));
  }
  auto call = emitc::CallOpaqueOp::create(
      builder, loc, TypeRange{intType},
      multiProcess ? "memopt::rt::stageMain" : "memopt::rt::trainerMain",
      ValueRange{entry->getArgument(0), entry->getArgument(1), programValue},
      builder.getArrayAttr(args), ArrayAttr());
  emitc::ReturnOp::create(builder, loc, call.getResult(0));
}
