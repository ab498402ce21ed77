//===- GraphImporter.cpp - ONNX graph to tg ops ---------------------------===//
//
// Walks the ONNX nodes in order. Values known at import time (constants and
// everything computed from them, such as shape subgraphs) stay host tensors;
// the rest become tg ops. Initializers become `@main` arguments the first
// time a tg op reads them, so those only read by shape arithmetic do not.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "ConstantFolding.h"
#include "ModelLoader.h"
#include "OnnxAttributes.h"

#include "memopt/Dialect/TG/IR/TGDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::onnx_import;

Type memopt::onnx_import::elementTypeOf(MLIRContext *context, int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(context);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(context);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(context);
  default:
    return {};
  }
}

std::string memopt::onnx_import::dtypeName(int32_t dtype) {
  return onnx::TensorProto::DataType_IsValid(dtype)
             ? llvm::StringRef(onnx::TensorProto::DataType_Name(
                                   static_cast<onnx::TensorProto::DataType>(dtype)))
                   .lower()
             : "type " + std::to_string(dtype);
}

namespace {
std::string shapeString(ArrayRef<int64_t> shape) {
  return shape.empty() ? std::string("scalar")
                       : llvm::join(llvm::map_range(shape,
                                                    [](int64_t d) {
                                                      return std::to_string(d);
                                                    }),
                                    "x");
}
} // namespace

GraphImporter::GraphImporter(MLIRContext *context,
                             const onnx::ModelProto &model,
                             llvm::StringRef fileName, int64_t sourceOpset,
                             const ONNXImportOptions &options,
                             const std::set<std::string> &constants,
                             const ValueShapes &exportShapes,
                             ONNXImportSummary &summary)
    : context(context), model(model), fileName(fileName.str()),
      sourceOpset(sourceOpset), options(options), exportShapes(exportShapes),
      summary(summary),
      builder(context), loc(UnknownLoc::get(context)) {
  // Constants lifted into initializers are read now, as Constant nodes are.
  for (const onnx::TensorProto &init : model.graph().initializer()) {
    if (!constants.count(init.name()))
      continue;
    HostTensor tensor;
    std::string ignored;
    if (readTensorProto(init, tensor, ignored))
      slots[init.name()].constant = std::move(tensor);
  }
}

InFlightDiagnostic GraphImporter::nodeError() {
  // The location names the node, also one without a name of its own.
  auto nameLoc = dyn_cast<NameLoc>(loc);
  InFlightDiagnostic diag = emitError(loc);
  diag << "node '" << (nameLoc ? nameLoc.getName().str() : node->name())
       << "' (" << node->op_type() << "): ";
  return diag;
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::declareInputs() {
  const onnx::GraphProto &graph = model.graph();
  for (const onnx::TensorProto &init : graph.initializer())
    if (!slots[init.name()].constant)
      slots[init.name()].initializer = &init;
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto known = slots.find(input.name());
    if (known != slots.end() &&
        (known->second.initializer || known->second.constant))
      continue; // IR version < 4 lists initializers as inputs too.
    if (!input.type().has_tensor_type())
      return emitError(fileLoc) << "graph input '" << input.name()
                                << "' is not a tensor";
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Type elementType = elementTypeOf(context, tensor.elem_type());
    if (!elementType)
      return emitError(fileLoc)
             << "graph input '" << input.name() << "' has element type "
             << dtypeName(tensor.elem_type())
             << "; memopt trains on float32, float16 or bfloat16 inputs";
    if (!tensor.has_shape())
      return emitError(fileLoc)
             << "graph input '" << input.name()
             << "' has no shape; give it one with --batch=N and "
                "--input-shape=C,H,W";
    SmallVector<int64_t> shape;
    for (auto [i, dim] : llvm::enumerate(tensor.shape().dim())) {
      if (!dim.has_dim_value() || dim.dim_value() <= 0) {
        InFlightDiagnostic diag = emitError(fileLoc);
        diag << "graph input '" << input.name() << "' has dynamic dimension "
             << i;
        if (dim.has_dim_param())
          diag << " ('" << dim.dim_param() << "')";
        diag << " that memopt cannot resolve; fix it with "
             << (i == 0 ? "--batch=N" : "--input-shape=C,H,W");
        return diag;
      }
      shape.push_back(dim.dim_value());
    }
    auto type = RankedTensorType::get(shape, elementType);
    slots[input.name()].value = body->addArgument(type, fileLoc);
    importedShapes[input.name()] =
        std::vector<int64_t>(shape.begin(), shape.end());
    argAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        tg::TGDialect::kInputAttrName, builder.getStringAttr(input.name()))));
  }
  return success();
}

