//===- OutputPaths.h - Where outputs land, checked before writing -*- C++ -*-===//
//
// Shared by the training binary (--out, --report, --trace) and memopt-compile
// (-o, --report, --timeline), header-only so that the tool does not link the
// trainer. The rules:
//  - an output that is a symbolic link is written through: its target is
//    replaced atomically and the link stays (a dangling link is refused);
//  - an existing output must be a regular file: a device node, FIFO, socket
//    or directory is refused, never replaced;
//  - two outputs, or an output and an input, that are the same file (by
//    canonical path, or by device and inode for hard links) are refused;
//  - every output's directory must accept a new file, checked before any
//    output is replaced.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_OUTPUTPATHS_H
#define MEMOPT_RUNTIME_OUTPUTPATHS_H

#include "memopt/Runtime/Status.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace memopt::rt {

/// A command-line path: the option that names it ("--out") and the path.
struct NamedPath {
  std::string what;
  std::string path;
};

namespace detail {

inline std::string canonicalDirectory(const std::string &path,
                                      std::string &base) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  base = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  if (!::realpath(dir.c_str(), resolved))
    return "";
  return resolved;
}

inline const char *fileKind(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISDIR(mode)  ? "a directory"
                          : "not a regular file";
}

} // namespace detail

/// The file that writing `output.path` replaces (see the rules above), as a
/// canonical path.
inline Status outputTarget(const NamedPath &output, std::string &target) {
  auto fail = [&](const std::string &cause) {
    return Status::error("cannot write " + output.what +
                         (output.what.empty() ? "" : " ") + output.path +
                         ": " + cause);
  };
  if (output.path.empty() || output.path.back() == '/')
    return fail("not a file name");
  struct stat link;
  bool exists = ::lstat(output.path.c_str(), &link) == 0;
  if (!exists && errno != ENOENT)
    return fail(std::strerror(errno));
  std::string path = output.path;
  if (exists && S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (!::realpath(output.path.c_str(), resolved))
      return fail(std::string("it is a symbolic link that cannot be "
                              "followed (") +
                  std::strerror(errno) + ")");
    path = resolved;
  }
  struct stat info;
  if (exists && ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    return fail(S_ISDIR(info.st_mode)
                    ? std::string(std::strerror(EISDIR))
                    : std::string("it is ") + detail::fileKind(info.st_mode) +
                          ", not a regular file; give a file name");
  std::string base;
  std::string dir = detail::canonicalDirectory(path, base);
  if (dir.empty())
    return fail(std::strerror(errno));
  target = (dir == "/" ? "" : dir) + "/" + base;
  return Status();
}

/// Checks `outputs` by the rules above (empty paths are skipped) and that
/// none is one of `inputs`; creates and removes a file next to each target
/// to know that it can be replaced.
inline Status checkOutputs(const std::vector<NamedPath> &outputs,
                           const std::vector<NamedPath> &inputs = {}) {
  struct Seen {
    const NamedPath *named;
    std::string target;
    bool exists;
    dev_t device;
    ino_t inode;
  };
  auto identify = [](const NamedPath &named, const std::string &target) {
    Seen seen{&named, target, false, 0, 0};
    struct stat info;
    if (::stat(target.c_str(), &info) == 0) {
      seen.exists = true;
      seen.device = info.st_dev;
      seen.inode = info.st_ino;
    }
    return seen;
  };
  auto same = [](const Seen &a, const Seen &b) {
    return a.target == b.target ||
           (a.exists && b.exists && a.device == b.device &&
            a.inode == b.inode);
  };
  std::vector<Seen> known;
  for (const NamedPath &input : inputs) {
    char resolved[PATH_MAX];
    if (!input.path.empty() && ::realpath(input.path.c_str(), resolved))
      known.push_back(identify(input, resolved));
  }
  size_t numInputs = known.size();
  for (const NamedPath &output : outputs) {
    if (output.path.empty())
      continue;
    std::string target;
    if (Status status = outputTarget(output, target); !status.ok())
      return status;
    Seen seen = identify(output, target);
    for (size_t i = 0; i < known.size(); ++i)
      if (same(seen, known[i]))
        return Status::error(
            output.what + " " + output.path + " and " + known[i].named->what +
            " " + known[i].named->path + " are the same file" +
            (i < numInputs ? "; writing it would destroy the input"
                           : "; one would overwrite the other") +
            ", give " + output.what + " another path");
    known.push_back(seen);
    // A file created next to the target shows that the directory accepts
    // the temporary file the atomic write renames.
    std::string probe = target + ".tmp";
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return Status::error("cannot write " + output.what + " " + output.path +
                           ": " + std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
  }
  return Status();
}

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_OUTPUTPATHS_H
