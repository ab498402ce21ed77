//===- AttributeChecks.cpp - ONNX attribute values against the spec -------===//
//
// The ONNX 1.12 checker verifies that attributes have the schema's types but
// not their values: a kernel_shape of three values on a 2-D pool, an
// auto_pad of "BOGUS" or a Cast to type 1234 all pass it. The converters read
// attributes assuming the spec holds, so every node is checked here first,
// also the ones that constant folding evaluates.
//
//===----------------------------------------------------------------------===//

#include "AttributeChecks.h"
#include "OnnxAttributes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace memopt;
using namespace memopt::onnx_import;

namespace {
bool fail(std::string &error, std::string message) {
  error = std::move(message);
  return false;
}

/// Attributes that ONNX defines as 0/1 flags, on whichever op has them.
bool checkFlags(const onnx::NodeProto &node, std::string &error) {
  static const char *const flags[] = {
      "ceil_mode", "count_include_pad", "keepdims",  "transA",
      "transB",    "training_mode",     "allowzero", "noop_with_empty_axes",
      "exclude_outside"};
  for (const char *name : flags) {
    const onnx::AttributeProto *attr = findAttr(node, name);
    if (attr && attr->i() != 0 && attr->i() != 1)
      return fail(error, std::string(name) + " must be 0 or 1, got " +
                             std::to_string(attr->i()));
  }
  return true;
}

/// An ints attribute of a window op of `rank` spatial dimensions (negative
/// when unknown): `perDim` values per dimension, each at least `minimum`.
bool checkWindowInts(const onnx::NodeProto &node, const char *name,
                     int64_t rank, int64_t perDim, int64_t minimum,
                     std::string &error) {
  const onnx::AttributeProto *attr = findAttr(node, name);
  if (!attr)
    return true;
  if (rank >= 0 && attr->ints_size() != rank * perDim)
    return fail(error, std::string(name) + " has " +
                           std::to_string(attr->ints_size()) +
                           " values, expected " + std::to_string(rank * perDim) +
                           " for " + std::to_string(rank) +
                           " spatial dimensions");
  for (int64_t v : attr->ints())
    if (v < minimum)
      return fail(error, std::string(name) + " must be at least " +
                             std::to_string(minimum) +
                             " in every element, got " + std::to_string(v));
  return true;
}

bool checkWindow(const onnx::NodeProto &node, std::string &error) {
  // The window rank: from kernel_shape, else from whichever list is given.
  int64_t rank = -1;
  if (const onnx::AttributeProto *kernel = findAttr(node, "kernel_shape"))
    rank = kernel->ints_size();
  else if (const onnx::AttributeProto *strides = findAttr(node, "strides"))
    rank = strides->ints_size();
  else if (const onnx::AttributeProto *dilations = findAttr(node, "dilations"))
    rank = dilations->ints_size();
  if (rank == 0)
    return fail(error, "the window has no spatial dimensions");
  if (!checkWindowInts(node, "kernel_shape", rank, 1, 1, error) ||
      !checkWindowInts(node, "strides", rank, 1, 1, error) ||
      !checkWindowInts(node, "dilations", rank, 1, 1, error) ||
      !checkWindowInts(node, "pads", rank, 2, 0, error) ||
      !checkWindowInts(node, "output_padding", rank, 1, 0, error))
    return false;
  if (const onnx::AttributeProto *shape = findAttr(node, "output_shape")) {
    // The spec allows the spatial sizes alone or with N and C in front.
    if (rank >= 0 && shape->ints_size() != rank &&
        shape->ints_size() != rank + 2)
      return fail(error, "output_shape has " +
                             std::to_string(shape->ints_size()) +
                             " values, expected " + std::to_string(rank) +
                             " (or " + std::to_string(rank + 2) +
                             " with N and C)");
    for (int64_t v : shape->ints())
      if (v < 1)
        return fail(error, "output_shape must be positive in every element, "
                           "got " + std::to_string(v));
  }
  std::string autoPad = attrString(node, "auto_pad", "NOTSET");
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"},
                          autoPad))
    return fail(error, "auto_pad '" + autoPad +
                           "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, "
                           "VALID");
  if (findAttr(node, "group") && attrInt(node, "group", 1) < 1)
    return fail(error, "group must be at least 1, got " +
                           std::to_string(attrInt(node, "group", 1)));
  return true;
}

bool checkCast(const onnx::NodeProto &node, std::string &error) {
  const onnx::AttributeProto *to = findAttr(node, "to");
  if (!to)
    return fail(error, "Cast has no 'to' attribute");
  if (to->type() == onnx::AttributeProto::STRING)
    return true; // opsets 1 to 5 name the type; the converter checks those
  if (to->i() > INT32_MAX || to->i() < INT32_MIN ||
      !onnx::TensorProto::DataType_IsValid(static_cast<int>(to->i())) ||
      to->i() == onnx::TensorProto::UNDEFINED)
    return fail(error, "Cast target 'to' = " + std::to_string(to->i()) +
                           " is not an ONNX data type");
  return true;
}

bool checkConstantOfShape(const onnx::NodeProto &node, std::string &error) {
  const onnx::AttributeProto *value = findAttr(node, "value");
  if (!value)
    return true;
  int64_t count = 1;
  for (int64_t d : value->t().dims())
    count = d < 0 ? -1 : count * d;
  if (count != 1)
    return fail(error, "ConstantOfShape 'value' must hold exactly one "
                       "element, got a tensor of " +
                           std::to_string(value->t().dims_size()) +
                           " dimensions and " + std::to_string(count) +
                           " elements");
  return true;
}

bool checkConstant(const onnx::NodeProto &node, std::string &error) {
  int given = 0;
  for (const onnx::AttributeProto &attr : node.attribute())
    given += llvm::StringRef(attr.name()).starts_with("value") ||
             attr.name() == "sparse_value";
  if (given != 1)
    return fail(error, "Constant must have exactly one value attribute, got " +
                           std::to_string(given));
  return true;
}
} // namespace

bool memopt::onnx_import::checkNodeAttributes(const onnx::NodeProto &node,
                                              std::string &error) {
  if (!checkFlags(node, error))
    return false;
  const std::string &op = node.op_type();
  if (op == "Conv" || op == "ConvTranspose" || op == "MaxPool" ||
      op == "AveragePool")
    return checkWindow(node, error);
  if (op == "Cast")
    return checkCast(node, error);
  if (op == "ConstantOfShape")
    return checkConstantOfShape(node, error);
  if (op == "Constant")
    return checkConstant(node, error);
  return true;
}
