//===- CommandLine.cpp - The training binary's options --------------------===//

#include "memopt/Runtime/CommandLine.h"

#include "memopt/Runtime/OptionRules.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace memopt::rt {

namespace {

enum class Kind { Path, Count, Natural, Seed, Rate, Switch, Exchange };

struct Flag {
  const char *name;
  Kind kind;
  const char *form; // the accepted form, for messages
};

const Flag kFlags[] = {
    {"--data", Kind::Path, "--data DIR"},
    {"--val-data", Kind::Path, "--val-data DIR"},
    {"--steps", Kind::Count, "--steps N (N >= 1)"},
    {"--epochs", Kind::Count, "--epochs N (N >= 1)"},
    {"--no-shuffle", Kind::Switch, "--no-shuffle"},
    {"--seed", Kind::Seed, "--seed S (0 <= S < 2^64)"},
    {"--lr", Kind::Rate, "--lr F (a finite number > 0)"}, // kLearningRateRule
    {"--initial-loss-scale", Kind::Rate,
     "--initial-loss-scale F (a finite number > 0)"},
    {"--out", Kind::Path, "--out TRAINED.onnx"},
    {"--weights", Kind::Path, "--weights FILE.onnx"},
    {"--checkpoint-dir", Kind::Path, "--checkpoint-dir D"},
    {"--checkpoint-every", Kind::Count, "--checkpoint-every N (N >= 1)"},
    {"--resume", Kind::Switch, "--resume"},
    {"--report", Kind::Path, "--report FILE.json"},
    {"--trace", Kind::Path, "--trace FILE.json"},
    {"--log-every", Kind::Natural, "--log-every N (N >= 0; 0: silent)"},
    {"--exchange", Kind::Exchange, "--exchange nccl|mpi"},
    {"--help", Kind::Switch, "--help"},
};

const Flag *findFlag(const std::string &name) {
  for (const Flag &flag : kFlags)
    if (name == flag.name)
      return &flag;
  return nullptr;
}

Status badValue(const Flag &flag, const std::string &value) {
  return Status::error(std::string(flag.name) + ": invalid value '" + value +
                       "', expected " + flag.form);
}

bool parseInteger(const std::string &text, bool allowZero, int64_t &value) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || text[0] == ' ')
    return false;
  errno = 0;
  char *end = nullptr;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end || parsed < (allowZero ? 0 : 1))
    return false;
  value = parsed;
  return true;
}

bool parseSeed(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long parsed = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  value = parsed;
  return true;
}

bool parseRate(const std::string &text, double &value) {
  if (text.empty() || text[0] == ' ')
    return false;
  errno = 0;
  char *end = nullptr;
  double parsed = std::strtod(text.c_str(), &end);
  if (errno || *end || !isValidLearningRate(parsed))
    return false;
  value = parsed;
  return true;
}

Status apply(const Flag &flag, const std::string &value,
             TrainerOptions &options) {
  std::string name = flag.name;
  switch (flag.kind) {
  case Kind::Path:
    if (value.empty())
      return badValue(flag, value);
    if (name == "--data")
      options.dataDir = value;
    else if (name == "--val-data")
      options.valDataDir = value;
    else if (name == "--out")
      options.outPath = value;
    else if (name == "--weights")
      options.weightsPath = value;
    else if (name == "--checkpoint-dir")
      options.checkpointDir = value;
    else if (name == "--report")
      options.reportPath = value;
    else
      options.tracePath = value;
    return Status();
  case Kind::Count:
  case Kind::Natural: {
    int64_t count = 0;
    if (!parseInteger(value, flag.kind == Kind::Natural, count))
      return badValue(flag, value);
    if (name == "--steps")
      options.steps = count;
    else if (name == "--epochs")
      options.epochs = count;
    else if (name == "--checkpoint-every")
      options.checkpointEvery = count;
    else
      options.logEvery = count;
    return Status();
  }
  case Kind::Seed:
    if (!parseSeed(value, options.seed))
      return badValue(flag, value);
    return Status();
  case Kind::Rate:
    if (name == "--initial-loss-scale") {
      if (!parseRate(value, options.initialLossScale))
        return badValue(flag, value);
      options.hasInitialLossScale = true;
      return Status();
    }
    if (!parseRate(value, options.learningRate))
      return badValue(flag, value);
    options.hasLearningRate = true;
    return Status();
  case Kind::Exchange:
    options.exchange = parseExchangeKind(value);
    if (!options.exchange)
      return badValue(flag, value);
    return Status();
  case Kind::Switch:
    if (name == "--no-shuffle")
      options.shuffle = false;
    else if (name == "--resume")
      options.resume = true;
    else
      options.help = true;
    return Status();
  }
  return Status();
}

} // namespace

