//===- CommandLine.h - The training binary's options ------------*- C++ -*-===//
//
// BIN --data DIR [--val-data DIR] (--steps N | --epochs N) [--no-shuffle]
//     [--seed S] [--lr F] --out TRAINED.onnx [--checkpoint-dir D
//     [--checkpoint-every N] [--resume]] [--report FILE.json]
//     [--trace FILE.json] [--log-every N] [--exchange nccl|mpi]
//     [--weights FILE.onnx]
//
// (docs/contract.md.) Every option also takes the `--flag=value` form.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_COMMANDLINE_H
#define MEMOPT_RUNTIME_COMMANDLINE_H

#include "memopt/Runtime/Exchange.h"
#include "memopt/Runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>

namespace memopt::rt {

struct TrainerOptions {
  std::string dataDir;
  std::string valDataDir; // empty: no validation
  int64_t steps = 0;      // exactly one of steps and epochs is positive
  int64_t epochs = 0;
  bool shuffle = true;
  uint64_t seed = 0;
  bool hasLearningRate = false;
  double learningRate = 0.0;
  bool hasInitialLossScale = false;
  double initialLossScale = 0.0;
  std::string outPath;
  std::string weightsPath; // empty: the file memopt-compile wrote beside BIN
  std::string checkpointDir;   // empty: no checkpoints
  int64_t checkpointEvery = 0; // 0: once per epoch
  bool resume = false;
  std::string reportPath; // empty: no report
  std::string tracePath;  // empty: no trace
  int64_t logEvery = 10;  // 0: no progress lines
  std::optional<ExchangeKind> exchange; // --exchange; none: the default
  bool help = false;      // --help: print usage() and exit 0
};

/// Parses argv[1..argc). A failure names the flag and the accepted form; the
/// trainer prints it as `error: ...` and exits with status 2.
Status parseCommandLine(int argc, char **argv, TrainerOptions &options);

/// The --help text.
std::string usage(const char *program);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_COMMANDLINE_H
