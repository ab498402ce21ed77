//===- PhaseTimes.h - Wall time of each compile phase -----------*- C++ -*-===//
//
// memopt-compile --verbose prints the time of each phase (import,
// autodiff, schedule, plan, lowering, C++ emission, each compiler
// invocation, link), and the compile report lists them as
// `compile_phases`. Pass-manager phases are timed by an instrumentation
// that books each pass under its phase, so the pipeline itself needs no
// timing code.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMOPT_COMPILE_PHASETIMES_H
#define MEMOPT_TOOLS_MEMOPT_COMPILE_PHASETIMES_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace memopt {

class PhaseTimes {
public:
  explicit PhaseTimes(bool verbose) : verbose(verbose) {}

  /// Adds `seconds` to `phase` (a new phase goes last), then printNew().
  void add(llvm::StringRef phase, double seconds);
  /// Adds `seconds` to `phase` without printing (a pass of a running pass
  /// manager: its phase is printed once, when the manager is done).
  void book(llvm::StringRef phase, double seconds);
  /// With --verbose, prints each phase's seconds booked since the last
  /// call, one line per phase.
  void printNew();
  /// Books the passes `manager` runs under their phases: tg-autodiff,
  /// canonicalize and tg-fuse-elementwise under "autodiff" (with
  /// memopt-set-target), tg-annotate-workspaces and tg-schedule under
  /// "schedule", tg-plan-memory and convert-tg-to-mbuf under "plan",
  /// convert-tg-to-emitc
  /// under "lowering", any other pass under its own argument.
  void instrument(mlir::PassManager &manager);
  /// `[{"phase": ..., "seconds": ...}, ...]` in phase order.
  llvm::json::Array toJSON() const;

  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

private:
  bool verbose;
  void addLocked(llvm::StringRef phase, double seconds);

  /// Passes on several functions book from several threads.
  std::mutex mutex;
  std::vector<std::pair<std::string, double>> phases;
  /// The seconds of each phase printNew() has printed.
  llvm::StringMap<double> printed;
};

} // namespace memopt

#endif // MEMOPT_TOOLS_MEMOPT_COMPILE_PHASETIMES_H
