//===- PlannerThreads.cpp - The planners' own worker threads --------------===//

#include "memopt/Planning/PlannerThreads.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace mlir;
using namespace memopt;

/// One pool for the process, sized by the first context that asks. It is
/// never destroyed: a process that exits while a planner runs (an error
/// elsewhere) must not wait for it in a static destructor.
static llvm::ThreadPoolInterface &plannerPool(MLIRContext *context) {
  static llvm::ThreadPoolInterface *pool = new llvm::DefaultThreadPool(
      llvm::hardware_concurrency(context->getThreadPool().getMaxConcurrency()));
  return *pool;
}

void memopt::planInParallel(MLIRContext *context, size_t count,
                            llvm::function_ref<void(size_t)> body) {
  if (count < 2 || !context->isMultithreadingEnabled()) {
    for (size_t i = 0; i < count; ++i)
      body(i);
    return;
  }
  llvm::ThreadPoolInterface &pool = plannerPool(context);
  // As many tasks as threads, each taking the next index: the runs differ
  // in length by up to 10x, so no index is bound to a thread in advance.
  std::atomic<size_t> next{0};
  llvm::ThreadPoolTaskGroup group(pool);
  size_t tasks = std::min<size_t>(count, pool.getMaxConcurrency());
  for (size_t task = 0; task < tasks; ++task)
    group.async([&] {
      for (size_t i; (i = next.fetch_add(1)) < count;)
        body(i);
    });
  group.wait();
}

void memopt::searchSideBySide(MLIRContext *context,
                              llvm::function_ref<void()> first,
                              llvm::function_ref<void()> second) {
  if (!context->isMultithreadingEnabled()) {
    first();
    second();
    return;
  }
  std::thread other([&] { second(); });
  first();
  other.join();
}
