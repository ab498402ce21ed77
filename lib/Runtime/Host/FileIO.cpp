//===- FileIO.cpp - Atomic file writes and output-path checks -------------===//

#include "memopt/Runtime/FileIO.h"

#include "memopt/Runtime/OutputPaths.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memopt::rt {

namespace {

std::string errnoText() { return std::strerror(errno); }

} // namespace

std::string parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

Status syncDirectory(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open directory " + dir + ": " + errnoText());
  int rc = ::fsync(fd);
  int savedErrno = errno;
  ::close(fd);
  if (rc != 0)
    return Status::error("cannot sync directory " + dir + ": " +
                         std::strerror(savedErrno));
  return Status();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd >= 0) {
    ::close(fd);
    ::unlink(tmpPath.c_str());
  }
}

Status AtomicFileWriter::failure(const std::string &cause) {
  if (fd >= 0) {
    ::close(fd);
    ::unlink(tmpPath.c_str());
    fd = -1;
  }
  return Status::error("cannot write " + path + ": " + cause);
}

Status AtomicFileWriter::open(const std::string &output) {
  // Written through a symbolic link, never onto a device (OutputPaths.h).
  path = output;
  if (Status status = outputTarget({"", output}, target); !status.ok())
    return status;
  tmpPath = target + ".tmp";
  fd = ::open(tmpPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return Status::error("cannot write " + path + ": " + errnoText());
  return Status();
}

Status AtomicFileWriter::write(const void *data, size_t bytes) {
  const char *bytesLeft = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t written = ::write(fd, bytesLeft, bytes);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return failure(written < 0 ? errnoText() : "short write");
    bytesLeft += written;
    bytes -= static_cast<size_t>(written);
  }
  return Status();
}

Status AtomicFileWriter::commit() {
  if (::fsync(fd) != 0)
    return failure(errnoText());
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0) {
    std::string cause = errnoText();
    ::unlink(tmpPath.c_str());
    return Status::error("cannot write " + path + ": " + cause);
  }
  if (::rename(tmpPath.c_str(), target.c_str()) != 0) {
    std::string cause = errnoText();
    ::unlink(tmpPath.c_str());
    return Status::error("cannot write " + path + ": " + cause);
  }
  return syncDirectory(parentDirectory(target));
}

Status writeFileAtomically(const std::string &path,
                           const std::string &contents) {
  AtomicFileWriter writer;
  if (Status status = writer.open(path); !status.ok())
    return status;
  if (Status status = writer.write(contents.data(), contents.size());
      !status.ok())
    return status;
  return writer.commit();
}

Status checkWritable(const std::string &path, const std::string &what) {
  return checkOutputs({{what, path}});
}

Status checkRegularFile(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return Status::error(path + ": " + errnoText());
  if (S_ISREG(info.st_mode))
    return Status();
  return Status::error(path + ": not a regular file (" +
                       std::string(detail::fileKind(info.st_mode)) +
                       "); only regular files are read, remove or replace it");
}

} // namespace memopt::rt
