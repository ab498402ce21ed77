//===- TorchExport.cpp - What torch.export's metadata says about a model --===//

#include "TorchExport.h"
#include "OnnxAttributes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <google/protobuf/unknown_field_set.h>

#include <cstring>

using namespace memopt;
using namespace memopt::onnx_import;

namespace {

/// Field numbers of metadata_props in ONNX 1.16's schema (IR version 10).
constexpr int kNodeMetadataField = 9;
constexpr int kGraphMetadataField = 16;

constexpr llvm::StringLiteral kSignatureKey =
    "pkg.torch.export.ExportedProgram.graph_signature";
constexpr llvm::StringLiteral kFxNodeKey = "pkg.torch.onnx.fx_node";
constexpr llvm::StringLiteral kRewriteRuleKey =
    "pkg.onnxscript.rewriter.rule_name";

std::map<std::string, std::string>
metadataField(const google::protobuf::UnknownFieldSet &fields, int number) {
  std::map<std::string, std::string> metadata;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &field = fields.field(i);
    if (field.number() != number ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    onnx::StringStringEntryProto entry;
    if (entry.ParseFromString(field.length_delimited()))
      metadata[entry.key()] = entry.value();
  }
  return metadata;
}

/// The placeholders (`%p_conv_weight`, `%b_bn_running_mean`) among the
/// arguments of an FX node's printout.
std::set<std::string> fxArguments(llvm::StringRef fxNode) {
  std::set<std::string> names;
  size_t args = fxNode.find("args = ");
  if (args == llvm::StringRef::npos)
    return names;
  llvm::StringRef rest = fxNode.drop_front(args);
  while (true) {
    size_t at = rest.find('%');
    if (at == llvm::StringRef::npos)
      break;
    rest = rest.drop_front(at + 1);
    llvm::StringRef name = rest.take_while(
        [](char c) { return llvm::isAlnum(c) || c == '_'; });
    names.insert(name.str());
    rest = rest.drop_front(name.size());
  }
  return names;
}

/// The parameter roles of an ONNX node's inputs, by the last component of
/// the state_dict name PyTorch gives them, and the ATen ops that export to
/// it: a placeholder is only restored at a node of its own kind.
struct Roles {
  std::vector<const char *> aten;
  std::map<int, std::string> inputs;
};

const Roles *rolesOf(const std::string &opType) {
  static const std::map<std::string, Roles> table = {
      {"Conv", {{"conv", "convolution"}, {{1, "weight"}, {2, "bias"}}}},
      {"ConvTranspose",
       {{"conv", "convolution"}, {{1, "weight"}, {2, "bias"}}}},
      {"BatchNormalization",
       {{"batch_norm"},
        {{1, "weight"}, {2, "bias"}, {3, "running_mean"}, {4, "running_var"}}}},
      {"InstanceNormalization",
       {{"instance_norm"}, {{1, "weight"}, {2, "bias"}}}},
      {"LayerNormalization",
       {{"layer_norm"}, {{1, "weight"}, {2, "bias"}}}},
      {"PRelu", {{"prelu"}, {{1, "weight"}}}},
      {"Gemm", {{"linear", "addmm"}, {{1, "weight"}, {2, "bias"}}}},
  };
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}

/// The parameter roles untieMerged restores: rolesOf's, and the bias of
/// nn.Linear on tokens, which exports as MatMul then Add (either operand).
const Roles *untieRolesOf(const std::string &opType) {
  static const Roles linearBias = {{"linear"}, {{0, "bias"}, {1, "bias"}}};
  return opType == "Add" ? &linearBias : rolesOf(opType);
}

/// Where PyTorch's 1-D parameters end up when the optimizer folds their
/// reshape for broadcasting into a constant: PReLU's slope, and GroupNorm's
/// scale and bias, which its decomposition multiplies and adds.
struct VectorRoles {
  const char *aten;
  std::string role;
};

const VectorRoles *vectorRolesOf(const std::string &opType) {
  static const std::map<std::string, VectorRoles> table = {
      {"PRelu", {"prelu", "weight"}},
      {"Mul", {"group_norm", "weight"}},
      {"Add", {"group_norm", "bias"}}};
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}

/// Inputs that hold shapes, scales or padding, never trained values.
bool isStaticInput(const std::string &opType, int position) {
  static const std::map<std::string, std::set<int>> table = {
      {"Resize", {1, 2, 3}}, {"Upsample", {1}},  {"Reshape", {1}},
      {"Pad", {1, 2, 3}},    {"Slice", {1, 2, 3, 4}}, {"Expand", {1}},
      {"Tile", {1}},         {"Squeeze", {1}},   {"Unsqueeze", {1}},
      {"Split", {1}},        {"ConstantOfShape", {0}}};
  auto it = table.find(opType);
  return it != table.end() && it->second.count(position);
}

std::string lastComponent(llvm::StringRef name) {
  return name.rsplit('.').second.empty() ? name.str()
                                         : name.rsplit('.').second.str();
}

/// True when the state_dict name `target` names a tensor of `role`:
/// `conv.weight`, and also `attn.in_proj_weight` (nn.MultiheadAttention's
/// packed projection, which F.linear reads as its weight).
bool playsRole(llvm::StringRef target, llvm::StringRef role) {
  std::string last = lastComponent(target);
  return last == role || llvm::StringRef(last).ends_with(("_" + role).str());
}

/// One node and what its metadata says.
struct NodeFacts {
  std::set<std::string> placeholders;
  std::string atenTarget;
  std::string rewriteRule;
};

NodeFacts factsOf(const onnx::NodeProto &node) {
  NodeFacts facts;
  std::map<std::string, std::string> metadata = nodeMetadata(node);
  llvm::StringRef fx = metadata[kFxNodeKey.str()];
  facts.placeholders = fxArguments(fx);
  size_t target = fx.find("target=");
  if (target != llvm::StringRef::npos)
    facts.atenTarget = fx.drop_front(target).take_until(
        [](char c) { return c == ']'; }).str();
  facts.rewriteRule = metadata[kRewriteRuleKey.str()];
  return facts;
}

class Reconciler {
public:
  Reconciler(onnx::ModelProto &model, const ExportSignature &signature,
             ONNXImportSummary &summary)
      : graph(*model.mutable_graph()), signature(signature),
        summary(summary) {
    for (const onnx::TensorProto &init : graph.initializer())
      initializers[init.name()] = &init;
    for (const auto *map : {&signature.parameters, &signature.buffers})
      for (const auto &[placeholder, target] : *map) {
        targets[placeholder] = target;
        owned.insert(target);
      }
    for (const onnx::NodeProto &node : graph.node())
      facts.push_back(factsOf(node));
  }

