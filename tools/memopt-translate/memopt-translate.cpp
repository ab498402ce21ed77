//===- memopt-translate.cpp - Translations into and out of memopt IR ------===//
//
// mlirTranslateMain with memopt's translations, e.g.
//   memopt-translate --import-onnx model.onnx -o model.mlir
// and upstream's EmitC-to-C++ printer (--mlir-to-cpp) for the output of
// convert-tg-to-emitc.
//
//===----------------------------------------------------------------------===//

#include "../common/NestingDepth.h"

#include "memopt/Target/ONNX/ImportONNX.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

/// mlirTranslateMain reports a missing input without an "error:" prefix;
/// check the positional arguments first so the user gets one. MLIR inputs
/// (all but --import-onnx's) are also checked for nesting that would
/// overflow the parser's stack.
static bool checkInputs(int argc, char **argv) {
  bool onnx = false;
  for (int i = 1; i < argc; ++i)
    onnx |= llvm::StringRef(argv[i]) == "--import-onnx";
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
    if (onnx)
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(arg);
    if (buffer && !memopt::tools::checkNestingDepth((*buffer)->getBuffer(), arg,
                                                    "memopt-translate"))
      return false;
  }
  return true;
}

int main(int argc, char **argv) {
  if (!checkInputs(argc, argv))
    return 1;
  memopt::registerImportONNXTranslation();
  mlir::registerToCppTranslation();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "memopt translation driver\n"))
             ? 1
             : 0;
}
