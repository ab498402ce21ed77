//===- Copy.cpp - The CPU backend's copy thread ---------------------------===//
//
// Copies to and from the pinned host pool run on one thread of their own,
// in the order the step starts them (memopt/Runtime/Copy.h), while the
// step's kernels run on the calling thread: arena accounting, ordering and
// overlap are those of the CUDA copy stream, without a GPU. waitCopy
// blocks until its copy is done. The thread starts with the first copy
// and is joined when the program exits.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Copy.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace memopt::rt {

namespace {

using Clock = std::chrono::steady_clock;

class CopyThread {
public:
  ~CopyThread() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (worker.joinable())
      worker.join();
  }

  void start(int64_t id, void *target, const void *source, size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!worker.joinable())
      worker = std::thread([this] { run(); });
    State &state = stateOf(id);
    if (state.pending) {
      std::fprintf(stderr, "memopt runtime: copy %lld started again before "
                           "its wait\n",
                   static_cast<long long>(id));
      std::abort();
    }
    state.pending = true;
    queue.push_back({id, target, source, bytes});
    lock.unlock();
    wake.notify_all();
  }

  void wait(int64_t id) {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return !stateOf(id).pending; });
  }

  bool times(int64_t id, Clock::time_point &start, Clock::time_point &end) {
    std::lock_guard<std::mutex> lock(mutex);
    const State &state = stateOf(id);
    start = state.start;
    end = state.end;
    return !state.pending && state.end != Clock::time_point();
  }

private:
  struct Request {
    int64_t id;
    void *target;
    const void *source;
    size_t bytes;
  };
  struct State {
    bool pending = false;
    Clock::time_point start, end;
  };

  State &stateOf(int64_t id) {
    if (id < 0) {
      std::fprintf(stderr, "memopt runtime: negative copy number %lld\n",
                   static_cast<long long>(id));
      std::abort();
    }
    if (static_cast<size_t>(id) >= states.size())
      states.resize(id + 1);
    return states[id];
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      Request request = queue.front();
      queue.pop_front();
      lock.unlock();
      Clock::time_point start = Clock::now();
      std::memcpy(request.target, request.source, request.bytes);
      Clock::time_point end = Clock::now();
      lock.lock();
      State &state = stateOf(request.id);
      state.start = start;
      state.end = end;
      state.pending = false;
      done.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, done;
  std::deque<Request> queue;
  std::vector<State> states;
  bool stopping = false;
  std::thread worker;
};

CopyThread &copies() {
  static CopyThread thread;
  return thread;
}

} // namespace

void startCopy(int64_t id, Tensor target, ConstTensor source) {
  if (target.bytes() != source.bytes()) {
    std::fprintf(stderr, "memopt runtime: copy %lld of %zu bytes into %zu\n",
                 static_cast<long long>(id), source.bytes(), target.bytes());
    std::abort();
  }
  copies().start(id, target.data, source.data, source.bytes());
}

void waitCopy(int64_t id) { copies().wait(id); }

bool copyTimes(int64_t id, Clock::time_point &start, Clock::time_point &end) {
  return copies().times(id, start, end);
}

} // namespace memopt::rt
