//===- ModelLoader.cpp - Parse, check, convert and infer ONNX -------------===//
//
// Compiled with C++ exceptions enabled: the ONNX library reports checker,
// converter and inference failures by throwing. Every call into it is wrapped
// here and turned into an error message.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"
#include "AttributeChecks.h"
#include "HostTensor.h"
#include "ExternalData.h"
#include "FunctionInliner.h"
#include "OnnxAttributes.h"
#include "OpsetAdapters.h"
#include "TorchExport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <climits>
#include <map>
#include <exception>
#include <optional>
#include <set>

using namespace memopt;
using namespace memopt::onnx_import;

int64_t memopt::onnx_import::defaultOpsetVersion(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return -1;
}

namespace {
bool parseModel(llvm::StringRef bytes, onnx::ModelProto &model,
                std::string &error) {
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
  // Models of large networks exceed protobuf's default 64 MiB limit.
  stream.SetTotalBytesLimit(INT_MAX);
  if (bytes.empty() || !model.ParseFromCodedStream(&stream) ||
      !stream.ConsumedEntireMessage()) {
    error = "not a valid ONNX model: the protobuf does not parse (the file is "
            "truncated, corrupted or not ONNX)";
    return false;
  }
  // Random bytes occasionally parse as a protobuf of unknown fields.
  if (!model.has_graph() || model.ir_version() <= 0) {
    error = "not a valid ONNX model: it has no graph or no IR version (the "
            "file is corrupted or not ONNX)";
    return false;
  }
  return true;
}

/// Fixes the shapes of the graph inputs from the overrides and drops every
/// shape recorded at export time, so that inference recomputes them.
bool applyShapeOverrides(onnx::ModelProto &model,
                         const ONNXImportOptions &options, std::string &error) {
  onnx::GraphProto *graph = model.mutable_graph();
  std::set<std::string> initializers;
  for (const onnx::TensorProto &init : graph->initializer())
    initializers.insert(init.name());
  bool overridden = false, shaped = false;
  std::set<int> ranks;
  for (onnx::ValueInfoProto &input : *graph->mutable_input()) {
    if (initializers.count(input.name()) ||
        !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (options.batch && shape->dim_size() >= 1) {
      shape->mutable_dim(0)->set_dim_value(*options.batch);
      overridden = true;
    }
    ranks.insert(shape->dim_size());
    int given = static_cast<int>(options.inputShape.size());
    if (given && shape->dim_size() == given + 1) {
      for (int i = 0; i < given; ++i)
        shape->mutable_dim(i + 1)->set_dim_value(options.inputShape[i]);
      overridden = shaped = true;
    }
  }
  if (!options.inputShape.empty() && !shaped) {
    // A shape of the wrong rank would leave the inputs as exported: the
    // model would train at a size the user did not ask for.
    std::string have;
    for (int rank : ranks)
      have += (have.empty() ? "" : ", ") + std::to_string(rank);
    error = "--input-shape gives " + std::to_string(options.inputShape.size()) +
            " sizes (C and " + std::to_string(options.inputShape.size() - 1) +
            " spatial), for inputs of rank " +
            std::to_string(options.inputShape.size() + 1) +
            ", but the model's inputs have rank " +
            (have.empty() ? std::string("(none)") : have) +
            ": give C and one size per spatial axis (C,L; C,H,W; C,D,H,W)";
    return false;
  }
  if (overridden) {
    graph->clear_value_info();
    for (onnx::ValueInfoProto &output : *graph->mutable_output())
      if (output.type().has_tensor_type())
        output.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  return true;
}

/// Before opset 14, a BatchNormalization is in training mode when it has more
/// than one output, and may carry two more (saved mean and variance) that the
/// converter to opset 14 rejects. Drops those when nothing reads them and
/// returns the first output of every training-mode node, so that
/// `markTrainingBatchNorms` can set `training_mode` once the model is at an
/// opset that has the attribute.
bool prepareLegacyBatchNorms(onnx::ModelProto &model,
                             std::set<std::string> &training,
                             std::string &error) {
  onnx::GraphProto *graph = model.mutable_graph();
  std::set<std::string> read;
  for (const onnx::NodeProto &node : graph->node())
    read.insert(node.input().begin(), node.input().end());
  for (const onnx::ValueInfoProto &output : graph->output())
    read.insert(output.name());
  for (onnx::NodeProto &node : *graph->mutable_node()) {
    if (node.op_type() != "BatchNormalization" || node.output_size() <= 1)
      continue;
    for (int i = 3; i < node.output_size(); ++i) {
      if (read.count(node.output(i))) {
        error = "node '" + node.name() +
                "' (BatchNormalization): its saved mean/variance outputs are "
                "read, which opsets 14 and newer do not support";
        return false;
      }
    }
    while (node.output_size() > 3)
      node.mutable_output()->RemoveLast();
    training.insert(node.output(0));
  }
  return true;
}

void markTrainingBatchNorms(onnx::ModelProto &model,
                            const std::set<std::string> &training) {
  for (onnx::NodeProto &node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "BatchNormalization" || node.output_size() == 0 ||
        !training.count(node.output(0)))
      continue;
    onnx::AttributeProto *attr = nullptr;
    for (onnx::AttributeProto &a : *node.mutable_attribute())
      if (a.name() == "training_mode")
        attr = &a;
    if (!attr) {
      attr = node.add_attribute();
      attr->set_name("training_mode");
      attr->set_type(onnx::AttributeProto::INT);
    }
    attr->set_i(1);
  }
}

void setStringAttr(onnx::NodeProto &node, const std::string &name,
                   const std::string &value) {
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    if (attr.name() == name) {
      attr.set_s(value);
      return;
    }
  }
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s(value);
}

/// Upsample (opset 9) and Resize before opset 11 compute source coordinates
/// as x / scale, rounding down for nearest; the converter turns them into
/// Resize-11 with its default half_pixel mode. In a model converted from
/// such an opset every Resize is one of those: restore their coordinates.
void markLegacyResizes(onnx::ModelProto &model) {
  for (onnx::NodeProto &node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Resize")
      continue;
    setStringAttr(node, "coordinate_transformation_mode", "asymmetric");
    setStringAttr(node, "nearest_mode", "floor");
  }
}

/// The ONNX 1.12 checker lets through what makes its version converter or
/// shape inference crash instead of throwing (graph outputs that nothing
/// defines, raw_data of the wrong size, windows with a zero stride) and
/// attribute values that break the spec. Rejects those first.
bool checkBeforeConversion(const onnx::ModelProto &model, std::string &error) {
  auto checkTensor = [&](const onnx::TensorProto &tensor) {
    if (!tensor.has_raw_data())
      return true;
    uint64_t count = 1;
    for (int64_t d : tensor.dims())
      count *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
    size_t elementSize = rawElementSize(tensor.data_type());
    if (elementSize == 0 || tensor.raw_data().size() == count * elementSize)
      return true;
    error = "tensor '" + tensor.name() + "' holds " +
            std::to_string(tensor.raw_data().size()) +
            " bytes of raw data, expected " +
            std::to_string(count * elementSize);
    return false;
  };
  const onnx::GraphProto &graph = model.graph();
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer()) {
    defined.insert(init.name());
    if (!checkTensor(init))
      return false;
  }
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    defined.insert(node.output().begin(), node.output().end());
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_t() && !checkTensor(attr.t()))
        return false;
    // Also keeps ONNX shape inference off values it divides by (strides).
    std::string attrError;
    if (!checkNodeAttributes(node, attrError)) {
      error = "node '" + nodeName(node, index) + "' (" + node.op_type() +
              "): " + attrError;
      return false;
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (!defined.count(output.name())) {
      error = "graph output '" + output.name() +
              "' is not produced by any node";
      return false;
    }
  }
  return true;
}

