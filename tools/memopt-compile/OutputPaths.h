//===- OutputPaths.h - memopt-compile's outputs, checked and atomic -*- C++ -*-===//

#ifndef MEMOPT_TOOLS_MEMOPTCOMPILE_OUTPUTPATHS_H
#define MEMOPT_TOOLS_MEMOPTCOMPILE_OUTPUTPATHS_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace memopt::tool {

/// Where each output of one memopt-compile run lands. Outputs are written
/// to temporary files next to their targets, then renamed over them all at
/// the end, so that a failure leaves every previous output as it was.
class OutputFiles {
public:
  /// Checks -o, the weights file beside it, --report and --timeline (empty:
  /// not requested) by the rules of memopt/Runtime/OutputPaths.h against
  /// each other and the input model, before anything is written. Prints
  /// the error and fails.
  mlir::LogicalResult prepare(llvm::StringRef input, llvm::StringRef output,
                              llvm::StringRef weights, llvm::StringRef report,
                              llvm::StringRef timeline);

  /// The path the C++ compiler writes -o to (a temporary file).
  const std::string &binaryPath() const { return binary.temporary; }

  /// Records that the C++ compiler wrote binaryPath().
  void binaryWritten() { binary.written = !binary.temporary.empty(); }

  /// Writes the weights file, --report or --timeline contents to its
  /// temporary file.
  mlir::LogicalResult writeWeights(llvm::function_ref<void(llvm::raw_ostream &)> write);
  mlir::LogicalResult writeReport(llvm::function_ref<void(llvm::raw_ostream &)> write);
  mlir::LogicalResult writeTimeline(llvm::function_ref<void(llvm::raw_ostream &)> write);

  /// Renames every written temporary file over its target (those not
  /// written are removed, their targets untouched).
  mlir::LogicalResult commit();

  /// Removes the temporary files that are left.
  ~OutputFiles();

private:
  struct File {
    std::string what, target, temporary;
    bool written = false;
  };
  mlir::LogicalResult writeTo(File &file,
                              llvm::function_ref<void(llvm::raw_ostream &)> write);

  File binary, weights, report, timeline;
};

} // namespace memopt::tool

#endif // MEMOPT_TOOLS_MEMOPTCOMPILE_OUTPUTPATHS_H
