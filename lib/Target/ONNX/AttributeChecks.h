//===- AttributeChecks.h - ONNX attribute values against the spec -*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_ATTRIBUTECHECKS_H
#define MEMOPT_LIB_TARGET_ONNX_ATTRIBUTECHECKS_H

#include <onnx/onnx_pb.h>

#include <string>

namespace memopt::onnx_import {

/// Checks the attribute values of `node` against the ONNX operator spec where
/// the ONNX checker only checks their types: window attribute lengths and
/// signs, auto_pad and Cast targets by name, 0/1 flags, the one-element value
/// of ConstantOfShape, exactly one value of Constant. Returns false with
/// `error` (without the node's name) on the first violation.
bool checkNodeAttributes(const onnx::NodeProto &node, std::string &error);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_ATTRIBUTECHECKS_H
