//===- memopt-opt.cpp - memopt's optimizer driver -------------------------===//
//
// MlirOptMain with memopt's dialects, passes and training pipeline
// (--memopt-training-pipeline, what memopt-compile runs) plus the upstream
// passes that are useful on its IR (canonicalize, cse, ...). The input is
// checked for what crashes MLIR's parser before MLIR parses it
// (../common/ParserInput.h), and a crash is a one-line error
// (../common/CrashBoundary.h).
//
//===----------------------------------------------------------------------===//

#include "../common/CrashBoundary.h"
#include "../common/ParserInput.h"

#include "memopt/Analysis/Passes.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"
#include "memopt/InitAllDialects.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

/// What MlirOptMain(argc, argv, ...) does after parsing the command line,
/// with the input checked between reading and parsing.
static int optimize(llvm::StringRef inputFilename,
                    llvm::StringRef outputFilename,
                    mlir::DialectRegistry &registry,
                    const mlir::MlirOptMainConfig &config) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &message);
  if (!input) {
    llvm::errs() << message << "\n";
    return 1;
  }
  if (!memopt::tools::checkParserInput(input->getBuffer(), inputFilename,
                                       "memopt-opt"))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &message);
  if (!output) {
    llvm::errs() << message << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  memopt::tg::registerTGPasses();
  memopt::registerMemoptAnalysisPasses();
  memopt::registerMemoptConversionPasses();
  memopt::registerMemoptPasses();
  memopt::registerTrainingPipeline();
  mlir::DialectRegistry registry;
  memopt::registerAllDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "memopt optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  return memopt::tools::runCrashSafe(argv[0], "memopt-opt", [&] {
    return optimize(inputFilename, outputFilename, registry, config);
  });
}
