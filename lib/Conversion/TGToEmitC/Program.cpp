//===- Program.cpp - The Program of the model and main --------------------===//
//
// Around the step function the generated file holds the runtime headers,
// the TensorSpecs of the step's arguments and results, the ArenaSpecs of
// its arenas, the Program that ties them to the step and the embedded ONNX
// model, and
// `main`, which hands the Program to memopt::rt::trainerMain.
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

FailureOr<StepSignature> StepSignature::read(func::FuncOp step) {
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
  if (!loss)
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

  signature.lossIndex = *loss;
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

/// `static const memopt::rt::ArenaSpec kArenas[] = {...};`, by index.
static void emitArenas(OpBuilder &builder, Location loc,
                       const std::map<uint64_t, ArenaInfo> &arenas) {
  std::string init = "{";
  for (const auto &[index, arena] : arenas)
    init += "\n    {" + std::to_string(arena.bytes) +
            ", memopt::rt::MemorySpace::" +
            (arena.space == mbuf::MemorySpace::Device ? "Device"
                                                      : "PinnedHost") +
            ", " + std::to_string(arena.device) + "},";
  init += "\n}";
  MLIRContext *context = builder.getContext();
  auto type = emitc::ArrayType::get(
      {static_cast<int64_t>(std::max<size_t>(arenas.size(), 1))},
      emitc::OpaqueType::get(context, "memopt::rt::ArenaSpec"));
  emitc::GlobalOp::create(builder, loc, kArenasSpecsName, type,
                          emitc::OpaqueAttr::get(context, init),
                          /*externSpecifier=*/false, /*staticSpecifier=*/true,
                          /*constSpecifier=*/true);
}

void memopt::codegen::emitProgram(ModuleOp module,
                                  const StepSignature &signature,
                                  StringRef modelName,
                                  const std::map<uint64_t, ArenaInfo> &arenas,
                                  std::optional<double> learningRate,
                                  bool hasEvalStep) {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
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
  for (StringRef header :
       {"memopt/Runtime/Kernels.h", "memopt/Runtime/Program.h",
        "memopt/Runtime/StepSupport.h", "memopt/Runtime/StepTrace.h"})
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
  emitc::VerbatimOp::create(
      builder, loc,
      ("// The ONNX model, embedded by memopt-compile (.incbin).\nextern const "
       "unsigned char " +
       kOnnxModelSymbol + "[];\nextern const size_t " + kOnnxModelSizeSymbol +
       ";")
          .str());
  emitSpecs(builder, loc, kArgsSpecsName, signature.args);
  emitSpecs(builder, loc, kResultsSpecsName, signature.results);
  emitArenas(builder, loc, arenas);

  std::string program = "{";
  llvm::raw_string_ostream os(program);
  os << "\n    /*modelName=*/" << cppString(modelName) << ",\n    /*args=*/"
     << kArgsSpecsName << ", /*numArgs=*/" << signature.args.size()
     << ",\n    /*results=*/" << kResultsSpecsName << ", "
     << "/*numResults=*/" << signature.results.size() << ",\n    /*lossIndex=*/"
     << signature.lossIndex << ",\n    /*arenas=*/" << kArenasSpecsName
     << ", /*numArenas=*/"
     << arenas.size()
     << ",\n    /*onnxModel=*/" << kOnnxModelSymbol
     << ", /*onnxModelSize=*/" << kOnnxModelSizeSymbol
     << ",\n    /*step=*/" << kStepFunctionName << ",\n    /*learningRate=*/"
     << (learningRate ? "&" + kLearningRateName.str() : "nullptr")
     << ",\n    /*evalStep=*/"
     << (hasEvalStep ? StringRef(kEvalFunctionName) : StringRef("nullptr"))
     << ",\n    /*targetClasses=*/" << signature.targetClasses << ",\n}";
  Type programType = emitc::OpaqueType::get(context, "memopt::rt::Program");
  emitc::GlobalOp::create(builder, loc, kProgramName, programType,
                          emitc::OpaqueAttr::get(context, program),
                          /*externSpecifier=*/false, /*staticSpecifier=*/true,
                          /*constSpecifier=*/true);

  // int main(int argc, char **argv) {
  //   return memopt::rt::trainerMain(argc, argv, kProgram);
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
  auto call = emitc::CallOpaqueOp::create(
      builder, loc, TypeRange{intType}, "memopt::rt::trainerMain",
      ValueRange{entry->getArgument(0), entry->getArgument(1), programValue});
  emitc::ReturnOp::create(builder, loc, call.getResult(0));
}
