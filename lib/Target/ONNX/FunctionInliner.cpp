//===- FunctionInliner.cpp - Model-local ONNX functions, inlined ----------===//

#include "FunctionInliner.h"
#include "ModelLoader.h"
#include "OnnxAttributes.h"

#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <vector>

using namespace memopt::onnx_import;

namespace {

/// FunctionProto.attribute_proto (IR version 9): attributes with defaults,
/// unknown to ONNX 1.12's schema, read from the unknown fields.
constexpr int kAttributeProtoField = 11;
/// Calls nested deeper than this are refused (a function calling itself),
/// and so are expansions beyond this many nodes (calls that fan out).
constexpr int kMaxDepth = 16;
constexpr size_t kMaxNodes = 1000000;

using FunctionKey = std::pair<std::string, std::string>; // domain, name

std::string domainOf(const std::string &domain) {
  return domain == "ai.onnx" ? "" : domain;
}

std::map<std::string, onnx::AttributeProto>
defaultAttributes(const onnx::FunctionProto &function) {
  std::map<std::string, onnx::AttributeProto> defaults;
  const google::protobuf::UnknownFieldSet &fields = function.unknown_fields();
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &field = fields.field(i);
    onnx::AttributeProto attr;
    if (field.number() == kAttributeProtoField &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
        attr.ParseFromString(field.length_delimited()))
      defaults[attr.name()] = attr;
  }
  return defaults;
}

class Inliner {
public:
  Inliner(const onnx::ModelProto &model) : modelOpset(defaultOpsetVersion(model)) {
    for (const onnx::FunctionProto &function : model.functions())
      functions[{domainOf(function.domain()), function.name()}] = &function;
  }

  bool run(onnx::GraphProto &graph, std::string &error) {
    std::vector<onnx::NodeProto> nodes;
    for (const onnx::NodeProto &node : graph.node())
      if (!expand(node, 0, node.name(), nodes, error))
        return false;
    graph.clear_node();
    for (onnx::NodeProto &node : nodes)
      *graph.add_node() = std::move(node);
    return true;
  }

private:
  /// Appends `node`, or its function's body, to `out`; `call` names the
  /// graph's node that the expansion started from, for errors.
  bool expand(const onnx::NodeProto &node, int depth, const std::string &call,
              std::vector<onnx::NodeProto> &out, std::string &error) {
    auto it = functions.find({domainOf(node.domain()), node.op_type()});
    if (it == functions.end()) {
      if (out.size() >= kMaxNodes) {
        error = "node '" + call + "': inlining its functions gives more "
                "than " + std::to_string(kMaxNodes) + " nodes";
        return false;
      }
      out.push_back(node);
      return true;
    }
    const onnx::FunctionProto &function = *it->second;
    std::string where = "node '" + call + "' (function " + node.op_type() +
                        ")";
    if (depth >= kMaxDepth) {
      error = where + ": functions nested deeper than " +
              std::to_string(kMaxDepth) + " (a recursive function?)";
      return false;
    }
    if (node.input_size() > function.input_size() ||
        node.output_size() > function.output_size()) {
      error = where + ": called with more inputs or outputs than it declares";
      return false;
    }
    for (const onnx::OperatorSetIdProto &opset : function.opset_import())
      if (domainOf(opset.domain()).empty() && opset.version() != modelOpset) {
        error = where + ": its body imports opset " +
                std::to_string(opset.version()) + ", the model " +
                std::to_string(modelOpset) + "; export with one opset";
        return false;
      }
    // Formal names to actual ones; the body's own values get the call's
    // name as a prefix, so that two calls never share a value.
    std::string prefix = (node.name().empty() ? node.output(0) : node.name()) +
                         "/" + std::to_string(counter++) + "/";
    std::map<std::string, std::string> names;
    for (int i = 0; i < function.input_size(); ++i)
      names[function.input(i)] = i < node.input_size() ? node.input(i) : "";
    for (int i = 0; i < function.output_size(); ++i)
      names[function.output(i)] =
          i < node.output_size() ? node.output(i) : prefix + function.output(i);
    auto rename = [&](const std::string &name) {
      if (name.empty())
        return name;
      auto known = names.find(name);
      return known != names.end() ? known->second : prefix + name;
    };
    std::map<std::string, onnx::AttributeProto> bound =
        defaultAttributes(function);
    for (const onnx::AttributeProto &attr : node.attribute())
      bound[attr.name()] = attr;
    for (const onnx::NodeProto &bodyNode : function.node()) {
      onnx::NodeProto copy = bodyNode;
      copy.set_name(prefix + bodyNode.name());
      for (int i = 0; i < copy.input_size(); ++i)
        copy.set_input(i, rename(copy.input(i)));
      for (int i = 0; i < copy.output_size(); ++i)
        copy.set_output(i, rename(copy.output(i)));
      copy.clear_attribute();
      for (const onnx::AttributeProto &attr : bodyNode.attribute()) {
        if (attr.ref_attr_name().empty()) {
          *copy.add_attribute() = attr;
          continue;
        }
        auto value = bound.find(attr.ref_attr_name());
        if (value == bound.end())
          continue; // unset and without a default: the op's own default
        onnx::AttributeProto *set = copy.add_attribute();
        *set = value->second;
        set->set_name(attr.name());
      }
      if (!expand(copy, depth + 1, call, out, error))
        return false;
    }
    return true;
  }

  int64_t modelOpset;
  std::map<FunctionKey, const onnx::FunctionProto *> functions;
  int counter = 0;
};

} // namespace

bool memopt::onnx_import::inlineLocalFunctions(onnx::ModelProto &model,
                                               std::string &error) {
  if (model.functions_size() == 0)
    return true;
  if (!Inliner(model).run(*model.mutable_graph(), error))
    return false;
  model.clear_functions();
  return true;
}
