//===- ImportONNX.cpp - ONNX to tg dialect importer -----------------------===//

#include "memopt/Target/ONNX/ImportONNX.h"
#include "GraphImporter.h"
#include "ModelLoader.h"

#include "memopt/InitAllDialects.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace memopt;

/// The shape of every value at the batch the model was exported with,
/// from an import without --batch (its diagnostics dropped: a model that
/// fails there fails the real import too); the importer re-derives from
/// them the shapes the exporter fixed at that batch.
static onnx_import::ValueShapes
exportTimeShapes(StringRef bytes, MLIRContext *context, StringRef fileName,
                 const ONNXImportOptions &options) {
  ONNXImportOptions exported = options;
  exported.batch.reset();
  onnx::ModelProto model;
  std::string error;
  int64_t sourceOpset = -1;
  std::set<std::string> constants;
  ONNXImportSummary summary;
  StringRef directory = llvm::sys::path::parent_path(fileName);
  if (!onnx_import::loadModel(bytes,
                              directory.empty() ? StringRef(".") : directory,
                              exported, model, sourceOpset, constants, summary,
                              error))
    return {};
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  onnx_import::ValueShapes none;
  onnx_import::GraphImporter importer(context, model, fileName, sourceOpset,
                                      exported, constants, none, summary);
  OwningOpRef<ModuleOp> module = importer.run();
  return importer.valueShapes();
}

OwningOpRef<ModuleOp> memopt::importONNX(llvm::MemoryBufferRef buffer,
                                         MLIRContext *context,
                                         const ONNXImportOptions &options,
                                         ONNXImportSummary *summary) {
  context->loadDialect<tg::TGDialect, func::FuncDialect>();
  StringRef fileName = buffer.getBufferIdentifier();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  onnx::ModelProto model;
  std::string error;
  int64_t sourceOpset = -1;
  std::set<std::string> constants;
  onnx_import::ValueShapes exportShapes;
  if (options.batch)
    exportShapes = exportTimeShapes(buffer.getBuffer(), context, fileName,
                                    options);
  ONNXImportSummary ignored;
  ONNXImportSummary &decisions = summary ? *summary : ignored;
  // External data files lie beside the model (stdin: the working folder).
  StringRef directory = llvm::sys::path::parent_path(fileName);
  if (!onnx_import::loadModel(buffer.getBuffer(),
                              directory.empty() ? StringRef(".") : directory,
                              options, model, sourceOpset, constants,
                              decisions, error)) {
    emitError(fileLoc) << error;
    return nullptr;
  }
  return onnx_import::GraphImporter(context, model, fileName, sourceOpset,
                                    options, constants, exportShapes,
                                    decisions)
      .run();
}

llvm::json::Object memopt::toJSON(const ONNXImportSummary &summary) {
  llvm::json::Array batchNorms, shared;
  for (const ONNXImportSummary::BatchNorm &bn : summary.batchNorms)
    batchNorms.push_back(llvm::json::Object{{"node", bn.node},
                                            {"exported_as", bn.exportedAs},
                                            {"trained_as", bn.trainedAs}});
  for (const ONNXImportSummary::SharedInitializer &init :
       summary.sharedInitializers)
    shared.push_back(llvm::json::Object{
        {"initializer", init.name},
        {"nodes", llvm::json::Array(init.nodes)},
        {"treatment", init.treatment},
        {"trained_as", llvm::json::Array(init.names)}});
  return llvm::json::Object{
      {"producer", summary.producer},
      {"exporter", summary.exporter},
      {"ir_version", summary.irVersion},
      {"opset", summary.opset},
      {"external_data", summary.externalData},
      {"batch_norms", std::move(batchNorms)},
      {"shared_initializers", std::move(shared)},
      {"constant_initializers",
       llvm::json::Array(summary.constantInitializers)},
      {"rebatched_reshapes", summary.rebatchedReshapes},
      {"rebatched_randoms", summary.rebatchedRandoms}};
}

namespace {
llvm::cl::opt<int64_t> batchOption(
    "batch", llvm::cl::desc("Batch size of every graph input (--import-onnx)"),
    llvm::cl::init(0));
llvm::cl::opt<bool> freezeBatchNormOption(
    "freeze-batchnorm",
    llvm::cl::desc("Train BatchNorm on its running statistics, frozen "
                   "(--import-onnx)"));
llvm::cl::list<int64_t> inputShapeOption(
    "input-shape",
    llvm::cl::desc("C and the spatial sizes (C,L; C,H,W; C,D,H,W) of "
                   "every graph input of that rank plus one (--import-onnx)"),
    llvm::cl::CommaSeparated);
} // namespace

void memopt::registerImportONNXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model into the tg dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        ONNXImportOptions options;
        options.freezeBatchNorm = freezeBatchNormOption;
        if (batchOption.getNumOccurrences()) {
          if (batchOption <= 0 || batchOption > kMaxBatch) {
            emitError(UnknownLoc::get(context))
                << "--batch must be an integer from 1 to " << kMaxBatch
                << ", got " << batchOption.getValue();
            return nullptr;
          }
          options.batch = batchOption;
        }
        if (inputShapeOption.getNumOccurrences()) {
          if (inputShapeOption.size() < 2 || inputShapeOption.size() > 4 ||
              llvm::any_of(inputShapeOption, [](int64_t d) {
                return d <= 0 || d > kMaxInputDim;
              })) {
            emitError(UnknownLoc::get(context))
                << "--input-shape must be C,L or C,H,W or C,D,H,W, integers "
                   "from 1 to "
                << kMaxInputDim;
            return nullptr;
          }
          options.inputShape.assign(inputShapeOption.begin(),
                                    inputShapeOption.end());
        }
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return importONNX(buffer->getMemBufferRef(), context, options);
      },
      [](DialectRegistry &registry) { registerAllDialects(registry); });
}