Status parseCommandLine(int argc, char **argv, TrainerOptions &options) {
  options = TrainerOptions();
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool inlineValue = false;
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const Flag *flag = findFlag(name);
    if (!flag)
      return Status::error("unknown argument '" + arg + "' (see --help)");
    if (!seen.insert(name).second)
      return Status::error(name + " given twice, expected one " + flag->form);
    if (flag->kind == Kind::Switch) {
      if (inlineValue)
        return Status::error(name + " takes no value, expected " + flag->form);
    } else if (!inlineValue) {
      if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0)
        return Status::error(name + " needs a value, expected " + flag->form);
      value = argv[++i];
    }
    if (Status status = apply(*flag, value, options); !status.ok())
      return status;
  }
  if (options.help)
    return Status();

  if (options.dataDir.empty())
    return Status::error("--data DIR is required");
  if ((options.steps > 0) == (options.epochs > 0))
    return Status::error("exactly one of --steps N and --epochs N is required");
  if (options.outPath.empty())
    return Status::error("--out TRAINED.onnx is required");
  if (options.checkpointDir.empty() && seen.count("--checkpoint-every"))
    return Status::error("--checkpoint-every N needs --checkpoint-dir D");
  if (options.checkpointDir.empty() && options.resume)
    return Status::error("--resume needs --checkpoint-dir D");
  return Status();
}

std::string usage(const char *program) {
  std::string text = "usage: ";
  text += program;
  text += R"( --data DIR [--val-data DIR] (--steps N | --epochs N)
       [--no-shuffle] [--seed S] [--lr F] [--initial-loss-scale F]
       --out TRAINED.onnx
       [--checkpoint-dir D [--checkpoint-every N] [--resume]]
       [--report FILE.json] [--trace FILE.json] [--log-every N]
       [--exchange nccl|mpi] [--weights FILE.onnx]

Trains the compiled model on DIR/inputs/NAME.EXT -> DIR/targets/NAME.EXT
(EXT: .npy, .png, .dcm) and writes the trained ONNX model to --out.

  --data DIR            training samples
  --val-data DIR        mean loss over these samples after every epoch
                        (with --steps: at the end)
  --steps N             train N steps (cycling through epochs)
  --epochs N            train N epochs (the last incomplete batch of an
                        epoch is dropped)
  --no-shuffle          visit samples in sorted order
  --seed S              shuffle seed (default 0)
  --lr F                learning rate (if the binary allows overriding it)
  --initial-loss-scale F
                        fp16 binaries: the loss scale of step 1 (default
                        65536; halved after inf/NaN gradients, doubled
                        after 2000 clean steps)
  --out TRAINED.onnx    the model with its initializers replaced by the
                        trained values
  --weights FILE.onnx   the initial weights (default: the BIN.weights.onnx
                        memopt-compile wrote beside BIN): the model BIN was
                        compiled from, or a --out trained from it
  --checkpoint-dir D    write checkpoints to D
  --checkpoint-every N  every N steps (default: once per epoch) and at the end
  --resume              continue from the newest checkpoint in D
  --report FILE.json    run report: peak memory, loss and time per step
  --trace FILE.json     Chrome trace (chrome://tracing, ui.perfetto.dev)
  --log-every N         progress line every N steps (default 10, 0: none)
  --exchange nccl|mpi   multi-process CUDA binaries: tensors between ranks
                        over NCCL (default; mpi when ranks share a GPU or
                        NCCL is missing) or MPI through pinned host copies
  --help                this text
)";
  return text;
}

} // namespace memopt::rt
