//===- OpsetAdapters.cpp - Newer ONNX files down to what ONNX 1.12 reads --===//
//
// The table below was derived from ONNX 1.23's operator history: for every
// operator with a version after 17, the attributes, inputs and outputs of
// each version were compared with its opset-17 version. Versions that only
// widened type constraints (bfloat16 in opset 22, float8/int4 in 19-25, ...)
// need no rewrite: the element-type check refuses the new types. The others
// are adapted here or refused by name, so that nothing of a newer opset is
// read with opset-17 semantics by accident.
//
//===----------------------------------------------------------------------===//

#include "OpsetAdapters.h"
#include "HostTensor.h"
#include "ModelLoader.h"
#include "OnnxAttributes.h"

#include "llvm/ADT/STLExtras.h"

#include <onnx/defs/schema.h>

#include <cmath>
#include <map>
#include <set>

using namespace memopt::onnx_import;

namespace {

/// The largest element type that IR version 8 defines (BFLOAT16); newer IR
/// versions add float8, int4, float4 and the like, which memopt does not
/// compute in.
constexpr int32_t kLastIR8ElementType = onnx::TensorProto::BFLOAT16;

std::string where(const onnx::NodeProto &node, size_t index) {
  return "node '" + nodeName(node, index) + "' (" + node.op_type() + ")";
}

void removeAttr(onnx::NodeProto &node, const std::string &name) {
  auto *attrs = node.mutable_attribute();
  for (int i = attrs->size() - 1; i >= 0; --i)
    if (attrs->Get(i).name() == name)
      attrs->DeleteSubrange(i, 1);
}

/// Ops whose output holds their first input's values in the same order:
/// torch.export writes a reduction's axes as Reshape(Constant [-1, -2],
/// [-1]).
bool keepsValues(const onnx::NodeProto &node) {
  static const std::set<std::string> reshaping = {
      "Reshape", "Identity", "Squeeze", "Unsqueeze", "Flatten"};
  if (node.op_type() == "Cast") {
    int64_t to = attrInt(node, "to", 0);
    return to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32;
  }
  return reshaping.count(node.op_type()) && node.input_size() >= 1;
}

/// The values of a constant int64 tensor: an initializer, the output of a
/// Constant node, or of a chain of keepsValues ops on one. False when
/// `name` is computed at run time.
bool constantInts(const onnx::GraphProto &graph, const std::string &name,
                  std::vector<int64_t> &values, int depth = 0) {
  constexpr int kMaxChain = 8;
  const onnx::TensorProto *tensor = nullptr;
  for (const onnx::TensorProto &init : graph.initializer())
    if (init.name() == name)
      tensor = &init;
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.output_size() != 1 || node.output(0) != name)
      continue;
    if (!tensor && depth < kMaxChain && keepsValues(node))
      return constantInts(graph, node.input(0), values, depth + 1);
    if (node.op_type() != "Constant")
      continue;
    if (const onnx::AttributeProto *ints = findAttr(node, "value_ints")) {
      values.assign(ints->ints().begin(), ints->ints().end());
      return true;
    }
    if (const onnx::AttributeProto *value = findAttr(node, "value"))
      tensor = &value->t();
  }
  HostTensor host;
  std::string ignored;
  if (!tensor || !readTensorProto(*tensor, host, ignored))
    return false;
  values.clear();
  for (int64_t i = 0; i < host.numElements(); ++i)
    values.push_back(host.getInt(i));
  return true;
}

bool hasInput(const onnx::NodeProto &node, int i) {
  return i < node.input_size() && !node.input(i).empty();
}

void dropInputsFrom(onnx::NodeProto &node, int first) {
  while (node.input_size() > first)
    node.mutable_input()->RemoveLast();
}

/// Reduce* from 18 take their axes as an input and may be no-ops on empty
/// axes; 13 takes them as an attribute and reduces everything without.
bool adaptReduce(const onnx::GraphProto &graph, onnx::NodeProto &node,
                 size_t index, std::string &error) {
  bool noop = attrInt(node, "noop_with_empty_axes", 0) != 0;
  removeAttr(node, "noop_with_empty_axes");
  std::vector<int64_t> axes;
  if (hasInput(node, 1) && !constantInts(graph, node.input(1), axes)) {
    error = where(node, index) + ": its axes are computed at run time; "
            "memopt needs them constant";
    return false;
  }
  dropInputsFrom(node, 1);
  if (axes.empty()) {
    if (noop) {
      node.set_op_type("Identity");
      node.clear_attribute();
    }
    return true;
  }
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name("axes");
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t axis : axes)
    attr->add_ints(axis);
  return true;
}

