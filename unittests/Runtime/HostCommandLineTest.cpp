//===- HostCommandLineTest.cpp - The training binary's options ------------===//
//
// Accepted forms, and every kind of bad flag: one `error:` line naming the
// flag and its accepted form, exit status 2, nothing trained.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "memopt/Runtime/CommandLine.h"

#include "gtest/gtest.h"

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

Status parse(std::vector<std::string> args, TrainerOptions &options) {
  args.insert(args.begin(), "trainer");
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  return parseCommandLine(static_cast<int>(argv.size()), argv.data(), options);
}

TEST(RuntimeHostCommandLine, ParsesEveryOption) {
  TrainerOptions options;
  Status status = parse({"--data",
                         "d",
                         "--val-data=v",
                         "--epochs",
                         "3",
                         "--no-shuffle",
                         "--seed",
                         "18446744073709551615",
                         "--lr=0.25",
                         "--out",
                         "o.onnx",
                         "--checkpoint-dir",
                         "c",
                         "--checkpoint-every=7",
                         "--resume",
                         "--report",
                         "r.json",
                         "--trace",
                         "t.json",
                         "--log-every",
                         "0",
                         "--exchange",
                         "mpi"},
                        options);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(options.dataDir, "d");
  EXPECT_EQ(options.valDataDir, "v");
  EXPECT_EQ(options.epochs, 3);
  EXPECT_EQ(options.steps, 0);
  EXPECT_FALSE(options.shuffle);
  EXPECT_EQ(options.seed, 18446744073709551615ull);
  EXPECT_TRUE(options.hasLearningRate);
  EXPECT_EQ(options.learningRate, 0.25f);
  EXPECT_EQ(options.outPath, "o.onnx");
  EXPECT_EQ(options.checkpointDir, "c");
  EXPECT_EQ(options.checkpointEvery, 7);
  EXPECT_TRUE(options.resume);
  EXPECT_EQ(options.reportPath, "r.json");
  EXPECT_EQ(options.tracePath, "t.json");
  EXPECT_EQ(options.logEvery, 0);
  EXPECT_EQ(options.exchange, ExchangeKind::Mpi);
}

TEST(RuntimeHostCommandLine, Defaults) {
  TrainerOptions options;
  ASSERT_TRUE(
      parse({"--data", "d", "--steps", "5", "--out", "o"}, options).ok());
  EXPECT_TRUE(options.shuffle);
  EXPECT_EQ(options.seed, 0u);
  EXPECT_FALSE(options.hasLearningRate);
  EXPECT_EQ(options.logEvery, 10);
  EXPECT_EQ(options.checkpointEvery, 0);
}

// --lr is read as a double, as memopt-compile reads its --lr, so that both
// give the step the same learning rate.
TEST(RuntimeHostCommandLine, LearningRateIsADouble) {
  TrainerOptions options;
  ASSERT_TRUE(parse({"--data", "d", "--steps", "1", "--out", "o", "--lr",
                     "0.0123"},
                    options)
                  .ok());
  EXPECT_EQ(options.learningRate, 0.0123);
  EXPECT_NE(options.learningRate, static_cast<double>(0.0123f));
}

TEST(RuntimeHostCommandLine, HelpExitsZero) {
  RunResult result = runTrainer({"--help"});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("usage: trainer --data DIR"), std::string::npos);
  EXPECT_EQ(result.err, "");
}

struct BadFlag {
  std::vector<std::string> args;
  const char *message;
};

