//===- HostTrainerTest.cpp - trainerMain end to end -----------------------===//
//
// The test program trained through trainerMain: --out holds exactly what
// the step computed (checked against the step run by hand), --lr reaches
// the step, validation changes nothing, progress lines, the run report and
// the trace, and a NaN loss stops the run without writing anything.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <regex>

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

/// The numbers of the JSON array after `"key": [` in `json`.
std::vector<double> jsonArray(const std::string &json, const std::string &key) {
  std::vector<double> values;
  size_t at = json.find("\"" + key + "\": [");
  if (at == std::string::npos)
    return values;
  const char *text = json.c_str() + json.find('[', at) + 1;
  while (*text != ']') {
    char *end = nullptr;
    values.push_back(std::strtod(text, &end));
    text = end;
    while (*text == ',' || *text == ' ')
      ++text;
  }
  return values;
}

/// The integer after `"key": ` in `json`, or -1.
long long jsonInteger(const std::string &json, const std::string &key) {
  size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos)
    return -1;
  return std::strtoll(json.c_str() + at + key.size() + 4, nullptr, 10);
}

class RuntimeHostTrainer : public testing::Test {
protected:
  void SetUp() override {
    resetTestProgram();
    writeLinearDataset(dir / "data", 5);
  }
  std::vector<std::string> base(const std::string &out) {
    return {"--data", dir / "data", "--out", dir / out, "--no-shuffle"};
  }
  TempDir dir;
};

TEST_F(RuntimeHostTrainer, OutHoldsTheTrainedValues) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "7", "--report", dir / "report.json"});
  RunResult result = runTrainer(args);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");

  Simulated expected = simulate(5, 7, 0.1f);
  auto values = readInitializers(dir / "out.onnx");
  ASSERT_EQ(values["w"].size(), 1u);
  EXPECT_EQ(values["w"][0], expected.w);
  EXPECT_EQ(values["b"][0], expected.b);
  EXPECT_EQ(values["x_mean"][0], expected.xMean);
  EXPECT_NE(expected.w, kInitialW);
  EXPECT_FALSE(exists(dir / "out.onnx.tmp"));

  std::string report = readText(dir / "report.json");
  std::vector<double> losses = jsonArray(report, "loss");
  ASSERT_EQ(losses.size(), 7u);
  for (size_t i = 0; i < losses.size(); ++i)
    EXPECT_EQ(static_cast<float>(losses[i]), expected.losses[i]) << i;
  EXPECT_LT(losses.back(), losses.front());
}

TEST_F(RuntimeHostTrainer, OutKeepsTheRestOfTheModel) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "1"});
  ASSERT_EQ(runTrainer(args).exitCode, 0);
  const std::string &original = testModel();
  std::string trained = readText(dir / "out.onnx");
  // Same graph, same int64 initializer; only the float values moved.
  EXPECT_NE(trained.find("untouched"), std::string::npos);
  EXPECT_NE(trained.find("memopt-host-test"), std::string::npos);
  EXPECT_NE(trained.find("Mul"), std::string::npos);
  EXPECT_EQ(readInitializers(dir / "out.onnx").size(), 3u);
  EXPECT_NE(trained, original);
}

TEST_F(RuntimeHostTrainer, LearningRateOverride) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "4", "--lr", "0.03"});
  ASSERT_EQ(runTrainer(args).exitCode, 0);
  Simulated expected = simulate(5, 4, 0.03f);
  EXPECT_EQ(readInitializers(dir / "out.onnx")["w"][0], expected.w);
  EXPECT_NE(simulate(5, 4, 0.1f).w, expected.w);
}

TEST_F(RuntimeHostTrainer, FixedLearningRateProgramTrains) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "3"});
  RunResult result = runTrainer(args, fixedTestProgram());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(readInitializers(dir / "out.onnx")["w"][0], simulate(5, 3, 0.1f).w);
}