/// Runs `fn`, turning any exception of the ONNX library into `error`, and
/// any crash too: ONNX 1.12 dereferences and divides unchecked on models its
/// checker accepts (a weight whose rank differs from the input's, say).
template <typename Fn>
bool guarded(const char *stage, std::string &error, Fn &&fn) {
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  std::optional<std::string> thrown;
  bool finished = recovery.RunSafely([&] {
    try {
      fn();
    } catch (const std::exception &e) {
      thrown = e.what();
    } catch (...) {
      thrown = "unknown error";
    }
  });
  if (!finished) {
    error = std::string(stage) +
            ": the ONNX library crashed on this model, which is malformed in "
            "a way the ONNX checker does not detect";
    return false;
  }
  if (!thrown)
    return true;
  // ONNX messages span lines; keep the diagnostic on one.
  std::replace(thrown->begin(), thrown->end(), '\n', ' ');
  error = std::string(stage) + ": " + *thrown;
  return false;
}

/// CastLike (opset 15) casts to the element type of its second input, which
/// shape inference has given every value: it becomes a Cast.
bool lowerCastLike(onnx::ModelProto &model, std::string &error) {
  onnx::GraphProto &graph = *model.mutable_graph();
  std::map<std::string, int32_t> types;
  for (const onnx::TensorProto &init : graph.initializer())
    types[init.name()] = init.data_type();
  for (const auto *infos : {&graph.input(), &graph.value_info(),
                            &graph.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type() && info.type().tensor_type().elem_type())
        types[info.name()] = info.type().tensor_type().elem_type();
  for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
    if (node.op_type() != "CastLike")
      continue;
    auto type = node.input_size() == 2 ? types.find(node.input(1))
                                       : types.end();
    if (type == types.end()) {
      error = "node '" + nodeName(node, index) +
              "' (CastLike): the element type of its second input is unknown";
      return false;
    }
    node.set_op_type("Cast");
    node.mutable_input()->RemoveLast();
    node.clear_attribute();
    onnx::AttributeProto *to = node.add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(type->second);
  }
  return true;
}

