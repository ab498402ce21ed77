//===- FileIO.h - Atomic file writes and output-path checks -----*- C++ -*-===//
//
// Every file the trainer writes (the trained model, checkpoints, reports)
// replaces its previous version atomically: a reader, or a run killed at
// any point, sees either the old file or the complete new one.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_FILEIO_H
#define MEMOPT_RUNTIME_FILEIO_H

#include "memopt/Runtime/Status.h"

#include <cstddef>
#include <string>

namespace memopt::rt {

/// Writes `path` through `path.tmp`: commit() fsyncs the temporary file,
/// renames it over `path` and fsyncs the directory. A `path` that is a
/// symbolic link is written through (its target is replaced, the link
/// stays); one that is a device, FIFO or directory is refused
/// (OutputPaths.h). A writer destroyed
/// without commit() removes the temporary file.
class AtomicFileWriter {
public:
  AtomicFileWriter() = default;
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;
  ~AtomicFileWriter();

  Status open(const std::string &path);
  Status write(const void *data, size_t bytes);
  Status commit();

private:
  Status failure(const std::string &cause);

  std::string path;   // as given, for messages
  std::string target; // what the rename replaces: `path` or its link target
  std::string tmpPath;
  int fd = -1;
};

/// Writes `contents` to `path` with an AtomicFileWriter.
Status writeFileAtomically(const std::string &path,
                           const std::string &contents);

/// Fails with `cannot write <what> <path>: <cause>` unless `path` could be
/// written by an AtomicFileWriter (checkOutputs of OutputPaths.h); `what`
/// names the option, e.g. "--out".
Status checkWritable(const std::string &path, const std::string &what);

/// Fails with `<path>: not a regular file (...)` unless `path` names a
/// regular file (or a symbolic link to one). The trainer reads only those:
/// opening a FIFO blocks until a writer appears, and a device streams
/// without end.
Status checkRegularFile(const std::string &path);

/// fsync()s directory `dir`, making renames and removals in it durable.
Status syncDirectory(const std::string &dir);

/// The directory part of `path` ("." when it has none).
std::string parentDirectory(const std::string &path);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_FILEIO_H
