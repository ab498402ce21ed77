//===- memopt-translate.cpp - Translations into and out of memopt IR ------===//
//
// mlirTranslateMain with memopt's translations, e.g.
//   memopt-translate --import-onnx model.onnx -o model.mlir
// and upstream's EmitC-to-C++ printer (--mlir-to-cpp) for the output of
// convert-tg-to-emitc.
//
//===----------------------------------------------------------------------===//

#include "memopt/Target/ONNX/ImportONNX.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

/// mlirTranslateMain reports a missing input without an "error:" prefix;
/// check the positional arguments first so the user gets one.
static bool inputsExist(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-o" || arg == "--o") {
      ++i;
      continue;
    }
    if (arg.starts_with("-"))
      continue;
    if (!llvm::sys::fs::exists(arg)) {
      llvm::errs() << "error: cannot open input file '" << arg
                   << "': no such file\n";
      return false;
    }
  }
  return true;
}

int main(int argc, char **argv) {
  if (!inputsExist(argc, argv))
    return 1;
  memopt::registerImportONNXTranslation();
  mlir::registerToCppTranslation();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "memopt translation driver\n"))
             ? 1
             : 0;
}
