//===- OnnxAttributes.h - Typed access to ONNX node attributes --*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_ONNXATTRIBUTES_H
#define MEMOPT_LIB_TARGET_ONNX_ONNXATTRIBUTES_H

#include "llvm/ADT/SmallVector.h"

#include <onnx/onnx_pb.h>

#include <charconv>
#include <cstdlib>
#include <string>

namespace memopt::onnx_import {

inline const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                            const std::string &name) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

inline int64_t attrInt(const onnx::NodeProto &node, const std::string &name,
                       int64_t fallback) {
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr ? attr->i() : fallback;
}

/// The double closest to the shortest decimal that round-trips `value`:
/// ONNX stores float32, and 1e-5f printed as 9.9999997473787516E-6 in the
/// IR would only confuse readers.
inline double shortestDecimal(float value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  *result.ptr = '\0';
  return std::strtod(buffer, nullptr);
}

inline double attrFloat(const onnx::NodeProto &node, const std::string &name,
                        float fallback) {
  const onnx::AttributeProto *attr = findAttr(node, name);
  return shortestDecimal(attr ? attr->f() : fallback);
}

inline std::string attrString(const onnx::NodeProto &node,
                              const std::string &name,
                              const std::string &fallback) {
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr ? attr->s() : fallback;
}

inline llvm::SmallVector<int64_t> attrInts(const onnx::NodeProto &node,
                                           const std::string &name,
                                           llvm::SmallVector<int64_t> fallback) {
  const onnx::AttributeProto *attr = findAttr(node, name);
  if (!attr)
    return fallback;
  return llvm::SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

/// The name diagnostics give the node at position `index` of its graph: its
/// own, or "<op type>_<index>" when it has none.
inline std::string nodeName(const onnx::NodeProto &node, size_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                             : node.name();
}

/// The node's input `i`, or "" when absent (ONNX marks skipped optional
/// inputs with an empty name).
inline std::string inputName(const onnx::NodeProto &node, int i) {
  return i < node.input_size() ? node.input(i) : std::string();
}

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_ONNXATTRIBUTES_H
