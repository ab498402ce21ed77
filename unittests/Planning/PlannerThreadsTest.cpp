//===- PlannerThreadsTest.cpp - The planners' own threads -----------------===//
//
// planInParallel runs every index once, one after the other where the
// context has threading disabled, and never on the calling thread where it
// has not: a pass-manager thread that waits for its runs must not take
// other work meanwhile (docs/planning.md#planner-threads). searchSideBySide
// runs both searches, in order without threads. planAlongside runs every
// index once, in order on the caller's thread without threads, and does
// not wait for planners' threads that are busy.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/PlannerThreads.h"

#include "mlir/IR/Threading.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace memopt;

namespace {

TEST(PlannerThreadsTest, EveryIndexOnce) {
  mlir::MLIRContext context;
  std::vector<std::atomic<int>> runs(100);
  planInParallel(&context, runs.size(), [&](size_t i) { ++runs[i]; });
  for (const std::atomic<int> &count : runs)
    EXPECT_EQ(count.load(), 1);
  planInParallel(&context, 0, [&](size_t) { FAIL() << "nothing to run"; });
}

TEST(PlannerThreadsTest, InOrderWithoutThreads) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::vector<size_t> order;
  std::thread::id caller = std::this_thread::get_id();
  planInParallel(&context, 5, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(PlannerThreadsTest, CallersOnTheContextsPoolOnlyWait) {
  mlir::MLIRContext context;
  // Two callers on the context's pool, as the pass manager plans two
  // stages; each one's runs, and runs nested in them, complete, and none
  // of them runs on a caller's thread.
  std::mutex mutex;
  std::vector<std::thread::id> callers, bodies;
  std::atomic<int> nested{0};
  mlir::parallelFor(&context, 0, 2, [&](size_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      callers.push_back(std::this_thread::get_id());
    }
    planInParallel(&context, 8, [&](size_t) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        bodies.push_back(std::this_thread::get_id());
      }
      planInParallel(&context, 3, [&](size_t) { ++nested; });
    });
  });
  EXPECT_EQ(bodies.size(), 16u);
  EXPECT_EQ(nested.load(), 48);
  for (std::thread::id body : bodies)
    for (std::thread::id caller : callers)
      EXPECT_NE(body, caller);
}

TEST(PlannerThreadsTest, SearchesSideBySide) {
  mlir::MLIRContext context;
  std::atomic<int> runs{0};
  auto search = [&] {
    planInParallel(&context, 4, [&](size_t) { ++runs; });
  };
  searchSideBySide(&context, search, search);
  EXPECT_EQ(runs.load(), 8);
  mlir::MLIRContext serial(mlir::MLIRContext::Threading::DISABLED);
  std::vector<int> order;
  searchSideBySide(
      &serial, [&] { order.push_back(1); }, [&] { order.push_back(2); });
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(PlannerThreadsTest, AlongsideEveryIndexOnce) {
  mlir::MLIRContext context;
  std::vector<std::atomic<int>> runs(100);
  planAlongside(&context, runs.size(), [&](size_t i) { ++runs[i]; });
  for (const std::atomic<int> &count : runs)
    EXPECT_EQ(count.load(), 1);
  // From the planners' own threads too (a greedy's prune).
  std::atomic<int> nested{0};
  planInParallel(&context, 4, [&](size_t) {
    planAlongside(&context, 5, [&](size_t) { ++nested; });
  });
  EXPECT_EQ(nested.load(), 20);
  mlir::MLIRContext serial(mlir::MLIRContext::Threading::DISABLED);
  std::vector<size_t> order;
  std::thread::id caller = std::this_thread::get_id();
  planAlongside(&serial, 4, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(PlannerThreadsTest, AlongsideWaitsForNoBusyThread) {
  mlir::MLIRContext context;
  // Every planner's thread busy until released: planAlongside still runs
  // all its indices, on the caller's thread.
  unsigned threads = context.getThreadPool().getMaxConcurrency();
  std::atomic<unsigned> busy{0};
  std::atomic<bool> release{false};
  std::thread occupant([&] {
    planInParallel(&context, threads, [&](size_t) {
      ++busy;
      while (!release.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  });
  while (threads > 1 && busy.load() < threads)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread::id caller = std::this_thread::get_id();
  int runs = 0;
  planAlongside(&context, 6, [&](size_t) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    ++runs;
  });
  EXPECT_EQ(runs, 6);
  release = true;
  occupant.join();
}

} // namespace
