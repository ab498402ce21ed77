//===- SourceDirectory.cpp - Where memopt-compile's sources go ------------===//

#include "SourceDirectory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <climits>
#include <csignal>
#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace memopt::tool;

namespace {

/// The temporary directory of the run, for removeTemporaryDirectory.
char temporaryDirectory[PATH_MAX];

/// Called by LLVM's signal handler on an interrupt (SIGINT, SIGTERM,
/// SIGHUP), after it removed the registered files and restored the default
/// handlers: removes the emptied temporary directory (rmdir is
/// async-signal-safe) and ends the process as an interrupt does.
void removeTemporaryDirectory() {
  ::rmdir(temporaryDirectory);
  ::raise(SIGINT);
}

} // namespace

LogicalResult SourceDirectory::create(llvm::StringRef saveTemps) {
  dir = saveTemps;
  keepIt = !saveTemps.empty();
  if (keepIt) {
    if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
      llvm::errs() << "memopt-compile: error: cannot create '" << dir
                   << "': " << error.message() << "\n";
      return failure();
    }
    return success();
  }
  if (llvm::sys::fs::createUniqueDirectory("memopt-compile", dir)) {
    llvm::errs() << "memopt-compile: error: cannot create a temporary "
                    "directory\n";
    dir.clear();
    return failure();
  }
  // An interrupted run (Ctrl-C, SIGTERM) leaves no temporary directory:
  // LLVM's handler removes the files registered by path(), then
  // removeTemporaryDirectory the emptied directory.
  if (dir.size() < sizeof(temporaryDirectory)) {
    std::memcpy(temporaryDirectory, dir.c_str(), dir.size() + 1);
    llvm::sys::SetInterruptFunction(removeTemporaryDirectory);
  }
  return success();
}

SourceDirectory::~SourceDirectory() {
  if (!keepIt && !dir.empty())
    llvm::sys::fs::remove_directories(dir);
}

std::string SourceDirectory::path(llvm::StringRef name) const {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  if (!keepIt)
    llvm::sys::RemoveFileOnSignal(path);
  return path.str().str();
}

LogicalResult memopt::tool::writeFile(
    llvm::StringRef path,
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (!error) {
    write(os);
    os.close();
    error = os.error();
  }
  if (error) {
    llvm::errs() << "memopt-compile: error: cannot write '" << path
                 << "': " << error.message() << "\n";
    return failure();
  }
  return success();
}