  bool run(std::set<std::string> &constants, bool &changed,
           std::string &error) {
    untieMerged(changed);
    unfoldVectors(changed);
    restoreRemovedBiases(changed);
    unfoldTransposedWeights(changed);
    copyForOtherReaders(changed);
    if (!checkNothingLost(error) || !checkEveryParameterRead(error))
      return false;
    for (const onnx::TensorProto &init : graph.initializer())
      if (!owned.count(init.name()) &&
          init.data_type() != onnx::TensorProto::INT64 &&
          init.data_type() != onnx::TensorProto::INT32 &&
          init.data_type() != onnx::TensorProto::BOOL) {
        constants.insert(init.name());
        summary.constantInitializers.push_back(init.name());
      }
    return true;
  }

private:
  /// A node input that holds another module's parameter in a role whose
  /// own placeholder the node names: the optimizer merged the two.
  void untieMerged(bool &changed) {
    std::map<std::string, ONNXImportSummary::SharedInitializer> merged;
    for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
      const NodeFacts &fact = facts[index];
      const Roles *roles = untieRolesOf(node.op_type());
      if (!roles || !fact.rewriteRule.empty() ||
          llvm::none_of(roles->aten, [&](const char *aten) {
            return llvm::StringRef(fact.atenTarget).contains(aten);
          }))
        continue;
      for (const auto &[position, role] : roles->inputs) {
        if (position >= node.input_size())
          continue;
        std::string current = node.input(position);
        std::optional<std::string> restored = ownTarget(fact, role);
        // Only a merge of two of the module's tensors is restored: the
        // optimizer merges equal tensors, so values and shapes agree. A
        // parameter folded into an anonymous constant (a reshaped PReLU
        // slope) is not: its shape is lost, and checkNothingLost refuses.
        if (!restored || *restored == current || !owned.count(current) ||
            !initializers.count(current))
          continue;
        if (!initializers.count(*restored))
          addCopy(*initializers[current], *restored);
        node.set_input(position, *restored);
        changed = true;
        auto &entry = merged[current];
        entry.name = current;
        entry.treatment = "untied";
        entry.nodes.push_back(nodeName(node, index));
        entry.names.push_back(*restored);
      }
    }
    for (auto &[name, entry] : merged)
      summary.sharedInitializers.push_back(std::move(entry));
  }

