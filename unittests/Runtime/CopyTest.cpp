//===- CopyTest.cpp - The CPU backend's copy thread -----------------------===//
//
// tg-offload's copies on the CPU (memopt/Runtime/Copy.h): a copy's data
// is in its target once waitCopy returns, copies run in the order they
// are started, a copy number is reused after its wait, and the copy
// thread's times are readable after the wait; the pinned host pool is
// zeroed, aligned memory apart from the device's.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Copy.h"
#include "memopt/Runtime/Device.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

using namespace memopt::rt;

namespace {

TEST(CopyTest, DataArrivesByTheWait) {
  std::vector<float> source(1 << 16), target(source.size(), -1.0f);
  std::iota(source.begin(), source.end(), 0.0f);
  int64_t n = static_cast<int64_t>(source.size());
  startCopy(0, Tensor(target.data(), {n}), ConstTensor(source.data(), {n}));
  waitCopy(0);
  EXPECT_EQ(source, target);
}

TEST(CopyTest, CopiesRunInStartOrder) {
  // A chain through one buffer: each copy reads what the one before it
  // wrote, so only the start order gives the final value.
  std::vector<float> a(1024, 1.0f), b(1024, 0.0f), c(1024, 0.0f);
  startCopy(1, Tensor(b.data(), {1024}), ConstTensor(a.data(), {1024}));
  startCopy(2, Tensor(c.data(), {1024}), ConstTensor(b.data(), {1024}));
  waitCopy(2);
  waitCopy(1);
  EXPECT_EQ(c, a);
}

TEST(CopyTest, NumberReusedAfterItsWait) {
  std::vector<float> source(64, 2.0f), target(64, 0.0f);
  for (int step = 0; step < 3; ++step) {
    source.assign(64, static_cast<float>(step));
    startCopy(3, Tensor(target.data(), {64}), ConstTensor(source.data(), {64}));
    waitCopy(3);
    EXPECT_EQ(target, source);
    std::chrono::steady_clock::time_point start, end;
    ASSERT_TRUE(copyTimes(3, start, end));
    EXPECT_LE(start, end);
  }
}

TEST(CopyTest, PinnedHostPoolIsZeroedAndAligned) {
  void *pool = device::allocatePinnedHost(1000);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pool) % 64, 0u);
  const unsigned char *bytes = static_cast<const unsigned char *>(pool);
  EXPECT_TRUE(std::all_of(bytes, bytes + 1000,
                          [](unsigned char b) { return b == 0; }));
  device::releasePinnedHost(pool);
}

} // namespace