TEST(RuntimeHostCommandLine, BadFlagsExitTwoNamingTheFlag) {
  const std::vector<std::string> base = {"--data", "d", "--out", "o.onnx"};
  const BadFlag cases[] = {
      {{"--steps", "0"},
       "error: --steps: invalid value '0', expected --steps N (N >= 1)\n"},
      {{"--steps", "ten"},
       "error: --steps: invalid value 'ten', expected --steps N (N >= 1)\n"},
      {{"--steps", "-3"},
       "error: --steps: invalid value '-3', expected --steps N (N >= 1)\n"},
      {{"--steps", "99999999999999999999"},
       "error: --steps: invalid value '99999999999999999999', expected --steps "
       "N (N >= 1)\n"},
      {{"--epochs", "2x"},
       "error: --epochs: invalid value '2x', expected --epochs N (N >= 1)\n"},
      {{"--steps", "1", "--seed", "-1"},
       "error: --seed: invalid value '-1', expected --seed S (0 <= S < "
       "2^64)\n"},
      {{"--steps", "1", "--lr", "0"},
       "error: --lr: invalid value '0', expected --lr F (a finite number > "
       "0)\n"},
      {{"--steps", "1", "--lr", "nan"},
       "error: --lr: invalid value 'nan', expected --lr F (a finite number > "
       "0)\n"},
      {{"--steps", "1", "--log-every", "-1"},
       "error: --log-every: invalid value '-1', expected --log-every N (N >= "
       "0; 0: silent)\n"},
      {{"--steps", "1", "--checkpoint-every", "5"},
       "error: --checkpoint-every N needs --checkpoint-dir D\n"},
      {{"--steps", "1", "--resume"},
       "error: --resume needs --checkpoint-dir D\n"},
      {{"--steps", "1", "--epochs", "1"},
       "error: exactly one of --steps N and --epochs N is required\n"},
      {{}, "error: exactly one of --steps N and --epochs N is required\n"},
      {{"--steps", "1", "--bogus"},
       "error: unknown argument '--bogus' (see --help)\n"},
      {{"--steps", "1", "stray"},
       "error: unknown argument 'stray' (see --help)\n"},
      {{"--steps", "1", "--steps", "2"},
       "error: --steps given twice, expected one --steps N (N >= 1)\n"},
      {{"--steps", "1", "--no-shuffle=yes"},
       "error: --no-shuffle takes no value, expected --no-shuffle\n"},
      {{"--steps", "1", "--report"},
       "error: --report needs a value, expected --report FILE.json\n"},
      {{"--steps", "1", "--trace", "--report", "r"},
       "error: --trace needs a value, expected --trace FILE.json\n"},
      {{"--steps", "1", "--exchange", "tcp"},
       "error: --exchange: invalid value 'tcp', expected --exchange "
       "nccl|mpi\n"},
  };
  for (const BadFlag &bad : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    RunResult result = runTrainer(args);
    EXPECT_EQ(result.exitCode, 2) << bad.message;
    EXPECT_EQ(result.err, bad.message);
    EXPECT_EQ(result.out, "");
  }
  EXPECT_EQ(runTrainer({"--steps", "1", "--out", "o"}).err,
            "error: --data DIR is required\n");
  EXPECT_EQ(runTrainer({"--steps", "1", "--data", "d"}).err,
            "error: --out TRAINED.onnx is required\n");
}

TEST(RuntimeHostCommandLine, OptionsTheProgramDoesNotSupport) {
  RunResult lr =
      runTrainer({"--data", "d", "--steps", "1", "--out", "o", "--lr", "0.5"},
                 fixedTestProgram());
  EXPECT_EQ(lr.exitCode, 2);
  EXPECT_EQ(lr.err, "error: --lr: this binary was compiled with a fixed "
                    "learning rate; recompile it with memopt-compile "
                    "--lr=F\n");
  RunResult val = runTrainer(
      {"--data", "d", "--steps", "1", "--out", "o", "--val-data", "v"},
      fixedTestProgram());
  EXPECT_EQ(val.exitCode, 2);
  EXPECT_EQ(val.err, "error: --val-data: this binary was compiled without "
                     "evaluation support\n");
  // Without an evaluation step for a reason memopt-compile gave.
  Program refusing = fixedTestProgram();
  refusing.evalRefusal = "node 'noise' draws random numbers ...";
  RunResult refused = runTrainer(
      {"--data", "d", "--steps", "1", "--out", "o", "--val-data", "v"},
      refusing);
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_EQ(refused.err,
            "error: --val-data: node 'noise' draws random numbers ...\n");
  RunResult exchange = runTrainer(
      {"--data", "d", "--steps", "1", "--out", "o", "--exchange=mpi"});
  EXPECT_EQ(exchange.exitCode, 2);
  EXPECT_EQ(exchange.err, "error: --exchange: this binary runs one process "
                          "and exchanges no tensors; drop --exchange\n");
}

} // namespace