FailureOr<Value> GraphImporter::argumentFor(const std::string &name, Role role) {
  Slot &slot = slots[name];
  const onnx::TensorProto &init = *slot.initializer;
  Type elementType = elementTypeOf(context, init.data_type());
  if (!elementType)
    return nodeError() << "initializer '" << name << "' of element type "
                       << dtypeName(init.data_type())
                       << " feeds a computation; memopt computes in float32, "
                          "float16 or bfloat16";
  SmallVector<int64_t> shape(init.dims().begin(), init.dims().end());
  Location argLoc = NameLoc::get(builder.getStringAttr(name),
                                 FileLineColLoc::get(context, fileName, 0, 0));
  slot.value = body->addArgument(RankedTensorType::get(shape, elementType),
                                 argLoc);
  StringRef attrName = role == Role::State ? tg::TGDialect::kStateAttrName
                                           : tg::TGDialect::kParamAttrName;
  argAttrs.push_back(builder.getDictionaryAttr(
      builder.getNamedAttr(attrName, builder.getStringAttr(name))));
  slot.initializer = nullptr;
  return slot.value;
}

LogicalResult GraphImporter::declareOutputs(func::FuncOp func) {
  SmallVector<Value> results;
  SmallVector<Attribute> resultAttrs;
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  for (const onnx::ValueInfoProto &output : model.graph().output()) {
    auto it = slots.find(output.name());
    assert(it != slots.end() && "loadModel rejects undefined graph outputs");
    Slot &slot = it->second;
    Value value = slot.value;
    if (!value && slot.constant) {
      Type elementType = elementTypeOf(context, slot.constant->dtype);
      if (!elementType)
        return emitError(fileLoc) << "graph output '" << output.name()
                                  << "' is a constant of element type "
                                  << dtypeName(slot.constant->dtype);
      value = materialize(*slot.constant, elementType);
    }
    if (!value && slot.initializer) {
      node = nullptr;
      return emitError(fileLoc) << "graph output '" << output.name()
                                << "' is an initializer, not a computed value";
    }
    if (failed(checkDeclaredOutput(output, value)))
      return failure();
    results.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        tg::TGDialect::kOutputAttrName, builder.getStringAttr(output.name()))));
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(
      body->getArgumentTypes(), ValueRange(results).getTypes()));
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resultAttrs);
  return success();
}

LogicalResult GraphImporter::checkDeclaredOutput(
    const onnx::ValueInfoProto &output, Value value) {
  // ONNX shape inference checks declared shapes only where it can infer one;
  // memopt also folds what it cannot (shapes computed through Range, say).
  if (!output.type().has_tensor_type())
    return success();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  const onnx::TypeProto::Tensor &declared = output.type().tensor_type();
  auto type = cast<RankedTensorType>(value.getType());
  if (declared.elem_type() != onnx::TensorProto::UNDEFINED &&
      elementTypeOf(context, declared.elem_type()) != type.getElementType())
    return emitError(fileLoc)
           << "graph output '" << output.name() << "' is declared "
           << dtypeName(declared.elem_type()) << " but computes "
           << type.getElementType()
           << "; fix or drop the declared element type";
  // Under --batch the file's shapes were dropped and ONNX inferred these
  // from the shapes the exporter fixed, which memopt re-derived.
  if (!declared.has_shape() ||
      summary.rebatchedReshapes + summary.rebatchedRandoms > 0)
    return success();
  SmallVector<int64_t> shape;
  for (const auto &dim : declared.shape().dim()) {
    if (!dim.has_dim_value())
      return success(); // symbolic: nothing to compare
    shape.push_back(dim.dim_value());
  }
  if (ArrayRef<int64_t>(shape) == type.getShape())
    return success();
  return emitError(fileLoc) << "graph output '" << output.name()
                            << "' is declared with shape " << shapeString(shape)
                            << " but computes " << shapeString(type.getShape())
                            << "; fix or drop the declared shape";
}

