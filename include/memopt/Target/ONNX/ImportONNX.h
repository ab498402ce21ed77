//===- ImportONNX.h - ONNX to tg dialect importer ---------------*- C++ -*-===//
//
// Turns an ONNX model (opsets 11 to 17, older ones converted up) into a
// module holding one `func.func @main` of tg ops. Initializers become
// arguments named after their ONNX names; shapes are resolved statically.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TARGET_ONNX_IMPORTONNX_H
#define MEMOPT_TARGET_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>

namespace memopt {

struct ONNXImportOptions {
  /// Overrides the leading (batch) dimension of every graph input.
  std::optional<int64_t> batch;
  /// Overrides C,H,W of every rank-4 graph input.
  llvm::SmallVector<int64_t, 3> inputShape;
};

/// Imports the serialized ONNX model in `buffer`. Errors are reported as
/// diagnostics on `context`; returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
importONNX(llvm::MemoryBufferRef buffer, mlir::MLIRContext *context,
           const ONNXImportOptions &options = {});

/// Registers `--import-onnx` with mlir-translate style drivers, together with
/// its `--batch` and `--input-shape` options.
void registerImportONNXTranslation();

/// The newest ONNX opset the importer understands.
constexpr int64_t kMaxSupportedOpset = 17;

} // namespace memopt

#endif // MEMOPT_TARGET_ONNX_IMPORTONNX_H
