//===- SourceDirectory.h - Where memopt-compile's sources go ----*- C++ -*-===//
//
// The directory of one run's intermediate files (the IR of each phase, the
// generated C++, the compiler's log): the
// --save-temps directory, kept, or a temporary one that is removed at the
// end and when the run is interrupted (Ctrl-C, SIGTERM).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMOPTCOMPILE_SOURCEDIRECTORY_H
#define MEMOPT_TOOLS_MEMOPTCOMPILE_SOURCEDIRECTORY_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace memopt::tool {

class SourceDirectory {
public:
  SourceDirectory() = default;
  SourceDirectory(const SourceDirectory &) = delete;
  SourceDirectory &operator=(const SourceDirectory &) = delete;
  /// Removes a temporary directory that was not kept.
  ~SourceDirectory();

  /// Creates `saveTemps` (kept), or without it a temporary directory;
  /// prints the error and fails when it cannot.
  mlir::LogicalResult create(llvm::StringRef saveTemps);

  /// The path of `name` in the directory; in a temporary one, the file is
  /// removed if the run is interrupted.
  std::string path(llvm::StringRef name) const;

  /// Whether the directory stays after the run (--save-temps, or keep()).
  bool kept() const { return keepIt; }
  /// Keeps the directory (the sources of a failure to look into); returns
  /// its path.
  llvm::StringRef keep() {
    keepIt = true;
    return dir;
  }

private:
  llvm::SmallString<128> dir;
  bool keepIt = false;
};

/// Writes `path` with `write`; prints the error and fails on an I/O error.
mlir::LogicalResult writeFile(llvm::StringRef path,
                              llvm::function_ref<void(llvm::raw_ostream &)>
                                  write);

} // namespace memopt::tool

#endif // MEMOPT_TOOLS_MEMOPTCOMPILE_SOURCEDIRECTORY_H