/// Split-18's num_outputs is the number of outputs, which Split-13 infers.
bool adaptSplit(const onnx::GraphProto &, onnx::NodeProto &node, size_t index,
                std::string &error) {
  const onnx::AttributeProto *count = findAttr(node, "num_outputs");
  if (count && count->i() != node.output_size()) {
    error = where(node, index) + ": num_outputs " + std::to_string(count->i()) +
            " differs from its " + std::to_string(node.output_size()) +
            " outputs";
    return false;
  }
  removeAttr(node, "num_outputs");
  return true;
}

/// Resize-18 adds antialias, axes and keep_aspect_ratio_policy; 19 the
/// half_pixel_symmetric coordinates. Their defaults are Resize-13.
bool adaptResize(const onnx::GraphProto &, onnx::NodeProto &node,
                 size_t index, std::string &error) {
  if (attrInt(node, "antialias", 0) != 0) {
    error = where(node, index) + ": antialias=1 is not supported; resize "
            "without antialiasing (F.interpolate(..., antialias=False))";
    return false;
  }
  if (const onnx::AttributeProto *axes = findAttr(node, "axes")) {
    for (auto [i, axis] : llvm::enumerate(axes->ints())) {
      if (axis != static_cast<int64_t>(i)) {
        error = where(node, index) + ": resizing a subset of the axes (axes "
                "attribute) is not supported";
        return false;
      }
    }
  }
  std::string policy = attrString(node, "keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && hasInput(node, 3)) {
    error = where(node, index) + ": keep_aspect_ratio_policy '" + policy +
            "' is not supported; only 'stretch'";
    return false;
  }
  if (attrString(node, "coordinate_transformation_mode", "half_pixel") ==
      "half_pixel_symmetric") {
    error = where(node, index) + ": coordinate_transformation_mode "
            "'half_pixel_symmetric' is not supported";
    return false;
  }
  removeAttr(node, "antialias");
  removeAttr(node, "axes");
  removeAttr(node, "keep_aspect_ratio_policy");
  return true;
}

/// Pad-18 pads a subset of the axes (a fourth input); 19 adds mode wrap.
bool adaptPad(const onnx::GraphProto &, onnx::NodeProto &node, size_t index,
              std::string &error) {
  if (hasInput(node, 3)) {
    error = where(node, index) + ": padding a subset of the axes (the axes "
            "input) is not supported; pad every axis";
    return false;
  }
  if (attrString(node, "mode", "constant") == "wrap") {
    error = where(node, index) + ": mode 'wrap' is not supported";
    return false;
  }
  dropInputsFrom(node, 3);
  return true;
}

/// AveragePool-19 adds dilations.
bool adaptAveragePool(const onnx::GraphProto &, onnx::NodeProto &node,
                      size_t index, std::string &error) {
  for (int64_t d : attrInts(node, "dilations", {})) {
    if (d != 1) {
      error = where(node, index) + ": dilated average pooling is not "
              "supported";
      return false;
    }
  }
  removeAttr(node, "dilations");
  return true;
}

/// Cast-19 and -24 add saturate and round_mode, which only apply to the
/// float8 and float4 types that the element-type check refuses.
bool adaptCast(const onnx::GraphProto &, onnx::NodeProto &node, size_t,
               std::string &) {
  removeAttr(node, "saturate");
  removeAttr(node, "round_mode");
  return true;
}

/// Scatter*-18 add max and min reductions.
bool adaptScatter(const onnx::GraphProto &, onnx::NodeProto &node,
                  size_t index, std::string &error) {
  std::string reduction = attrString(node, "reduction", "none");
  if (reduction == "max" || reduction == "min") {
    error = where(node, index) + ": reduction '" + reduction +
            "' is not supported";
    return false;
  }
  return true;
}

using Adapter = bool (*)(const onnx::GraphProto &, onnx::NodeProto &, size_t,
                         std::string &);

/// Operators whose semantics changed after opset 17, with the opset of the
/// change. Those without an adapter are refused from that opset on.
struct Change {
  int64_t opset;
  Adapter adapter;
};

