//===- ModelLoader.h - Parse, check, convert and infer ONNX -----*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H
#define MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H

#include "memopt/Target/ONNX/ImportONNX.h"

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

namespace memopt::onnx_import {

/// Parses `bytes` as an ONNX model, reads its external data (from
/// `modelDirectory`), reconciles a torch.export file with its signature
/// (`constants` receives the float initializers that are not parameters),
/// adapts newer opsets to 17 (OpsetAdapters.h), validates it with the ONNX
/// checker, converts older opsets to 17, applies the input-shape overrides
/// and runs ONNX shape inference; `summary` receives what was decided. On failure returns false and sets `error`
/// to a one-line cause. This is the only code of memopt that lets C++
/// exceptions (thrown by the ONNX library) happen; none escapes it.
/// `sourceOpset` receives the opset the model was exported with.
bool loadModel(llvm::StringRef bytes, llvm::StringRef modelDirectory,
               const ONNXImportOptions &options, onnx::ModelProto &model,
               int64_t &sourceOpset, std::set<std::string> &constants,
               ONNXImportSummary &summary, std::string &error);

/// The version of the default ("" or "ai.onnx") opset the model imports, or
/// -1 when it imports none.
int64_t defaultOpsetVersion(const onnx::ModelProto &model);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_MODELLOADER_H