//===----------------------------------------------------------------------===//
// Inputs and outputs of the current node
//===----------------------------------------------------------------------===//

bool GraphImporter::hasInput(int i) const {
  return i < node->input_size() && !node->input(i).empty();
}

const HostTensor *GraphImporter::constantInput(int i, bool allowTrainable) {
  if (!hasInput(i))
    return nullptr;
  auto it = slots.find(node->input(i));
  if (it == slots.end() || it->second.value)
    return nullptr;
  Slot &slot = it->second;
  if (slot.initializer) {
    // A float initializer is a trainable weight: folding it away would
    // freeze it. Only inputs that must be static (scales, pads) read it.
    if (!allowTrainable && elementTypeOf(context, slot.initializer->data_type()))
      return nullptr;
    if (!slot.constant) {
      HostTensor tensor;
      std::string error;
      if (!readTensorProto(*slot.initializer, tensor, error)) {
        nodeError() << error;
        return nullptr;
      }
      slot.constant = std::move(tensor);
    }
  }
  return slot.constant ? &*slot.constant : nullptr;
}

FailureOr<const HostTensor *> GraphImporter::requireConstant(int i,
                                                             StringRef what) {
  if (const HostTensor *tensor = constantInput(i, /*allowTrainable=*/true))
    return tensor;
  return nodeError() << "input '" << (hasInput(i) ? node->input(i) : "")
                     << "' (" << what
                     << ") depends on run-time data; memopt needs it to be "
                        "known at compile time to resolve static shapes";
}

FailureOr<double> GraphImporter::requireScalar(int i, StringRef what) {
  FailureOr<const HostTensor *> tensor = requireConstant(i, what);
  if (failed(tensor))
    return failure();
  if ((*tensor)->numElements() != 1)
    return nodeError() << "input '" << node->input(i) << "' (" << what
                       << ") must hold one value, got "
                       << (*tensor)->numElements();
  return (*tensor)->getDouble(0);
}

FailureOr<Value> GraphImporter::input(int i, Role role) {
  if (!hasInput(i))
    return nodeError() << "required input " << i << " is missing";
  const std::string &name = node->input(i);
  Slot &slot = slots[name];
  if (slot.value)
    return slot.value;
  if (slot.initializer)
    return argumentFor(name, role);
  Type elementType = elementTypeOf(context, slot.constant->dtype);
  if (!elementType)
    return nodeError() << "constant input '" << name << "' of element type "
                       << dtypeName(slot.constant->dtype)
                       << " feeds a computation; memopt computes in float32, "
                          "float16 or bfloat16";
  return materialize(*slot.constant, elementType);
}

FailureOr<Value> GraphImporter::inputAs(int i, Type elementType) {
  if (hasInput(i)) {
    Slot &slot = slots[node->input(i)];
    if (!slot.value && !slot.initializer && slot.constant)
      return materialize(*slot.constant, elementType);
  }
  return input(i);
}

FailureOr<RankedTensorType> GraphImporter::inputType(int i) {
  FailureOr<Value> value = input(i);
  if (failed(value))
    return failure();
  return cast<RankedTensorType>(value->getType());
}

std::string GraphImporter::resizedShapeHint(ValueRange operands) {
  if (!options.batch && options.inputShape.empty())
    return "";
  for (Value operand : operands) {
    // A mask of random numbers whose shape the exporter fixed (a drop-path
    // mask of the export-time batch), a few ops up.
    SmallVector<Operation *> work;
    if (Operation *def = operand.getDefiningOp())
      work.push_back(def);
    for (int visited = 0; !work.empty() && visited < 8; ++visited) {
      Operation *op = work.pop_back_val();
      auto random = dyn_cast<tg::RandomUniformOp>(op);
      // Numbers drawn at the batch of --batch already follow it.
      if (random && options.batch) {
        auto type = cast<RankedTensorType>(random.getType());
        if (type.getRank() > 0 && type.getDimSize(0) == *options.batch)
          continue;
      }
      if (random) {
        auto node = dyn_cast<NameLoc>(random.getLoc());
        return ("; the random numbers of node '" +
                (node ? node.getName().getValue() : StringRef("?")) +
                "' have the shape the exporter fixed for its export-time "
                "input, which --batch or --input-shape changed: export at "
                "the size you train (memopt.export_module), or with dynamic "
                "shapes so that the shape follows the input")
            .str();
      }
      if (isa<tg::CompareOp, tg::FloorOp, tg::AddOp, tg::SubOp, tg::MulOp,
              tg::DivOp>(op))
        for (Value in : op->getOperands())
          if (Operation *def = in.getDefiningOp())
            work.push_back(def);
    }
    auto arg = dyn_cast<BlockArgument>(operand);
    auto name = arg ? dyn_cast<NameLoc>(arg.getLoc()) : NameLoc();
    if (!name || arg.getArgNumber() >= argAttrs.size() ||
        !cast<DictionaryAttr>(argAttrs[arg.getArgNumber()])
             .get(tg::TGDialect::kParamAttrName))
      continue;
    return ("; the parameter '" + name.getName().getValue() +
            "' has the shape the model was built with for its export-time "
            "input, which --batch or --input-shape changed: build and export "
            "the model for the size you train")
        .str();
  }
  return "";
}

