//===- Status.h - Success or an error message -------------------*- C++ -*-===//
//
// The trainer's host code is built with -fno-exceptions: a function that can
// fail returns a Status, and trainerMain prints the message as
// `error: <message>`.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_STATUS_H
#define MEMOPT_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace memopt::rt {

class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }
  /// A failure that every rank of a multi-process run reaches at the same
  /// point (the same command line, a value they all gathered): the ranks
  /// end together, rank 0 saying why, without MPI_Abort, which may drop
  /// output still on its way to mpirun.
  static Status errorOnEveryRank(std::string message) {
    Status status = error(std::move(message));
    status.everyRank = true;
    return status;
  }

  bool ok() const { return !failed; }
  bool onEveryRank() const { return everyRank; }
  /// The message of a failure, without the `error: ` prefix.
  const std::string &message() const { return text; }

private:
  bool failed = false;
  bool everyRank = false;
  std::string text;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STATUS_H
