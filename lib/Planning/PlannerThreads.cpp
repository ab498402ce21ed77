//===- PlannerThreads.cpp - The planners' own worker threads --------------===//

#include "memopt/Planning/PlannerThreads.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
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

void memopt::planAlongside(MLIRContext *context, size_t count,
                           llvm::function_ref<void(size_t)> body) {
  size_t helpers = 0;
  if (count > 1 && context->isMultithreadingEnabled())
    helpers =
        std::min<size_t>(count, plannerPool(context).getMaxConcurrency()) - 1;
  // What a helper reads after the caller has returned: it outlives the
  // call, and `body` is called only by helpers that joined before the
  // caller closed it.
  struct Shared {
    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::condition_variable done;
    unsigned running = 0;
    bool closed = false;
  };
  auto shared = std::make_shared<Shared>();
  auto takeIndices = [&shared = *shared, count, body] {
    for (size_t i; (i = shared.next.fetch_add(1)) < count;)
      body(i);
  };
  for (size_t helper = 0; helper < helpers; ++helper)
    plannerPool(context).async([shared, takeIndices] {
      {
        std::lock_guard<std::mutex> lock(shared->mutex);
        if (shared->closed)
          return;
        ++shared->running;
      }
      takeIndices();
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (--shared->running == 0)
        shared->done.notify_all();
    });
  takeIndices();
  std::unique_lock<std::mutex> lock(shared->mutex);
  shared->closed = true;
  shared->done.wait(lock, [&] { return shared->running == 0; });
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