/// PyTorch's torch.export exporter writes IR version 10 (its TorchScript
/// exporter at most 9) and marks what its optimizer rewrote. A file of it
/// without the signature (an export at opset_version < 18 is converted and
/// loses every metadata entry) cannot be checked: its float initializers
/// may be constants the optimizer lifted, parameters it merged or folded.
bool checkNotStrippedTorchExport(const onnx::ModelProto &model,
                                 std::string &error) {
  bool rewritten = llvm::any_of(model.graph().node(), [](const auto &node) {
    return nodeMetadata(node).count("pkg.onnxscript.rewriter.rule_name");
  });
  if (!rewritten && !(model.producer_name() == "pytorch" &&
                      model.ir_version() >= 10))
    return true;
  error = "this file comes from PyTorch's torch.export exporter without the "
          "signature memopt checks it against (an export at opset_version "
          "below 18 loses it), so its parameters cannot be told from the "
          "constants and merged copies its ONNX optimizer made; export at the "
          "default opset with torch.onnx.export(model, args, f, "
          "optimize=False), or with memopt.export_module";
  return false;
}

/// Reads external data, then reconciles a torch.export file with its
/// signature; keeps the model as memopt trains it when either changed it.
bool normalizeInitializers(onnx::ModelProto &model,
                           llvm::StringRef modelDirectory,
                           std::set<std::string> &constants,
                           ONNXImportSummary &summary, std::string &error) {
  bool external = false, untied = false;
  if (!internalizeExternalData(model, modelDirectory, external, error))
    return false;
  summary.externalData = external;
  ExportSignature signature = readExportSignature(model.graph());
  summary.exporter = signature.empty() ? "other" : "torch.export";
  if (signature.empty() && !checkNotStrippedTorchExport(model, error))
    return false;
  if (!signature.empty() &&
      !reconcileWithSignature(model, signature, constants, summary, untied,
                              error))
    return false;
  reportSharedInitializers(model.graph(), summary);
  if (external || untied)
    summary.normalizedModel = model.SerializeAsString();
  return true;
}
} // namespace

bool memopt::onnx_import::loadModel(llvm::StringRef bytes,
                                    llvm::StringRef modelDirectory,
                                    const ONNXImportOptions &options,
                                    onnx::ModelProto &model,
                                    int64_t &sourceOpset,
                                    std::set<std::string> &constants,
                                    ONNXImportSummary &summary,
                                    std::string &error) {
  if (!parseModel(bytes, model, error))
    return false;
  int64_t opset = defaultOpsetVersion(model);
  sourceOpset = opset;
  summary.producer =
      (model.producer_name() + " " + model.producer_version());
  summary.irVersion = model.ir_version();
  summary.opset = opset;
  if (opset < 0) {
    error = "the model imports no default ONNX opset";
    return false;
  }
  if (!inlineLocalFunctions(model, error) ||
      !normalizeInitializers(model, modelDirectory, constants, summary,
                             error) ||
      !adaptToLibraryOpset(model, error))
    return false;
  if (!guarded("the model fails the ONNX checker", error,
               [&] { onnx::checker::check_model(model); }))
    return false;
  if (!checkBeforeConversion(model, error))
    return false;
  std::set<std::string> trainingBatchNorms;
  if (opset < 14 && !prepareLegacyBatchNorms(model, trainingBatchNorms, error))
    return false;
  if (opset < kLibraryOpset &&
      !guarded(("cannot convert the model from opset " + std::to_string(opset) +
                " to " + std::to_string(kLibraryOpset))
                   .c_str(),
               error, [&] {
                 model = onnx::version_conversion::ConvertVersion(
                     model, kLibraryOpset);
               }))
    return false;
  markTrainingBatchNorms(model, trainingBatchNorms);
  if (opset < 11)
    markLegacyResizes(model);
  if (!applyShapeOverrides(model, options, error))
    return false;
  return guarded("ONNX shape inference failed", error, [&] {
           onnx::ShapeInferenceOptions inference(/*check_type=*/true,
                                                 /*strict_mode=*/0,
                                                 /*data_prop=*/true);
           onnx::shape_inference::InferShapes(
               model, onnx::OpSchemaRegistry::Instance(), inference);
         }) &&
         lowerCastLike(model, error);
}