Value GraphImporter::materialize(const HostTensor &tensor, Type elementType) {
  return tg::ConstantOp::create(builder, loc, toElementsAttr(tensor, elementType));
}

bool GraphImporter::outputUsed(int output) const {
  if (output >= node->output_size() || node->output(output).empty())
    return false;
  const std::string &name = node->output(output);
  if (useCounts.count(name))
    return true;
  return llvm::any_of(model.graph().output(),
                      [&](const onnx::ValueInfoProto &o) { return o.name() == name; });
}

LogicalResult GraphImporter::define(int output, Value value) {
  if (output >= node->output_size() || node->output(output).empty())
    return success();
  const std::string &name = node->output(output);
  slots[name].value = value;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  importedShapes[name] = std::vector<int64_t>(shape.begin(), shape.end());
  return checkAgainstOnnxShape(name, value);
}

void GraphImporter::defineConstant(int output, HostTensor tensor) {
  if (output >= node->output_size() || node->output(output).empty())
    return;
  slots[node->output(output)].constant = std::move(tensor);
}

LogicalResult GraphImporter::checkAgainstOnnxShape(const std::string &name,
                                                   Value value) {
  auto it = onnxShapes.find(name);
  if (it == onnxShapes.end())
    return success();
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == ArrayRef<int64_t>(it->second))
    return success();
  return nodeError() << "memopt infers shape " << shapeString(type.getShape())
                     << " for '" << name << "' but ONNX shape inference gives "
                     << shapeString(it->second);
}

//===----------------------------------------------------------------------===//
// Building ops
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importNode(const onnx::NodeProto &current,
                                        int index) {
  node = &current;
  loc = NameLoc::get(builder.getStringAttr(nodeName(current, index)),
                     FileLineColLoc::get(context, fileName, index + 1, 0));
  if (!current.domain().empty() && current.domain() != "ai.onnx")
    return nodeError() << "operator '" << current.op_type() << "' of domain '"
                       << current.domain() << "' is not supported";
  for (int i = 0; i < current.input_size(); ++i)
    if (!current.input(i).empty() && !slots.count(current.input(i)))
      return nodeError() << "input '" << current.input(i)
                         << "' is not defined before its use";

  // Constant folding: a node whose inputs are all known is evaluated now.
  bool allKnown = true;
  SmallVector<const HostTensor *> known;
  for (int i = 0; i < current.input_size(); ++i) {
    const HostTensor *tensor = constantInput(i, /*allowTrainable=*/false);
    if (hasInput(i) && !tensor)
      allKnown = false;
    known.push_back(tensor);
  }
  if (allKnown && current.op_type() != "Constant") {
    SmallVector<HostTensor> outputs;
    std::string error;
    switch (foldNode(current, known, outputs, error)) {
    case FoldResult::Folded:
      for (auto [i, tensor] : llvm::enumerate(outputs))
        defineConstant(i, std::move(tensor));
      return success();
    case FoldResult::Error:
      return nodeError() << error;
    case FoldResult::NotFoldable:
      break;
    }
  }
  return convertNode();
}

void GraphImporter::countUses(const onnx::GraphProto &graph) {
  for (const onnx::NodeProto &n : graph.node()) {
    for (const std::string &in : n.input())
      ++useCounts[in];
    for (const onnx::AttributeProto &attr : n.attribute())
      if (attr.has_g()) {
        countUses(attr.g());
        for (const onnx::ValueInfoProto &out : attr.g().output())
          ++useCounts[out.name()];
      }
  }
}