const std::multimap<std::string, Change> &semanticChanges() {
  static const std::multimap<std::string, Change> changes = [] {
    std::multimap<std::string, Change> table;
    for (const char *reduce :
         {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
          "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
          "ReduceSumSquare"})
      table.insert({reduce, {18, adaptReduce}});
    table.insert({"Split", {18, adaptSplit}});
    table.insert({"Resize", {18, adaptResize}});
    table.insert({"Pad", {18, adaptPad}});
    table.insert({"AveragePool", {19, adaptAveragePool}});
    table.insert({"Cast", {19, adaptCast}});
    table.insert({"CastLike", {19, adaptCast}});
    table.insert({"ScatterElements", {18, adaptScatter}});
    table.insert({"ScatterND", {18, adaptScatter}});
    // Changes memopt does not convert (none of them is an op it trains).
    for (auto [op, opset] :
         std::initializer_list<std::pair<const char *, int64_t>>{
             {"LpPool", 18}, {"OptionalHasElement", 18}, {"DFT", 20},
             {"GridSample", 20}, {"DequantizeLinear", 21},
             {"QuantizeLinear", 19}, {"Range", 27}, {"SpaceToDepth", 28}})
      table.insert({op, {opset, nullptr}});
    return table;
  }();
  return changes;
}

/// Builds the nodes that replace one node of a newer opset.
class Expansion {
public:
  Expansion(const onnx::NodeProto &node) : node(node) {}

  /// A float32 scalar constant.
  std::string scalar(float value) {
    std::string name = fresh();
    onnx::NodeProto &constant = add("Constant", {}, name);
    onnx::AttributeProto *attr = constant.add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    attr->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    attr->mutable_t()->add_float_data(value);
    return name;
  }

  /// One node with a fresh output (or `output`); returns the output.
  std::string op(const std::string &type, std::vector<std::string> inputs,
                 std::string output = "") {
    if (output.empty())
      output = fresh();
    add(type, std::move(inputs), output);
    return output;
  }

  std::vector<onnx::NodeProto> nodes;

private:
  onnx::NodeProto &add(const std::string &type,
                       std::vector<std::string> inputs,
                       const std::string &output) {
    onnx::NodeProto &added = nodes.emplace_back();
    added.set_op_type(type);
    added.set_name(node.name() + "/" + type + "_" +
                   std::to_string(nodes.size()));
    for (std::string &input : inputs)
      added.add_input(std::move(input));
    added.add_output(output);
    return added;
  }

  std::string fresh() {
    return node.output(0) + "/memopt_" + std::to_string(counter++);
  }

  const onnx::NodeProto &node;
  int counter = 0;
};

/// Gelu-20 as PyTorch's TorchScript exporter writes GELU at opset 17:
/// x/2 (1 + erf(x/sqrt 2)), or with approximate=tanh
/// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
bool expandGelu(const onnx::NodeProto &node, size_t index, Expansion &e,
                std::string &error) {
  const std::string &x = node.input(0);
  std::string approximate = attrString(node, "approximate", "none");
  std::string inner;
  if (approximate == "none") {
    inner = e.op("Erf", {e.op("Div", {x, e.scalar(std::sqrt(2.0f))})});
  } else if (approximate == "tanh") {
    std::string cube = e.op("Mul", {e.op("Mul", {x, x}), x});
    std::string sum =
        e.op("Add", {x, e.op("Mul", {cube, e.scalar(0.044715f)})});
    inner = e.op("Tanh", {e.op(
        "Mul", {sum, e.scalar(static_cast<float>(std::sqrt(2.0 / M_PI)))})});
  } else {
    error = where(node, index) + ": approximate '" + approximate +
            "' is not 'none' or 'tanh'";
    return false;
  }
  std::string onePlus = e.op("Add", {inner, e.scalar(1.0f)});
  e.op("Mul", {e.op("Mul", {x, onePlus}), e.scalar(0.5f)}, node.output(0));
  return true;
}

/// Mish-18: x tanh(softplus(x)).
bool expandMish(const onnx::NodeProto &node, size_t, Expansion &e,
                std::string &) {
  const std::string &x = node.input(0);
  e.op("Mul", {x, e.op("Tanh", {e.op("Softplus", {x})})}, node.output(0));
  return true;
}

/// Swish-24: x sigmoid(alpha x).
bool expandSwish(const onnx::NodeProto &node, size_t, Expansion &e,
                 std::string &) {
  const std::string &x = node.input(0);
  float alpha = static_cast<float>(attrFloat(node, "alpha", 1.0f));
  std::string scaled = alpha == 1.0f ? x : e.op("Mul", {x, e.scalar(alpha)});
  e.op("Mul", {x, e.op("Sigmoid", {scaled})}, node.output(0));
  return true;
}

