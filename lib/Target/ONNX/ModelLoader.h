//===- ModelLoader.h - Parse, check, convert and infer ONNX -----*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H
#define MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H

#include "memopt/Target/ONNX/ImportONNX.h"

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace memopt::onnx_import {

/// Parses `bytes` as an ONNX model, validates it with the ONNX checker,
/// converts it to opset kMaxSupportedOpset, applies the input-shape overrides
/// and runs ONNX shape inference. On failure returns false and sets `error`
/// to a one-line cause. This is the only code of memopt that lets C++
/// exceptions (thrown by the ONNX library) happen; none escapes it.
/// `sourceOpset` receives the opset the model was exported with.
bool loadModel(llvm::StringRef bytes, const ONNXImportOptions &options,
               onnx::ModelProto &model, int64_t &sourceOpset,
               std::string &error);

/// The version of the default ("" or "ai.onnx") opset the model imports, or
/// -1 when it imports none.
int64_t defaultOpsetVersion(const onnx::ModelProto &model);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H
