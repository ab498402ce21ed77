//===- memopt-translate.cpp - Translations into and out of memopt IR ------===//
//
// mlirTranslateMain with memopt's translations, e.g.
//   memopt-translate --import-onnx model.onnx -o model.mlir
//
//===----------------------------------------------------------------------===//

#include "memopt/Target/ONNX/ImportONNX.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  memopt::registerImportONNXTranslation();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "memopt translation driver\n"))
             ? 1
             : 0;
}
