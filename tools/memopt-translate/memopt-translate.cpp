//===- memopt-translate.cpp - Translations into and out of memopt IR ------===//
//
// mlirTranslateMain with memopt's translations, e.g.
//   memopt-translate --import-onnx model.onnx -o model.mlir
// and upstream's EmitC-to-C++ printer (--mlir-to-cpp) for the output of
// convert-tg-to-emitc, which keeps the module's #memopt.target.
//
//===----------------------------------------------------------------------===//

#include "../common/CrashBoundary.h"
#include "../common/ParserInput.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Target/ONNX/ImportONNX.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

/// mlirTranslateMain reports a missing input without an "error:" prefix;
/// check the positional arguments first so the user gets one. MLIR inputs
/// (all but --import-onnx's) are also checked for what crashes MLIR's
/// parser (../common/ParserInput.h).
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
    if (buffer && !memopt::tools::checkParserInput((*buffer)->getBuffer(), arg,
                                                   "memopt-translate"))
      return false;
  }
  return true;
}

/// --mlir-to-cpp: upstream's EmitC printer, parsing with memopt's dialect
/// too (upstream's registration knows only EmitC and its neighbours).
static void registerToCppTranslation() {
  mlir::TranslateFromMLIRRegistration registration(
      "mlir-to-cpp", "translate the output of convert-tg-to-emitc to C++",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return mlir::emitc::translateToCpp(op, os);
      },
      [](mlir::DialectRegistry &registry) {
        registry.insert<memopt::MemoptDialect, mlir::emitc::EmitCDialect,
                        mlir::func::FuncDialect>();
      });
}

int main(int argc, char **argv) {
  if (!checkInputs(argc, argv))
    return 1;
  memopt::registerImportONNXTranslation();
  registerToCppTranslation();
  return memopt::tools::runCrashSafe(argv[0], "memopt-translate", [&] {
    return mlir::failed(mlir::mlirTranslateMain(argc, argv,
                                                "memopt translation driver\n"))
               ? 1
               : 0;
  });
}
