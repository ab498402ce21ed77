//===- VerifyOptionsTest.cpp - TrainingPipelineOptions::verify ------------===//
//
// The rules memopt-compile and memopt-opt share: options parsed from the
// pipeline's string, or assigned, record that they were given
// (Option::hasValue), which the "given" rules read; defaults are not given;
// messages spell the options as the caller takes them.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/Pipeline.h"

#include "gtest/gtest.h"

using namespace memopt;

namespace {

/// verify()'s message for `text` (empty when it accepts), spelled as
/// `spelling` says.
std::string verifyMessage(llvm::StringRef text,
                          TrainingPipelineOptions::Spelling spelling =
                              TrainingPipelineOptions::Spelling::option) {
  TrainingPipelineOptions options;
  std::string parseErrors;
  llvm::raw_string_ostream stream(parseErrors);
  if (mlir::failed(options.parseFromString(text, stream)))
    return "parse error: " + parseErrors;
  llvm::Error error = options.verify(spelling);
  return error ? llvm::toString(std::move(error)) : "";
}

TEST(VerifyOptions, DefaultsAreAccepted) {
  EXPECT_EQ(verifyMessage(""), "");
  TrainingPipelineOptions options;
  EXPECT_FALSE(static_cast<bool>(options.verify()));
}

TEST(VerifyOptions, ParsedOptionsRecordThatTheyWereGiven) {
  TrainingPipelineOptions options;
  ASSERT_TRUE(mlir::succeeded(options.parseFromString("momentum=0")));
  EXPECT_TRUE(options.momentum.hasValue());
  EXPECT_FALSE(options.beta1.hasValue());
  // Given at its default value, it is still given.
  EXPECT_EQ(verifyMessage("optimizer=adam momentum=0"),
            "momentum is an SGD option; optimizer=adam does not use it (drop "
            "it, or use optimizer=sgd)");
  // An empty list is given too.
  EXPECT_EQ(verifyMessage("amp-low-ops="),
            "amp-low-ops edits the precision table of amp: give amp=bf16 or "
            "amp=fp16 with it");
}

TEST(VerifyOptions, AssignedValuesAreGivenToo) {
  TrainingPipelineOptions options;
  options.optimizer = tg::OptimizerKind::adam;
  EXPECT_FALSE(options.momentum.hasValue());
  EXPECT_FALSE(static_cast<bool>(options.verify()));
  options.momentum = 0.5;
  EXPECT_TRUE(options.momentum.hasValue());
  llvm::Error error = options.verify();
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)).find("momentum is an SGD option"),
            0u);
}

TEST(VerifyOptions, MessagesSpellOptionsAsTheCallerTakesThem) {
  using Spelling = TrainingPipelineOptions::Spelling;
  EXPECT_EQ(verifyMessage("remat=optimal offload=auto"),
            "offload=auto remat=optimal: the MILP plans recomputation only; "
            "use remat=auto offload=auto (joint keep/recompute/offload) or "
            "drop offload");
  EXPECT_EQ(verifyMessage("remat=optimal offload=auto", Spelling::flag),
            "--offload=auto --remat=optimal: the MILP plans recomputation "
            "only; use --remat=auto --offload=auto (joint "
            "keep/recompute/offload) or drop --offload");
  EXPECT_EQ(verifyMessage("lean-workspaces=true", Spelling::flag),
            "--workspaces=lean lets --remat=auto shrink convolution "
            "workspaces (slower cuDNN algorithms, oneDNN filter gradients in "
            "pieces): give --remat=auto with it, or drop it");
  EXPECT_EQ(verifyMessage("zero=true", Spelling::flag),
            "--zero=1 shards the optimizer state over data-parallel "
            "replicas: give --data-parallel=N with N > 1");
}

TEST(VerifyOptions, ValuesOutOfRange) {
  EXPECT_EQ(verifyMessage("lr=0"),
            "lr must be a finite number > 0, got '0'");
  EXPECT_EQ(verifyMessage("optimizer=adam beta2=1"),
            "beta2 must be in [0, 1), got '1'");
  EXPECT_EQ(verifyMessage("remat=all"),
            "remat must be none, sqrt, auto or optimal, got 'all'");
  EXPECT_EQ(verifyMessage("stages=0"),
            "stages expects a positive integer, got '0'");
  EXPECT_EQ(verifyMessage("microbatches=257"),
            "microbatches=257: memopt compiles at most 256 microbatches per "
            "step; use microbatches=256 or fewer");
  EXPECT_EQ(verifyMessage("schedule=interleaved"),
            "schedule must be gpipe or 1f1b, got 'interleaved'");
}

TEST(VerifyOptions, Combinations) {
  EXPECT_EQ(verifyMessage("amp=bf16 target=cuda device=rtx2060")
                .find("amp=bf16 target=cuda: the device profile 'rtx2060' "
                      "has no bf16 support"),
            0u);
  // Without a device given, bf16 is not refused: the device is unknown.
  EXPECT_EQ(verifyMessage("amp=bf16 target=cuda"), "");
  EXPECT_EQ(verifyMessage("stages=2 microbatches=2 schedule=gpipe"), "");
  EXPECT_EQ(verifyMessage("stages=2 schedule=gpipe").find("schedule orders"),
            0u);
  EXPECT_EQ(verifyMessage("data-parallel=2 zero=true"), "");
  // fp16 scales every loss (tg-autodiff's scaled seed), of several terms too.
  EXPECT_EQ(verifyMessage("amp=fp16 loss=ce+dice"), "");
}

} // namespace