LogicalResult GraphImporter::convertIf() {
  // TorchScript writes an If for squeeze(dim) of an axis whose size it
  // traced as data (MONAI's compute_mask after F.pad); the condition is
  // shape arithmetic, folded by now. Run-time control flow is refused.
  FailureOr<const HostTensor *> condition = requireConstant(0, "the condition");
  if (failed(condition))
    return failure();
  if ((*condition)->numElements() != 1)
    return nodeError() << "the condition holds "
                       << (*condition)->numElements()
                       << " values; If needs one boolean";
  StringRef taken =
      (*condition)->getDouble(0) != 0 ? "then_branch" : "else_branch";
  const onnx::AttributeProto *branch = nullptr;
  for (const onnx::AttributeProto &attr : node->attribute())
    if (attr.name() == taken && attr.has_g())
      branch = &attr;
  if (!branch)
    return nodeError() << "has no graph attribute '" << taken << "'";
  const onnx::GraphProto &graph = branch->g();
  if (graph.output_size() != node->output_size())
    return nodeError() << "its " << taken << " has " << graph.output_size()
                       << " outputs, the node " << node->output_size();
  // A branch's own initializers are constants of the branch.
  for (const onnx::TensorProto &init : graph.initializer()) {
    HostTensor tensor;
    std::string error;
    if (!readTensorProto(init, tensor, error))
      return nodeError() << "its " << taken << " initializer '" << init.name()
                         << "': " << error;
    slots[init.name()].constant = std::move(tensor);
  }
  const onnx::NodeProto *ifNode = node;
  Location ifLoc = loc;
  for (auto [index, n] : llvm::enumerate(graph.node()))
    if (failed(importNode(n, index)))
      return failure();
  node = ifNode;
  loc = ifLoc;
  for (auto [i, out] : llvm::enumerate(graph.output())) {
    const std::string &name = node->output(i);
    auto from = slots.find(out.name());
    if (from == slots.end())
      return nodeError() << "its " << taken << " output '" << out.name()
                         << "' is not defined by the branch";
    if (name.empty())
      continue;
    Slot copy = from->second;
    slots[name] = std::move(copy);
    if (Value value = slots[name].value) {
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(value.getType()).getShape();
      importedShapes[name] = std::vector<int64_t>(shape.begin(), shape.end());
      if (failed(checkAgainstOnnxShape(name, value)))
        return failure();
    }
  }
  return success();
}