  /// A 1-D parameter (PReLU's slope, GroupNorm's scale and bias) that the
  /// optimizer folded into an anonymous constant of another shape (its
  /// reshape for broadcasting): trained again under its name, reshaped.
  void unfoldVectors(bool &changed) {
    std::vector<onnx::NodeProto> reshapes;
    for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
      const NodeFacts &fact = facts[index];
      const VectorRoles *roles = vectorRolesOf(node.op_type());
      if (!roles || !fact.rewriteRule.empty() ||
          !llvm::StringRef(fact.atenTarget).contains(roles->aten))
        continue;
      for (int position = 0; position < node.input_size(); ++position) {
        const std::string current = node.input(position);
        auto init = initializers.find(current);
        std::optional<std::string> restored = ownTarget(fact, roles->role);
        if (!restored || owned.count(current) || init == initializers.end() ||
            initializers.count(*restored) ||
            init->second->data_type() != onnx::TensorProto::FLOAT)
          continue;
        onnx::TensorProto vector = *init->second;
        int64_t count = 1;
        for (int64_t d : vector.dims())
          count *= d;
        vector.clear_dims();
        vector.add_dims(count);
        vector.set_name(*restored);
        std::string shape = *restored + "/folded_shape";
        onnx::TensorProto dims;
        dims.set_name(shape);
        dims.set_data_type(onnx::TensorProto::INT64);
        dims.add_dims(init->second->dims_size());
        for (int64_t d : init->second->dims())
          dims.add_int64_data(d);
        *graph.add_initializer() = std::move(vector);
        *graph.add_initializer() = std::move(dims);
        onnx::NodeProto &reshape = reshapes.emplace_back();
        reshape.set_op_type("Reshape");
        reshape.set_name(*restored + "/unfold");
        reshape.add_input(*restored);
        reshape.add_input(shape);
        reshape.add_output(*restored + "/folded");
        node.set_input(position, reshape.output(0));
        reindex();
        changed = true;
        summary.sharedInitializers.push_back(
            {current, {nodeName(node, index)}, "unfolded", {*restored}});
      }
    }
    // Reshapes of initializers may go first: they depend on nothing else.
    prependNodes(reshapes);
  }

  /// The optimizer's RemoveOptionalBiasFromConv drops a convolution's bias
  /// whose values are all zero (DynUNet's output convolution, initialized
  /// so): the bias is a parameter still, restored as the zeros it held.
  void restoreRemovedBiases(bool &changed) {
    for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
      const NodeFacts &fact = facts[index];
      bool conv = node.op_type() == "Conv", transposed =
                                                node.op_type() == "ConvTranspose";
      bool gemm = node.op_type() == "Gemm";
      if ((!conv && !transposed && !gemm) ||
          !llvm::StringRef(fact.rewriteRule).contains("RemoveOptionalBias") ||
          llvm::StringRef(fact.rewriteRule).contains("BatchNorm") ||
          (node.input_size() > 2 && !node.input(2).empty()) ||
          node.input_size() < 2 || !initializers.count(node.input(1)))
        continue;
      std::optional<std::string> bias = ownTarget(fact, "bias");
      const onnx::TensorProto &weight = *initializers[node.input(1)];
      if (!bias || initializers.count(*bias) || weight.dims_size() < 2 ||
          weight.data_type() != onnx::TensorProto::FLOAT)
        continue;
      // Gemm's bias has one value per output column: rows of a transposed
      // weight (nn.Linear's [out, in]), columns of a plain one.
      int64_t channels =
          gemm ? weight.dims(attrInt(node, "transB", 0) ? 0 : 1)
          : conv ? weight.dims(0)
                 : weight.dims(1) *
                       std::max<int64_t>(attrInt(node, "group", 1), 1);
      onnx::TensorProto zeros;
      zeros.set_name(*bias);
      zeros.set_data_type(onnx::TensorProto::FLOAT);
      zeros.add_dims(channels);
      zeros.set_raw_data(std::string(channels * sizeof(float), '\0'));
      *graph.add_initializer() = std::move(zeros);
      reindex();
      while (node.input_size() < 3)
        node.add_input("");
      node.set_input(2, *bias);
      changed = true;
      summary.sharedInitializers.push_back(
          {"", {nodeName(node, index)}, "restored", {*bias}});
    }
  }

  /// nn.Linear on a tensor of rank 3 or more exports as MatMul by the
  /// weight's transpose, which the optimizer folds into an anonymous
  /// [in, out] constant: the weight is trained again under its name, as the
  /// [out, in] matrix PyTorch holds, with a Transpose node feeding MatMul.
  void unfoldTransposedWeights(bool &changed) {
    std::vector<onnx::NodeProto> transposes;
    for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
      const NodeFacts &fact = facts[index];
      if (node.op_type() != "MatMul" || node.input_size() != 2 ||
          !llvm::StringRef(fact.atenTarget).contains("linear"))
        continue;
      auto init = initializers.find(node.input(1));
      std::optional<std::string> restored = ownTarget(fact, "weight");
      if (!restored || init == initializers.end() || owned.count(init->first) ||
          initializers.count(*restored))
        continue;
      std::optional<onnx::TensorProto> weight =
          transposedMatrix(*init->second, *restored);
      if (!weight)
        continue;
      *graph.add_initializer() = std::move(*weight);
      onnx::NodeProto &transpose = transposes.emplace_back();
      transpose.set_op_type("Transpose");
      transpose.set_name(*restored + "/unfold");
      transpose.add_input(*restored);
      transpose.add_output(*restored + "/folded");
      onnx::AttributeProto *perm = transpose.add_attribute();
      perm->set_name("perm");
      perm->set_type(onnx::AttributeProto::INTS);
      perm->add_ints(1);
      perm->add_ints(0);
      summary.sharedInitializers.push_back(
          {node.input(1), {nodeName(node, index)}, "unfolded", {*restored}});
      node.set_input(1, transpose.output(0));
      reindex();
      changed = true;
    }
    prependNodes(transposes);
  }

  /// The [cols, rows] transpose of a 2-D float initializer, named `name`;
  /// none for other shapes or element types.
  static std::optional<onnx::TensorProto>
  transposedMatrix(const onnx::TensorProto &matrix, const std::string &name) {
    if (matrix.data_type() != onnx::TensorProto::FLOAT ||
        matrix.dims_size() != 2 ||
        matrix.data_location() == onnx::TensorProto::EXTERNAL)
      return std::nullopt;
    int64_t rows = matrix.dims(0), cols = matrix.dims(1);
    std::vector<float> values(rows * cols);
    if (matrix.has_raw_data()) {
      if (matrix.raw_data().size() != values.size() * sizeof(float))
        return std::nullopt;
      std::memcpy(values.data(), matrix.raw_data().data(),
                  matrix.raw_data().size());
    } else if (matrix.float_data_size() == static_cast<int>(values.size())) {
      std::copy(matrix.float_data().begin(), matrix.float_data().end(),
                values.begin());
    } else {
      return std::nullopt;
    }
    std::vector<float> transposed(values.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        transposed[c * rows + r] = values[r * cols + c];
    onnx::TensorProto out;
    out.set_name(name);
    out.set_data_type(onnx::TensorProto::FLOAT);
    out.add_dims(cols);
    out.add_dims(rows);
    out.set_raw_data(
        std::string(reinterpret_cast<const char *>(transposed.data()),
                    transposed.size() * sizeof(float)));
    return out;
  }

  /// Puts `first` (nodes that read initializers only) before the graph's
  /// nodes, keeping `facts` aligned with the nodes.
  void prependNodes(const std::vector<onnx::NodeProto> &first) {
    if (first.empty())
      return;
    std::vector<onnx::NodeProto> nodes(graph.node().begin(),
                                       graph.node().end());
    graph.clear_node();
    for (auto &list : {first, nodes})
      for (const onnx::NodeProto &node : list)
        *graph.add_node() = node;
    std::vector<NodeFacts> shifted(first.size());
    shifted.insert(shifted.end(), facts.begin(), facts.end());
    facts = std::move(shifted);
  }

  /// The signature lists every parameter of the module, also those that
  /// forward never reads; the ONNX graph keeps only those its nodes read.
  /// When the optimizer folded constants (anonymous float initializers), a
  /// parameter no node reads may have been folded with them (a Swin
  /// relative-position table indexed by a constant buffer) and memopt
  /// cannot tell it from an unused one: refused, since training the folded
  /// constant would silently differ. Without folding it is unused and stays
  /// as it is, as in PyTorch.
  bool checkEveryParameterRead(std::string &error) {
    bool folded = llvm::any_of(initializers, [&](const auto &entry) {
      return !owned.count(entry.first) &&
             entry.second->data_type() != onnx::TensorProto::INT64 &&
             entry.second->data_type() != onnx::TensorProto::INT32 &&
             entry.second->data_type() != onnx::TensorProto::BOOL;
    });
    if (!folded)
      return true;
    std::set<std::string> read;
    for (const onnx::NodeProto &node : graph.node())
      read.insert(node.input().begin(), node.input().end());
    std::set<std::string> unread;
    for (const auto &[placeholder, target] : signature.parameters)
      if (!read.count(target))
        unread.insert(target);
    if (unread.empty())
      return true;
    error = "no node of the file reads the parameters " +
            llvm::join(unread, ", ") +
            ": PyTorch's ONNX optimizer folded them into constants, or "
            "forward does not use them; memopt cannot tell which and would "
            "train a different model than model.train() if they were folded: "
            "export with torch.onnx.export(model, args, f, optimize=False), "
            "or with memopt.export_module";
    return false;
  }

  /// The target of the one placeholder of `fact` whose name ends in `role`.
  std::optional<std::string> ownTarget(const NodeFacts &fact,
                                       const std::string &role) {
    std::optional<std::string> found;
    for (const std::string &placeholder : fact.placeholders) {
      auto it = targets.find(placeholder);
      if (it == targets.end() || !playsRole(it->second, role))
        continue;
      if (found && *found != it->second)
        return std::nullopt; // ambiguous: leave it to checkNothingLost
      found = it->second;
    }
    return found;
  }

  /// A parameter that also feeds an input the importer needs at compile
  /// time (Resize scales equal to a BatchNorm weight of ones, merged): that
  /// reader gets a constant of its own.
  void copyForOtherReaders(bool &changed) {
    for (auto [index, node] : llvm::enumerate(*graph.mutable_node())) {
      for (int position = 0; position < node.input_size(); ++position) {
        const std::string &name = node.input(position);
        if (isStaticInput(node.op_type(), position) && isParameter(name)) {
          std::string copy = name + "/constant_of_" + nodeName(node, index);
          addCopy(*initializers[name], copy);
          node.set_input(position, copy);
          changed = true;
        }
      }
    }
  }

  bool isParameter(const std::string &name) const {
    return initializers.count(name) &&
           llvm::any_of(signature.parameters,
                        [&](const auto &p) { return p.second == name; });
  }

  /// BatchNorm's `num_batches_tracked += 1` in training mode: the exporter
  /// folds the increment into an int constant (which other nodes may share:
  /// an index 1) and drops the buffer. With a momentum set (PyTorch's
  /// default; momentum=None would read the counter in the batch_norm node
  /// itself) the counter changes nothing the step computes: not lost.
  bool isCounterIncrement(const std::string &target,
                          const std::vector<std::string> &readers) const {
    return lastComponent(target) == "num_batches_tracked" &&
           llvm::any_of(signature.buffers,
                        [&](const auto &b) { return b.second == target; }) &&
           llvm::all_of(readers, [](const std::string &aten) {
             // aten.add.Tensor or add_ in place; not addmm and the like.
             return llvm::StringRef(aten).contains("aten.add.") ||
                    llvm::StringRef(aten).contains("aten.add_.");
           });
  }

  /// Every parameter or buffer an FX node reads must now be an initializer
  /// that the node reads.
  bool checkNothingLost(std::string &error) {
    std::map<std::string, std::vector<std::string>> readers;
    std::set<std::string> rules;
    for (const NodeFacts &fact : facts) {
      if (!fact.rewriteRule.empty() &&
          llvm::StringRef(fact.rewriteRule).contains("BatchNorm"))
        rules.insert(fact.rewriteRule);
      for (const std::string &placeholder : fact.placeholders) {
        auto it = targets.find(placeholder);
        if (it != targets.end() && !initializers.count(it->second))
          readers[it->second].push_back(fact.atenTarget);
      }
    }
    std::set<std::string> lost;
    for (const auto &[target, atens] : readers)
      if (!isCounterIncrement(target, atens))
        lost.insert(target);
    if (lost.empty() && rules.empty())
      return true;
    error = "PyTorch's ONNX optimizer changed the model's parameters";
    if (!rules.empty())
      error += " (" + llvm::join(rules, ", ") +
               ": BatchNorm fused into the layer before it)";
    if (!lost.empty())
      error += "; " + llvm::join(lost, ", ") +
               " are folded into constants or fused away";
    error += "; memopt would train a different model than model.train(): "
             "export with torch.onnx.export(model, args, f, optimize=False), "
             "or with memopt.export_module";
    return false;
  }

  void addCopy(const onnx::TensorProto &from, const std::string &name) {
    onnx::TensorProto *copy = graph.add_initializer();
    *copy = from;
    copy->set_name(name);
    reindex();
  }

  /// The pointers into the repeated field move as it grows.
  void reindex() {
    initializers.clear();
    for (const onnx::TensorProto &init : graph.initializer())
      initializers[init.name()] = &init;
  }

  onnx::GraphProto &graph;
  const ExportSignature &signature;
  ONNXImportSummary &summary;
  std::map<std::string, const onnx::TensorProto *> initializers;
  std::map<std::string, std::string> targets;
  std::set<std::string> owned;
  std::vector<NodeFacts> facts;
};

} // namespace

