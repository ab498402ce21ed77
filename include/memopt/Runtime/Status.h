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

  bool ok() const { return !failed; }
  /// The message of a failure, without the `error: ` prefix.
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STATUS_H
