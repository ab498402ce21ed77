//===- FitTest.cpp - Auto-fit's choice against brute force ----------------===//
//
// FitResult::choose on random candidates against the definitions (the
// Pareto frontier of peak and time, the fastest fitting plan and the next
// one), and the flags and messages a candidate and a result print.
//
//===----------------------------------------------------------------------===//

#include "memopt/Pipeline/Fit.h"

#include "gtest/gtest.h"

#include <random>

using namespace memopt;

namespace {

FitCandidate planned(uint64_t peak, double seconds, uint64_t capacity) {
  FitCandidate candidate;
  candidate.planned = true;
  candidate.peakBytes = peak;
  candidate.seconds = seconds;
  candidate.fits = peak <= capacity;
  return candidate;
}

TEST(FitTest, ChooseMatchesBruteForce) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    FitResult result;
    uint64_t capacity = 50;
    // Few distinct values, so that ties in peak and time are common.
    for (int i = 0, n = 1 + random() % 9; i < n; ++i) {
      if (random() % 5 == 0) {
        result.candidates.push_back(FitCandidate());
        continue;
      }
      result.candidates.push_back(
          planned(random() % 100, double(random() % 6), capacity));
    }
    result.choose();
    const auto &all = result.candidates;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!all[i].planned) {
        EXPECT_FALSE(llvm::is_contained(result.frontier, i));
        continue;
      }
      bool beaten = false;
      for (size_t j = 0; j < all.size(); ++j)
        beaten |= j != i && all[j].planned &&
                  all[j].peakBytes <= all[i].peakBytes &&
                  all[j].seconds <= all[i].seconds &&
                  (all[j].peakBytes < all[i].peakBytes ||
                   all[j].seconds < all[i].seconds || j < i);
      EXPECT_EQ(llvm::is_contained(result.frontier, i), !beaten) << i;
    }
    // The fitting candidates in the winner's order: time, peak, first.
    std::vector<size_t> fitting;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].fits && all[i].planned)
        fitting.push_back(i);
    std::stable_sort(fitting.begin(), fitting.end(), [&](size_t a, size_t b) {
      return std::make_pair(all[a].seconds, all[a].peakBytes) <
             std::make_pair(all[b].seconds, all[b].peakBytes);
    });
    EXPECT_EQ(result.winner.has_value(), !fitting.empty());
    if (!fitting.empty())
      EXPECT_EQ(*result.winner, fitting[0]);
    EXPECT_EQ(result.runnerUp.has_value(), fitting.size() > 1);
    if (fitting.size() > 1)
      EXPECT_EQ(*result.runnerUp, fitting[1]);
    // The winner is on the frontier: nothing is both faster and smaller.
    if (result.winner)
      EXPECT_TRUE(llvm::is_contained(result.frontier, *result.winner));
  }
}

TEST(FitTest, FlagsNameTheSetting) {
  FitCandidate plain;
  EXPECT_EQ(plain.flags(), "(plain)");
  FitCandidate all;
  all.amp = AmpMode::fp16;
  all.remat = "auto";
  all.offload = "auto";
  all.leanWorkspaces = true;
  all.stages = 2;
  all.microbatches = 4;
  EXPECT_EQ(all.flags(), "--amp=fp16 --remat=auto --offload=auto "
                         "--workspaces=lean --stages=2 --microbatches=4 "
                         "--schedule=1f1b");
  // What flags() names, apply() sets: the options verify as given.
  TrainingPipelineOptions options;
  options.target = Backend::cuda;
  all.apply(options);
  EXPECT_EQ(options.remat, "auto");
  EXPECT_EQ(unsigned(options.microbatches), 4u);
  EXPECT_TRUE(options.schedule.hasValue());
  EXPECT_FALSE(bool(options.verify()));
}

TEST(FitTest, ImpossibleNamesTheSmallestPeakAndTheWays) {
  FitResult result;
  result.device = *builtinDeviceProfile("rtx2060");
  result.reserveBytes = kCudaReserveBytes;
  result.capacityBytes = result.device.memoryBytes - result.reserveBytes;
  result.candidates.push_back(planned(20ull << 30, 1, result.capacityBytes));
  FitCandidate refused;
  refused.remat = "auto";
  refused.reachableBytes = 9ull << 30;
  result.candidates.push_back(refused);
  result.choose();
  ASSERT_FALSE(result.winner);
  std::string line = result.impossible(/*ampConsent=*/false, /*devices=*/1);
  EXPECT_NE(line.find("the smallest peak reachable is 9.00 GiB, with "
                      "--remat=auto"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("a device with at least 9.50 GiB"), std::string::npos)
      << line;
  EXPECT_NE(line.find("--amp=auto"), std::string::npos) << line;
  EXPECT_EQ(result.impossible(/*ampConsent=*/true, 2).find("--amp=auto"),
            std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

} // namespace
