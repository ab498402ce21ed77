//===- NcclExchange.cpp - NCCL on a communication stream ------------------===//
//
// One NCCL communicator per MPI communicator of more than one rank (this
// replica's stages, this stage's replicas), bootstrapped over MPI: rank 0
// of each makes the unique id, MPI_Bcast hands it to the others. Every
// call runs on a communication stream of its own, ordered with the compute
// stream by events: the communication stream waits for what the compute
// stream queued before the call, the compute stream for the call's end.
//
// Nothing waits forever. The communicators are non-blocking
// (config.blocking = 0): setup and every call are polled
// (ncclCommGetAsyncError) against a deadline. A watchdog thread follows
// the calls queued on the GPU; one that stays incomplete for the timeout
// (MEMOPT_EXCHANGE_TIMEOUT, a peer that died or hangs), or an asynchronous
// NCCL error, aborts the communicators (ncclCommAbort) and ends every
// process with MPI_Abort, naming this rank and the call. A rank that dies
// outright ends the run as on the CPU backend: mpirun kills the others.
//
// NCCL's own device buffers are outside the arena: the driver's used
// memory grown across NCCL's calls is counted as commDeviceBytes.
//
//===----------------------------------------------------------------------===//

#include "DeviceExchange.h"

#include "../Context.h"
#include "MPI/Communicators.h"

#include "memopt/Runtime/Device.h"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace memopt::rt::cuda {

namespace {

using Clock = std::chrono::steady_clock;

class NcclExchange final : public DeviceExchange {
public:
  NcclExchange(int device, double timeoutSeconds)
      : device(device), timeout(std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(timeoutSeconds))) {
    MEMOPT_CUDA_CHECK("exchange setup",
                      cudaStreamCreateWithFlags(&commStream,
                                                cudaStreamNonBlocking));
    MEMOPT_CUDA_CHECK("exchange setup",
                      cudaEventCreateWithFlags(&computeReady,
                                               cudaEventDisableTiming));
    stages = initComm(mpi::stageComm(), "the stages of this replica");
    replicas = initComm(mpi::replicaComm(), "the replicas of this stage");
    watchdog = std::thread([this] { watch(); });
  }

  ~NcclExchange() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    watchdog.join();
    // The step's calls are complete: the trainer waited for the compute
    // stream, which waited for them. Finalizing is collective, so it is
    // polled against the timeout like every call.
    for (ncclComm_t comm : {stages, replicas}) {
      if (!comm)
        continue;
      settle(comm, ncclCommFinalize(comm), "ncclCommFinalize");
      ncclCommDestroy(comm);
    }
    for (const Pending &pending : queued)
      cudaEventDestroy(pending.done);
    for (cudaEvent_t event : spare)
      cudaEventDestroy(event);
    cudaEventDestroy(computeReady);
    cudaStreamDestroy(commStream);
  }

  void send(ConstTensor view, int64_t peer, int64_t tag) override {
    pointToPoint(view, peer, tag, /*send=*/true);
  }

  void receive(Tensor view, int64_t peer, int64_t tag) override {
    pointToPoint(view, peer, tag, /*send=*/false);
  }

  void allReduceMean(ConstTensor input, Tensor output) override {
    requireFloat32(output, "allReduceMean");
    run(replicas, "ncclAllReduce (mean over the replicas)", [&] {
      return ncclAllReduce(input.data, output.data, output.numel(),
                           ncclFloat32, ncclAvg, replicas, commStream);
    });
  }

  void allGatherParts(ConstTensor part, Tensor whole) override {
    requireFloat32(whole, "allGatherParts");
    // ncclAllGather would write replicas x part elements, more than the
    // whole holds when the parts do not divide it: one broadcast per
    // replica of its part's elements, grouped into one call.
    int numReplicas = mpi::numReplicas();
    run(replicas, "ncclBroadcast of the replicas' parts", [&] {
      ncclResult_t result = ncclGroupStart();
      for (int r = 0; r < numReplicas && result == ncclSuccess; ++r) {
        mpi::Part each = mpi::partOf(whole.numel(), part.numel(), r);
        if (each.count > 0)
          result = ncclBroadcast(part.data, whole.data + each.begin,
                                 each.count, ncclFloat32, r, replicas,
                                 commStream);
      }
      ncclResult_t end = ncclGroupEnd();
      return result != ncclSuccess ? result : end;
    });
  }

  size_t commDeviceBytes() const override { return grownBytes; }
  size_t stagingHostBytes() const override { return 0; }