using Expander = bool (*)(const onnx::NodeProto &, size_t, Expansion &,
                          std::string &);

const std::map<std::string, Expander> &expanders() {
  static const std::map<std::string, Expander> table = {
      {"Gelu", expandGelu}, {"Mish", expandMish}, {"Swish", expandSwish}};
  return table;
}

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// Refuses element types that IR version 8 does not define.
bool checkElementTypes(const onnx::GraphProto &graph, std::string &error) {
  auto refuse = [&](const std::string &what, int32_t type) {
    error = what + " has element type " + std::to_string(type) +
            " (float8, int4 or another type of IR version 9 and newer), "
            "which memopt does not compute in";
    return false;
  };
  for (const onnx::TensorProto &init : graph.initializer())
    if (init.data_type() > kLastIR8ElementType)
      return refuse("initializer '" + init.name() + "'", init.data_type());
  for (const auto *infos : {&graph.input(), &graph.output(),
                            &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().elem_type() > kLastIR8ElementType)
        return refuse("value '" + info.name() + "'",
                      info.type().tensor_type().elem_type());
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_t() && attr.t().data_type() > kLastIR8ElementType)
        return refuse(where(node, index), attr.t().data_type());
      if (attr.name() == "to" && attr.i() > kLastIR8ElementType)
        return refuse(where(node, index), static_cast<int32_t>(attr.i()));
    }
  }
  return true;
}

/// Adapts or expands every node of the default domain from `opset`.
bool adaptNodes(onnx::GraphProto &graph, int64_t opset, std::string &error) {
  std::vector<onnx::NodeProto> adapted;
  adapted.reserve(graph.node_size());
  for (size_t index = 0; index < static_cast<size_t>(graph.node_size());
       ++index) {
    onnx::NodeProto &node = *graph.mutable_node(index);
    if (!isDefaultDomain(node.domain())) {
      adapted.push_back(node);
      continue;
    }
    auto expander = expanders().find(node.op_type());
    if (expander != expanders().end()) {
      if (node.input_size() < 1 || node.output_size() != 1) {
        error = where(node, index) + ": expects one input and one output";
        return false;
      }
      Expansion expansion(node);
      if (!expander->second(node, index, expansion, error))
        return false;
      for (onnx::NodeProto &added : expansion.nodes)
        adapted.push_back(std::move(added));
      continue;
    }
    auto [first, last] = semanticChanges().equal_range(node.op_type());
    for (const auto &[op, change] : llvm::make_range(first, last)) {
      if (opset < change.opset)
        continue;
      if (!change.adapter) {
        error = where(node, index) + ": its opset-" +
                std::to_string(change.opset) +
                " semantics are not supported; export at opset 17 or "
                "without this operator";
        return false;
      }
      if (!change.adapter(graph, node, index, error))
        return false;
    }
    if (!onnx::OpSchemaRegistry::Schema(node.op_type(), kLibraryOpset, "")) {
      error = where(node, index) + ": an operator of opset " +
              std::to_string(opset) + " that memopt does not support";
      return false;
    }
    adapted.push_back(node);
  }
  graph.clear_node();
  for (onnx::NodeProto &node : adapted)
    *graph.add_node() = std::move(node);
  return true;
}

void setDefaultOpset(onnx::ModelProto &model, int64_t version) {
  for (onnx::OperatorSetIdProto &opset : *model.mutable_opset_import())
    if (isDefaultDomain(opset.domain()))
      opset.set_version(version);
}

} // namespace

bool memopt::onnx_import::adaptToLibraryOpset(onnx::ModelProto &model,
                                              std::string &error) {
  int64_t opset = defaultOpsetVersion(model);
  if (opset > kNewestKnownOpset) {
    error = "the model uses ONNX opset " + std::to_string(opset) +
            ", newer than the newest memopt knows (" +
            std::to_string(kNewestKnownOpset) +
            "); export it with opset_version=" +
            std::to_string(kNewestKnownOpset) + " or older";
    return false;
  }
  if (model.ir_version() > kLibraryIRVersion) {
    if (!checkElementTypes(model.graph(), error))
      return false;
    model.set_ir_version(kLibraryIRVersion);
  }
  if (opset <= kLibraryOpset)
    return true;
  if (!adaptNodes(*model.mutable_graph(), opset, error))
    return false;
  setDefaultOpset(model, kLibraryOpset);
  return true;
}
