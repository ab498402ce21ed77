//===- HostLossScaleTest.cpp - fp16 dynamic loss scaling -------------------===//
//
// The trainer's loss scale: 2^16 to start, halved after a skipped step,
// doubled after 2000 clean steps in a row (a skip restarts the streak), and
// Adam's step counts the applied updates only.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/LossScale.h"

#include <gtest/gtest.h>

using namespace memopt::rt;

TEST(HostLossScaleTest, StartsAt2To16) {
  LossScaler scaler;
  EXPECT_EQ(scaler.scale(), 65536.0);
  EXPECT_EQ(scaler.optimizerStep(), 1);
  EXPECT_EQ(scaler.skippedSteps(), 0);
}

TEST(HostLossScaleTest, HalvesAndSkipsOnOverflow) {
  LossScaler scaler;
  scaler.update(/*skipped=*/true);
  EXPECT_EQ(scaler.scale(), 32768.0);
  EXPECT_EQ(scaler.skippedSteps(), 1);
  EXPECT_EQ(scaler.optimizerStep(), 1); // the skipped step applied nothing
  scaler.update(false);
  EXPECT_EQ(scaler.optimizerStep(), 2);
}

TEST(HostLossScaleTest, DoublesAfter2000CleanSteps) {
  LossScaler scaler(1024.0);
  for (int i = 0; i < 1999; ++i)
    scaler.update(false);
  EXPECT_EQ(scaler.scale(), 1024.0);
  scaler.update(true); // restarts the streak
  EXPECT_EQ(scaler.scale(), 512.0);
  for (int i = 0; i < 1999; ++i)
    scaler.update(false);
  EXPECT_EQ(scaler.scale(), 512.0);
  scaler.update(false);
  EXPECT_EQ(scaler.scale(), 1024.0);
  EXPECT_EQ(scaler.optimizerStep(), 1999 + 2000 + 1);
}

TEST(HostLossScaleTest, StateRoundTripsThroughItsData) {
  LossScaler a;
  a.update(true);
  a.update(false);
  LossScaler b;
  for (int i = 0; i < LossScaler::kStateSize; ++i)
    b.data()[i] = a.data()[i];
  EXPECT_EQ(b.scale(), a.scale());
  EXPECT_EQ(b.optimizerStep(), a.optimizerStep());
  EXPECT_EQ(b.skippedSteps(), a.skippedSteps());
}