private:
  struct Pending {
    cudaEvent_t done;
    std::string what;
    Clock::time_point since; // queued, or became the oldest
  };

  /// ncclSend of `view` to stage `peer`, or ncclRecv into it. NCCL has no
  /// tags: both stages call in the step's global order, which pairs them.
  void pointToPoint(ConstTensor view, int64_t peer, int64_t tag, bool send) {
    requireFloat32(view, send ? "sendTensor" : "receiveTensor");
    std::string what = std::string(send ? "ncclSend to" : "ncclRecv from") +
                       " stage " + std::to_string(peer) + " (tag " +
                       std::to_string(tag) + ")";
    int to = static_cast<int>(peer);
    run(stages, what, [&] {
      // The receive writes the view that the step gave as a Tensor.
      return send ? ncclSend(view.data, view.numel(), ncclFloat32, to, stages,
                             commStream)
                  : ncclRecv(const_cast<float *>(view.data), view.numel(),
                             ncclFloat32, to, stages, commStream);
    });
  }

  /// The NCCL communicator of `comm`'s ranks (none for one rank).
  ncclComm_t initComm(MPI_Comm comm, const char *who) {
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size < 2)
      return nullptr;
    ncclUniqueId id;
    if (rank == 0)
      checkNccl(nullptr, ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi::check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm),
               "MPI_Bcast of the NCCL id");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t nccl = nullptr;
    size_t before = device::driverUsedBytes();
    ncclResult_t result =
        ncclCommInitRankConfig(&nccl, size, id, rank, &config);
    settle(nccl, result,
           std::string("ncclCommInitRankConfig for ") + who);
    grow(before);
    return nccl;
  }

  /// Queues `call` on the communication stream after the compute stream's
  /// work, and the compute stream's next work after it.
  template <typename Call>
  void run(ncclComm_t comm, const std::string &what, Call call) {
    if (!comm)
      mpi::abortRun(what + ": no NCCL communicator (memopt bug)");
    MEMOPT_CUDA_CHECK("exchange", cudaEventRecord(computeReady, stream()));
    MEMOPT_CUDA_CHECK("exchange",
                      cudaStreamWaitEvent(commStream, computeReady, 0));
    size_t before = device::driverUsedBytes();
    settle(comm, call(), what);
    grow(before);
    cudaEvent_t done = queue(what);
    MEMOPT_CUDA_CHECK("exchange", cudaStreamWaitEvent(stream(), done, 0));
  }

  /// Waits until `comm` has taken a call that returned `result` (a
  /// non-blocking communicator may still be working on it), at most the
  /// timeout; an error or the timeout ends the run.
  void settle(ncclComm_t comm, ncclResult_t result, const std::string &what) {
    Clock::time_point deadline = Clock::now() + timeout;
    while (result == ncclInProgress) {
      if (Clock::now() > deadline) {
        ncclCommAbort(comm);
        mpi::abortRun(what + ": no progress in " + timeoutText() +
                      " (a peer rank died or hangs; MEMOPT_EXCHANGE_TIMEOUT "
                      "sets the limit)");
      }
      std::this_thread::yield();
      if (ncclCommGetAsyncError(comm, &result) != ncclSuccess)
        break;
    }
    checkNccl(comm, result, what);
  }

  static void checkNccl(ncclComm_t comm, ncclResult_t result,
                        const std::string &what) {
    if (result == ncclSuccess)
      return;
    std::string detail = ncclGetLastError(comm);
    mpi::abortRun(what + " failed: " + ncclGetErrorString(result) +
                  (detail.empty() ? "" : " (" + detail + ")"));
  }

  void grow(size_t before) {
    size_t after = device::driverUsedBytes();
    if (after > before)
      grownBytes += after - before;
  }

  std::string timeoutText() const {
    return std::to_string(
               std::chrono::duration<double>(timeout).count()) +
           " s";
  }

  /// An event recorded after the call on the communication stream, which
  /// the watchdog follows until it completes.
  cudaEvent_t queue(const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex);
    cudaEvent_t done = nullptr;
    if (spare.empty()) {
      MEMOPT_CUDA_CHECK("exchange", cudaEventCreateWithFlags(
                                        &done, cudaEventDisableTiming));
    } else {
      done = spare.back();
      spare.pop_back();
    }
    MEMOPT_CUDA_CHECK("exchange", cudaEventRecord(done, commStream));
    queued.push_back({done, what, Clock::now()});
    return done;
  }

  /// The watchdog: every 50 ms, retires the completed calls, oldest first,
  /// and ends the run when the oldest one has waited longer than the
  /// timeout or NCCL reports an asynchronous error.
  void watch() {
    cudaSetDevice(device);
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, std::chrono::milliseconds(50),
                          [this] { return stopping; })) {
      Clock::time_point now = Clock::now();
      while (!queued.empty()) {
        cudaError_t state = cudaEventQuery(queued.front().done);
        if (state == cudaErrorNotReady)
          break;
        if (state != cudaSuccess)
          fail(queued.front().what + ": " + cudaGetErrorString(state));
        spare.push_back(queued.front().done);
        queued.pop_front();
        if (!queued.empty())
          queued.front().since = std::max(queued.front().since, now);
      }
      if (!queued.empty() && now - queued.front().since > timeout)
        fail(queued.front().what + " incomplete after " + timeoutText() +
             " (a peer rank died or hangs; MEMOPT_EXCHANGE_TIMEOUT sets "
             "the limit)");
      for (ncclComm_t comm : {stages, replicas}) {
        ncclResult_t state = ncclSuccess;
        if (comm && ncclCommGetAsyncError(comm, &state) == ncclSuccess &&
            state != ncclSuccess && state != ncclInProgress)
          fail(std::string("NCCL reported an asynchronous error: ") +
               ncclGetErrorString(state));
      }
    }
  }

  /// From the watchdog: stops the GPU's NCCL kernels, then every process.
  [[noreturn]] void fail(const std::string &message) {
    for (ncclComm_t comm : {stages, replicas})
      if (comm)
        ncclCommAbort(comm);
    mpi::abortRun(message);
  }

  int device;
  Clock::duration timeout;
  cudaStream_t commStream = nullptr;
  cudaEvent_t computeReady = nullptr;
  ncclComm_t stages = nullptr, replicas = nullptr;
  size_t grownBytes = 0;

  std::mutex mutex; // guards what follows
  std::condition_variable wake;
  bool stopping = false;
  std::deque<Pending> queued;
  std::vector<cudaEvent_t> spare;
  std::thread watchdog;
};

} // namespace

std::unique_ptr<DeviceExchange> createNcclExchange(int device,
                                                   double timeoutSeconds) {
  return std::make_unique<NcclExchange>(device, timeoutSeconds);
}

} // namespace memopt::rt::cuda
