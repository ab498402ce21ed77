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
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <string>
#include <vector>

namespace memopt {

/// The largest --batch and --input-shape dimension the tools take: far
/// beyond any training run (a batch of 65536, a side of 65536 pixels),
/// and small enough that no tensor size overflows in the planners.
constexpr int64_t kMaxBatch = 65536;
constexpr int64_t kMaxInputDim = 65536;

struct ONNXImportOptions {
  /// Overrides the leading (batch) dimension of every graph input.
  std::optional<int64_t> batch;
  /// Overrides the channels and the 1 to 3 spatial sizes (C,L; C,H,W;
  /// C,D,H,W) of every graph input of one more rank; the import fails
  /// when no input has that rank.
  llvm::SmallVector<int64_t, 4> inputShape;
  /// Trains every BatchNormalization on its running statistics, which stay
  /// as they are (memopt-compile --freeze-batchnorm). By default each one
  /// trains as in `model.train()`: batch statistics, running statistics
  /// updated, whether the file holds its training or its inference form.
  bool freezeBatchNorm = false;
};

/// What the importer decided about the model as a whole, for the compile
/// report (docs/contract.md, "import").
struct ONNXImportSummary {
  /// producer_name and producer_version of the file.
  std::string producer;
  /// "torch.export" when the file carries torch.export's signature (PyTorch
  /// 2's default exporter), else "other" (TorchScript and other tools).
  std::string exporter;
  int64_t irVersion = 0;
  int64_t opset = 0;
  /// Whether initializers were read from external data files.
  bool externalData = false;
  struct BatchNorm {
    std::string node;
    /// "training" or "inference": the form the file holds.
    std::string exportedAs;
    /// "batch statistics" (running statistics updated) or "frozen".
    std::string trainedAs;
  };
  std::vector<BatchNorm> batchNorms;
  struct SharedInitializer {
    std::string name;
    /// The nodes whose weights it feeds.
    std::vector<std::string> nodes;
    /// "untied" (merged by the exporter's optimizer; trained as `names`) or
    /// "tied" (one parameter that the model shares).
    std::string treatment;
    std::vector<std::string> names;
  };
  std::vector<SharedInitializer> sharedInitializers;
  /// Reshapes whose shape the exporter fixed at its batch, re-derived for
  /// the batch of --batch.
  int64_t rebatchedReshapes = 0;
  /// Random numbers whose shape the exporter fixed at its batch (drop-path
  /// masks, [B, 1, 1, 1]), drawn at the batch of --batch.
  int64_t rebatchedRandoms = 0;
  /// Float initializers that are constants, not parameters (torch.export
  /// files only: what the signature does not list).
  std::vector<std::string> constantInitializers;
  /// The model as memopt trains it, serialized, when it differs from the
  /// file (external data read in, merged initializers untied): what a
  /// training binary reads its initial weights from (memopt-compile writes
  /// it beside the binary as BIN.weights.onnx) and writes the trained ones
  /// into.
  std::string normalizedModel;
};

/// Imports the serialized ONNX model in `buffer`. Errors are reported as
/// diagnostics on `context`; returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
importONNX(llvm::MemoryBufferRef buffer, mlir::MLIRContext *context,
           const ONNXImportOptions &options = {},
           ONNXImportSummary *summary = nullptr);

/// Registers `--import-onnx` with mlir-translate style drivers, together with
/// its `--batch` and `--input-shape` options.
/// The "import" section of the compile report.
llvm::json::Object toJSON(const ONNXImportSummary &summary);

void registerImportONNXTranslation();


} // namespace memopt

#endif // MEMOPT_TARGET_ONNX_IMPORTONNX_H