std::map<std::string, std::string>
memopt::onnx_import::nodeMetadata(const onnx::NodeProto &node) {
  return metadataField(node.unknown_fields(), kNodeMetadataField);
}

ExportSignature
memopt::onnx_import::readExportSignature(const onnx::GraphProto &graph) {
  ExportSignature signature;
  std::map<std::string, std::string> metadata =
      metadataField(graph.unknown_fields(), kGraphMetadataField);
  auto it = metadata.find(kSignatureKey.str());
  if (it == metadata.end())
    return signature;
  // Lines such as "p_conv_weight: PARAMETER target='conv.weight'" under
  // "# inputs".
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(it->second).split(lines, '\n');
  bool inputs = false;
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.starts_with("#")) {
      inputs = line == "# inputs";
      continue;
    }
    auto [placeholder, rest] = line.split(": ");
    size_t target = rest.find("target='");
    if (!inputs || target == llvm::StringRef::npos)
      continue;
    llvm::StringRef name =
        rest.drop_front(target + 8).take_until([](char c) { return c == '\''; });
    if (rest.starts_with("PARAMETER"))
      signature.parameters[placeholder.str()] = name.str();
    else if (rest.starts_with("BUFFER"))
      signature.buffers[placeholder.str()] = name.str();
  }
  return signature;
}

bool memopt::onnx_import::reconcileWithSignature(
    onnx::ModelProto &model, const ExportSignature &signature,
    std::set<std::string> &constants, ONNXImportSummary &summary,
    bool &changed, std::string &error) {
  return Reconciler(model, signature, summary).run(constants, changed, error);
}

void memopt::onnx_import::reportSharedInitializers(
    const onnx::GraphProto &graph, ONNXImportSummary &summary) {
  std::map<std::string, std::vector<std::string>> readers;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    const Roles *roles = rolesOf(node.op_type());
    if (!roles)
      continue;
    for (const auto &[position, role] : roles->inputs)
      if (position < node.input_size() && !node.input(position).empty())
        readers[node.input(position)].push_back(nodeName(node, index));
  }
  std::set<std::string> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (auto &[name, nodes] : readers)
    if (nodes.size() > 1 && initializers.count(name))
      summary.sharedInitializers.push_back(
          {name, std::move(nodes), "tied", {name}});
}