LogicalResult GraphImporter::convertNode() {
  using Converter = LogicalResult (GraphImporter::*)();
  static const llvm::StringMap<Converter> converters = {
      {"Conv", &GraphImporter::convertConv},
      {"ConvTranspose", &GraphImporter::convertConvTranspose},
      {"BatchNormalization", &GraphImporter::convertBatchNorm},
      {"Relu", &GraphImporter::convertUnary},
      {"LeakyRelu", &GraphImporter::convertUnary},
      {"Sigmoid", &GraphImporter::convertUnary},
      {"Tanh", &GraphImporter::convertUnary},
      {"Neg", &GraphImporter::convertUnary},
      {"Exp", &GraphImporter::convertUnary},
      {"Log", &GraphImporter::convertUnary},
      {"Sqrt", &GraphImporter::convertUnary},
      {"Abs", &GraphImporter::convertUnary},
      {"HardSigmoid", &GraphImporter::convertUnary},
      {"HardSwish", &GraphImporter::convertUnary},
      {"Elu", &GraphImporter::convertUnary},
      {"Softplus", &GraphImporter::convertUnary},
      {"Erf", &GraphImporter::convertUnary},
      {"Floor", &GraphImporter::convertUnary},
      {"PRelu", &GraphImporter::convertPRelu},
      {"Softmax", &GraphImporter::convertSoftmax},
      {"LogSoftmax", &GraphImporter::convertSoftmax},
      {"InstanceNormalization", &GraphImporter::convertInstanceNorm},
      {"LayerNormalization", &GraphImporter::convertLayerNorm},
      {"Identity", &GraphImporter::convertUnary},
      {"Clip", &GraphImporter::convertClip},
      {"Add", &GraphImporter::convertBinary},
      {"Sub", &GraphImporter::convertBinary},
      {"Mul", &GraphImporter::convertBinary},
      {"Div", &GraphImporter::convertBinary},
      {"Pow", &GraphImporter::convertPow},
      {"Less", &GraphImporter::convertCompare},
      {"LessOrEqual", &GraphImporter::convertCompare},
      {"Greater", &GraphImporter::convertCompare},
      {"GreaterOrEqual", &GraphImporter::convertCompare},
      {"Equal", &GraphImporter::convertCompare},
      {"Not", &GraphImporter::convertNot},
      {"Where", &GraphImporter::convertWhere},
      {"MaxPool", &GraphImporter::convertPool},
      {"AveragePool", &GraphImporter::convertPool},
      {"GlobalAveragePool", &GraphImporter::convertGlobalAveragePool},
      {"Resize", &GraphImporter::convertResize},
      {"Concat", &GraphImporter::convertConcat},
      {"Slice", &GraphImporter::convertSlice},
      {"Split", &GraphImporter::convertSplit},
      {"Pad", &GraphImporter::convertPad},
      {"Gather", &GraphImporter::convertGather},
      {"GatherND", &GraphImporter::convertGatherND},
      {"Reshape", &GraphImporter::convertShapeOp},
      {"Flatten", &GraphImporter::convertShapeOp},
      {"Squeeze", &GraphImporter::convertShapeOp},
      {"Unsqueeze", &GraphImporter::convertShapeOp},
      {"Transpose", &GraphImporter::convertTranspose},
      {"Expand", &GraphImporter::convertExpand},
      {"Tile", &GraphImporter::convertTile},
      {"MatMul", &GraphImporter::convertMatMul},
      {"Einsum", &GraphImporter::convertEinsum},
      {"Gemm", &GraphImporter::convertGemm},
      {"ReduceSum", &GraphImporter::convertReduce},
      {"ReduceMean", &GraphImporter::convertReduce},
      {"Dropout", &GraphImporter::convertDropout},
      {"RandomUniform", &GraphImporter::convertRandom},
      {"RandomUniformLike", &GraphImporter::convertRandom},
      {"Bernoulli", &GraphImporter::convertRandom},
      {"Cast", &GraphImporter::convertCast},
      {"Shape", &GraphImporter::convertShape},
      {"Constant", &GraphImporter::convertConstant},
      {"If", &GraphImporter::convertIf},
  };
  auto it = converters.find(node->op_type());
  if (it == converters.end()) {
    SmallVector<StringRef> names;
    for (const auto &entry : converters)
      names.push_back(entry.getKey());
    llvm::sort(names);
    return nodeError() << "unsupported ONNX operator '" << node->op_type()
                       << "'; memopt imports " << llvm::join(names, ", ")
                       << " (and folds shape arithmetic on constants)";
  }
  return (this->*(it->second))();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("tg.onnx_opset",
                                  builder.getI64IntegerAttr(
                                      defaultOpsetVersion(model)));
  if (sourceOpset != defaultOpsetVersion(model))
    module->getOperation()->setAttr("tg.onnx_source_opset",
                                    builder.getI64IntegerAttr(sourceOpset));
  module->getOperation()->setAttr("tg.onnx_model",
                                  builder.getStringAttr(fileName));
  if (!model.producer_name().empty())
    module->getOperation()->setAttr(
        "tg.onnx_producer",
        builder.getStringAttr(model.producer_name() + " " +
                              model.producer_version()));

  const onnx::GraphProto &graph = model.graph();
  for (const onnx::ValueInfoProto &info : llvm::concat<const onnx::ValueInfoProto>(
           graph.value_info(), graph.output())) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
      continue;
    SmallVector<int64_t> shape;
    bool isStatic = true;
    for (const auto &dim : info.type().tensor_type().shape().dim()) {
      isStatic &= dim.has_dim_value();
      shape.push_back(dim.dim_value());
    }
    if (isStatic)
      onnxShapes[info.name()] = shape;
  }
  countUses(graph);

  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "main",
                                   builder.getFunctionType({}, {}));
  body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  if (failed(declareInputs()))
    return nullptr;
  for (auto [index, n] : llvm::enumerate(graph.node()))
    if (failed(importNode(n, index)))
      return nullptr;
  builder.setInsertionPointToEnd(body);
  if (failed(declareOutputs(func)) || failed(verify(*module)))
    return nullptr;
  return module;
}
