//===- memopt-opt.cpp - memopt's optimizer driver -------------------------===//
//
// MlirOptMain with memopt's dialects, passes and training pipeline
// (--memopt-training-pipeline, what memopt-compile runs) plus the upstream
// passes that are useful on its IR (canonicalize, cse, ...).
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Passes.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"
#include "memopt/InitAllDialects.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  memopt::tg::registerTGPasses();
  memopt::registerMemoptAnalysisPasses();
  memopt::registerMemoptConversionPasses();
  memopt::registerMemoptPasses();
  memopt::registerTrainingPipeline();
  mlir::DialectRegistry registry;
  memopt::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "memopt optimizer driver\n", registry));
}