TEST_F(RuntimeHostTrainer, ProgressLines) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "5", "--log-every", "2"});
  RunResult result = runTrainer(args);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::regex line(R"(step (\d+)/5  loss [0-9.e+-]+  images/s [0-9.]+)");
  std::vector<std::string> steps;
  for (std::sregex_iterator it(result.out.begin(), result.out.end(), line), end;
       it != end; ++it)
    steps.push_back((*it)[1]);
  EXPECT_EQ(steps, (std::vector<std::string>{"2", "4", "5"}));
  EXPECT_NE(result.out.find("training linear: 5 samples, batch 2, 5 steps of "
                            "2 per epoch\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("wrote " + dir / "out.onnx"), std::string::npos);

  std::vector<std::string> quiet = base("out.onnx");
  quiet.insert(quiet.end(), {"--steps", "5", "--log-every", "0"});
  RunResult silent = runTrainer(quiet);
  EXPECT_EQ(silent.out.find("step "), std::string::npos);
}

TEST_F(RuntimeHostTrainer, EpochsDropTheIncompleteBatch) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--epochs", "3", "--report", dir / "r.json"});
  ASSERT_EQ(runTrainer(args).exitCode, 0);
  // 5 samples in batches of 2: 2 steps per epoch.
  EXPECT_EQ(jsonInteger(readText(dir / "r.json"), "steps"), 6);
  EXPECT_EQ(readInitializers(dir / "out.onnx")["w"][0], simulate(5, 6, 0.1f).w);
}

TEST_F(RuntimeHostTrainer, ValidationChangesNothing) {
  writeLinearDataset(dir / "val", 3);
  std::vector<std::string> plain = base("plain.onnx");
  plain.insert(plain.end(), {"--epochs", "2"});
  ASSERT_EQ(runTrainer(plain).exitCode, 0);
  std::vector<std::string> validated = base("validated.onnx");
  validated.insert(validated.end(), {"--epochs", "2", "--val-data", dir / "val",
                                     "--report", dir / "report.json"});
  RunResult result = runTrainer(validated);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(readText(dir / "plain.onnx"), readText(dir / "validated.onnx"));
  EXPECT_NE(result.out.find("validation after step 2  loss "),
            std::string::npos);
  EXPECT_NE(result.out.find("validation after step 4  loss "),
            std::string::npos);
  std::string report = readText(dir / "report.json");
  EXPECT_NE(report.find("\"val_loss\": [{\"step\": 2, \"loss\": "),
            std::string::npos);
  EXPECT_NE(report.find("}, {\"step\": 4, \"loss\": "), std::string::npos);

  // With --steps: once, at the end.
  std::vector<std::string> steps = base("steps.onnx");
  steps.insert(steps.end(), {"--steps", "3", "--val-data", dir / "val"});
  RunResult once = runTrainer(steps);
  EXPECT_EQ(once.out.find("validation after step 2"), std::string::npos);
  EXPECT_NE(once.out.find("validation after step 3"), std::string::npos);
}

TEST_F(RuntimeHostTrainer, RunReportFields) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "3", "--report", dir / "report.json"});
  ASSERT_EQ(runTrainer(args).exitCode, 0);
  std::string report = readText(dir / "report.json");
  EXPECT_EQ(report.front(), '{');
  EXPECT_NE(report.find("\"model\": \"linear\""), std::string::npos);
  EXPECT_EQ(jsonInteger(report, "steps"), 3);
  EXPECT_EQ(jsonInteger(report, "batch_size"), 2);
  EXPECT_EQ(jsonInteger(report, "arena_bytes"),
            static_cast<long long>(kArenaBytes));
  EXPECT_EQ(jsonInteger(report, "measured_peak_bytes"),
            static_cast<long long>(testProgramBytes()));
  EXPECT_EQ(jsonArray(report, "loss").size(), 3u);
  std::vector<double> seconds = jsonArray(report, "step_seconds");
  ASSERT_EQ(seconds.size(), 3u);
  for (double s : seconds)
    EXPECT_GE(s, 0.0);
  EXPECT_EQ(report.find("val_loss"), std::string::npos);
  EXPECT_EQ(report.find("resumed_from_step"), std::string::npos);
}

