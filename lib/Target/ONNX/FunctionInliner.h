//===- FunctionInliner.h - Model-local ONNX functions, inlined ------------===//
//
// An ONNX model may define functions (FunctionProto) that its nodes call by
// domain and name; exporters write them for modules kept as functions. memopt
// imports one graph of operators: every call is replaced by the function's
// body, its values renamed under the call's name, its attribute references
// bound to the call's attributes (or the function's defaults).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ONNX_FUNCTIONINLINER_H
#define MEMOPT_LIB_TARGET_ONNX_FUNCTIONINLINER_H

#include <onnx/onnx_pb.h>

#include <string>

namespace memopt::onnx_import {

/// Inlines every call of a model-local function into the main graph, then
/// drops the functions. Fails on a recursion deeper than a fixed bound, a
/// call with more inputs or outputs than the function declares, or a
/// function whose default opset differs from the model's.
bool inlineLocalFunctions(onnx::ModelProto &model, std::string &error);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_FUNCTIONINLINER_H
