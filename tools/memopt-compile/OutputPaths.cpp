//===- OutputPaths.cpp - memopt-compile's outputs, checked and atomic -----===//
//
// `memopt-compile m.onnx -o m.onnx` once replaced the model it was reading,
// `--report` equal to `-o` kept only the report, and an unwritable --report
// failed after -o had been replaced. All outputs are now checked first (the
// rules the training binary follows too, memopt/Runtime/OutputPaths.h) and
// written to temporary files renamed at the very end.
//
//===----------------------------------------------------------------------===//

#include "OutputPaths.h"

#include "memopt/Runtime/OutputPaths.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace memopt::tool;

static void printError(const llvm::Twine &message) {
  llvm::errs() << "memopt-compile: error: " << message << "\n";
}

LogicalResult OutputFiles::prepare(llvm::StringRef input,
                                   llvm::StringRef output,
                                   llvm::StringRef weights,
                                   llvm::StringRef report,
                                   llvm::StringRef timeline) {
  std::vector<rt::NamedPath> outputs = {{"-o", output.str()},
                                        {"-o's weights file", weights.str()},
                                        {"--report", report.str()},
                                        {"--timeline", timeline.str()}};
  if (rt::Status status = rt::checkOutputs(outputs, {{"the input model",
                                                      input.str()}});
      !status.ok()) {
    printError(status.message());
    return failure();
  }
  File *files[] = {&binary, &this->weights, &this->report, &this->timeline};
  for (auto [file, named] : llvm::zip_equal(files, outputs)) {
    file->what = named.what;
    if (named.path.empty())
      continue;
    (void)rt::outputTarget(named, file->target); // checked above
    // In the target's directory, so that the rename is atomic.
    llvm::SmallString<128> temporary;
    if (std::error_code error = llvm::sys::fs::createUniqueFile(
            file->target + ".tmp-%%%%%%", temporary)) {
      printError("cannot write " + named.what + " " + named.path + ": " +
                 error.message());
      return failure();
    }
    file->temporary = temporary.str().str();
    // Interrupted (Ctrl-C, SIGTERM), the run leaves no temporary file
    // beside the user's outputs.
    llvm::sys::RemoveFileOnSignal(file->temporary);
  }
  return success();
}

LogicalResult
OutputFiles::writeTo(File &file,
                     llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code error;
  llvm::raw_fd_ostream os(file.temporary, error);
  if (!error) {
    write(os);
    os.close();
    error = os.error();
  }
  if (error) {
    printError("cannot write " + file.what + " " + file.target + ": " +
               error.message());
    return failure();
  }
  file.written = true;
  return success();
}

LogicalResult OutputFiles::writeWeights(
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  return writeTo(weights, write);
}

LogicalResult OutputFiles::writeReport(
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  return writeTo(report, write);
}

LogicalResult OutputFiles::writeTimeline(
    llvm::function_ref<void(llvm::raw_ostream &)> write) {
  return writeTo(timeline, write);
}

LogicalResult OutputFiles::commit() {
  // The weights before the binary: a binary never runs beside weights
  // older than itself (newer ones it refuses if they do not match).
  for (File *file : {&timeline, &report, &weights, &binary}) {
    if (!file->written)
      continue;
    if (std::error_code error =
            llvm::sys::fs::rename(file->temporary, file->target)) {
      printError("cannot write " + file->what + " " + file->target + ": " +
                 error.message());
      return failure();
    }
    llvm::sys::DontRemoveFileOnSignal(file->temporary);
    file->temporary.clear();
  }
  return success();
}

OutputFiles::~OutputFiles() {
  for (File *file : {&binary, &weights, &report, &timeline})
    if (!file->temporary.empty()) {
      llvm::sys::fs::remove(file->temporary);
      llvm::sys::DontRemoveFileOnSignal(file->temporary);
    }
}