TEST_F(RuntimeHostTrainer, ChromeTrace) {
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "3", "--trace", dir / "trace.json"});
  ASSERT_EQ(runTrainer(args).exitCode, 0);
  std::string trace = readText(dir / "trace.json");
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0),
            0u);
  size_t steps = 0;
  for (size_t at = 0;
       (at = trace.find("\"name\": \"step\"", at)) != std::string::npos; ++at)
    ++steps;
  EXPECT_EQ(steps, 3u);
  // The step's kernel marks (StepTrace.h) are events of their own.
  size_t kernels = 0;
  for (size_t at = 0;
       (at = trace.find("\"name\": \"forward\", \"cat\": \"linear\"", at)) !=
       std::string::npos;
       ++at)
    ++kernels;
  EXPECT_EQ(kernels, 3u);
  EXPECT_NE(trace.find("\"ph\": \"X\""), std::string::npos);
  EXPECT_NE(trace.find("\"args\": {\"name\": \"linear\"}"), std::string::npos);
  EXPECT_EQ(trace.substr(trace.size() - 4), "\n]}\n");
}

TEST_F(RuntimeHostTrainer, NaNLossStopsWithoutWriting) {
  std::vector<float> x, t;
  linearSample(2, x, t);
  x[1] = std::nanf("");
  writeNpyF32(dir / "data/inputs/s2.npy", {1, 2, 2}, x);
  // Sorted order: step 1 reads s0, s1; step 2 reads s2, s3.
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(),
              {"--steps", "4", "--checkpoint-dir", dir / "ckpt",
               "--checkpoint-every", "1", "--report", dir / "report.json"});
  RunResult result = runTrainer(args);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, "error: loss is NaN at step 2; the last checkpoint (" +
                            dir / "ckpt/checkpoint-0000000001.mckpt" +
                            ") is intact\n");
  EXPECT_FALSE(exists(dir / "out.onnx"));
  EXPECT_FALSE(exists(dir / "report.json"));
  EXPECT_TRUE(exists(dir / "ckpt/checkpoint-0000000001.mckpt"));
  EXPECT_FALSE(exists(dir / "ckpt/checkpoint-0000000002.mckpt"));

  std::vector<std::string> noCheckpoints = base("out.onnx");
  noCheckpoints.insert(noCheckpoints.end(), {"--steps", "4"});
  RunResult bare = runTrainer(noCheckpoints);
  EXPECT_EQ(bare.exitCode, 1);
  EXPECT_EQ(bare.err,
            "error: loss is NaN at step 2; no checkpoint was written\n");
}

TEST_F(RuntimeHostTrainer, NaNValidationLossIsAnError) {
  writeLinearDataset(dir / "val", 2);
  std::vector<float> x, t;
  linearSample(1, x, t);
  x[0] = std::nanf("");
  writeNpyF32(dir / "val/inputs/s1.npy", {1, 2, 2}, x);
  std::vector<std::string> args = base("out.onnx");
  args.insert(args.end(), {"--steps", "2", "--val-data", dir / "val"});
  RunResult result = runTrainer(args);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, "error: validation loss is NaN after step 2; no "
                        "checkpoint was written\n");
  EXPECT_FALSE(exists(dir / "out.onnx"));
}

TEST_F(RuntimeHostTrainer, ShuffleIsDeterministicPerSeed) {
  auto losses = [&](const std::string &seed) {
    std::vector<std::string> args = {"--data",         dir / "data",  "--out",
                                     dir / "out.onnx", "--steps",     "6",
                                     "--report",       dir / "r.json"};
    if (!seed.empty())
      args.insert(args.end(), {"--seed", seed});
    EXPECT_EQ(runTrainer(args).exitCode, 0);
    return jsonArray(readText(dir / "r.json"), "loss");
  };
  EXPECT_EQ(losses("3"), losses("3"));
  EXPECT_NE(losses("3"), losses("4"));
  EXPECT_EQ(losses(""), losses("0"));
}

} // namespace
