//===- StageMain.cpp - The main of a multi-process binary -----------------===//
//
// stageMain starts MPI, checks the process count against the compiled
// stages and replicas, and runs the trainer of this rank's stage with an
// MPI StageGroup. A replica's stages exchange activations and gradients on
// their own communicator (peers numbered by stage); a stage's replicas
// average on theirs (tg.all_reduce).
// Errors are returned by MPI (MPI_ERRORS_RETURN) so that the failing rank
// names itself before MPI_Abort ends every process: a failure never leaves
// the other ranks waiting.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/StageGroup.h"
#include "memopt/Runtime/Transfer.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace memopt::rt {

namespace {

int worldRank = -1;
// The trainer's messages (weights for --out) travel on their own
// communicator, so they never match a step's tags.
MPI_Comm trainerComm = MPI_COMM_NULL;
// The stages of this process's replica (rank = stage), and the replicas of
// its stage (rank = replica).
MPI_Comm stageComm = MPI_COMM_NULL;
MPI_Comm replicaComm = MPI_COMM_NULL;
int numReplicasOfRun = 1;
constexpr int kTrainerTag = 1;

[[noreturn]] void abortRun(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s\n", worldRank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void check(int code, const std::string &what) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  abortRun(what + " failed: " + std::string(text, length));
}

int messageCount(size_t count, const char *what) {
  if (count > static_cast<size_t>(INT_MAX))
    abortRun(std::string(what) + ": " + std::to_string(count) +
             " elements, more than one MPI message holds");
  return static_cast<int>(count);
}

class MPIStageGroup final : public StageGroup {
public:
  MPIStageGroup(const Program *programs, int numStages, int numReplicas)
      : programs(programs), numStages(numStages), numReplicas(numReplicas) {}

  int rank() const override { return worldRank; }
  int size() const override { return numStages * numReplicas; }
  int stage() const override { return worldRank % numStages; }
  int stages() const override { return numStages; }
  int replica() const override { return worldRank / numStages; }
  int replicas() const override { return numReplicas; }
  const Program &program(int stage) const override { return programs[stage]; }

  void broadcast(void *data, size_t bytes, int root) override {
    check(MPI_Bcast(data, messageCount(bytes, "broadcast"), MPI_BYTE, root,
                    trainerComm),
          "MPI_Bcast from rank " + std::to_string(root));
  }
  void send(const void *data, size_t bytes, int peer) override {
    // In pieces of at most 1 GiB: MPI counts are ints.
    constexpr size_t kPiece = size_t(1) << 30;
    const auto *bytesAt = static_cast<const unsigned char *>(data);
    for (size_t done = 0; done < bytes; done += kPiece)
      check(MPI_Send(bytesAt + done,
                     static_cast<int>(std::min(kPiece, bytes - done)), MPI_BYTE,
                     peer, kTrainerTag, trainerComm),
            "MPI_Send to rank " + std::to_string(peer));
  }
  void receive(void *data, size_t bytes, int peer) override {
    constexpr size_t kPiece = size_t(1) << 30;
    auto *bytesAt = static_cast<unsigned char *>(data);
    for (size_t done = 0; done < bytes; done += kPiece)
      check(MPI_Recv(bytesAt + done,
                     static_cast<int>(std::min(kPiece, bytes - done)), MPI_BYTE,
                     peer, kTrainerTag, trainerComm, MPI_STATUS_IGNORE),
            "MPI_Recv from rank " + std::to_string(peer));
  }
  std::vector<int64_t> allGather(int64_t value) override {
    std::vector<int64_t> values(size());
    check(MPI_Allgather(&value, 1, MPI_INT64_T, values.data(), 1, MPI_INT64_T,
                        trainerComm),
          "MPI_Allgather");
    return values;
  }
  [[noreturn]] void abort(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

private:
  const Program *programs;
  int numStages;
  int numReplicas;
};

} // namespace

void sendTensor(ConstTensor view, int64_t peer, int64_t tag) {
  check(MPI_Send(view.data, messageCount(view.numel(), "a tensor send"),
                 MPI_FLOAT, static_cast<int>(peer), static_cast<int>(tag),
                 stageComm),
        "MPI_Send to stage " + std::to_string(peer) + " (tag " +
            std::to_string(tag) + ")");
}

void receiveTensor(Tensor view, int64_t peer, int64_t tag) {
  check(MPI_Recv(view.data, messageCount(view.numel(), "a tensor receive"),
                 MPI_FLOAT, static_cast<int>(peer), static_cast<int>(tag),
                 stageComm, MPI_STATUS_IGNORE),
        "MPI_Recv from stage " + std::to_string(peer) + " (tag " +
            std::to_string(tag) + ")");
}

void allReduceMean(ConstTensor input, Tensor output) {
  int count = messageCount(output.numel(), "an all-reduce");
  check(MPI_Allreduce(input.data == output.data ? MPI_IN_PLACE : input.data,
                      output.data, count, MPI_FLOAT, MPI_SUM, replicaComm),
        "MPI_Allreduce over " + std::to_string(numReplicasOfRun) +
            " replicas");
  // The sum times 1/R (exact for R a power of two): the mean of the
  // replicas' gradients of their slices' mean losses is the gradient of the
  // whole batch's mean loss.
  float scale = 1.0f / static_cast<float>(numReplicasOfRun);
  for (int i = 0; i < count; ++i)
    output.data[i] *= scale;
}

namespace {
/// Where replica `r`'s part of `numel` elements starts, and its length
/// (short or empty at the end).
struct Part {
  int64_t begin, count;
};
Part partOf(int64_t numel, int64_t partSize, int replica) {
  int64_t begin = std::min<int64_t>(numel, replica * partSize);
  return {begin, std::min<int64_t>(partSize, numel - begin)};
}
} // namespace

void replicaPart(ConstTensor whole, Tensor part) {
  int replica = 0;
  MPI_Comm_rank(replicaComm, &replica);
  Part mine = partOf(whole.numel(), part.numel(), replica);
  std::copy(whole.data + mine.begin, whole.data + mine.begin + mine.count,
            part.data);
  std::fill(part.data + mine.count, part.data + part.numel(), 0.0f);
}

void allGatherParts(ConstTensor part, Tensor whole) {
  int replica = 0;
  MPI_Comm_rank(replicaComm, &replica);
  std::vector<int> counts(numReplicasOfRun), displacements(numReplicasOfRun);
  for (int r = 0; r < numReplicasOfRun; ++r) {
    Part each = partOf(whole.numel(), part.numel(), r);
    counts[r] = messageCount(each.count, "a gathered part");
    displacements[r] = messageCount(each.begin, "a gathered tensor");
  }
  check(MPI_Allgatherv(part.data, counts[replica], MPI_FLOAT, whole.data,
                       counts.data(), displacements.data(), MPI_FLOAT,
                       replicaComm),
        "MPI_Allgatherv over " + std::to_string(numReplicasOfRun) +
            " replicas");
}

int stageMain(int argc, char **argv, const Program *programs, int numStages,
              int numReplicas) {
  // `BIN --help` needs no MPI: the single-process trainer prints the usage
  // (the same for every stage) and returns before it runs anything.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0)
      return trainerMain(argc, argv, programs[0]);
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::fprintf(stderr,
                 "error: MPI_Init failed: launch this binary of %d "
                 "pipeline stages x %d replicas with mpirun -np %d\n",
                 numStages, numReplicas, numStages * numReplicas);
    return 1;
  }
  int numProcesses = numStages * numReplicas;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != numProcesses) {
    // Every rank sees the same count: rank 0 alone says so.
    if (worldRank == 0) {
      std::string layout =
          numReplicas == 1 ? std::to_string(numStages) + " pipeline stages"
          : numStages == 1
              ? std::to_string(numReplicas) + " data-parallel replicas"
              : std::to_string(numStages) + " pipeline stages x " +
                    std::to_string(numReplicas) + " data-parallel replicas";
      std::fprintf(stderr,
                   "error: this binary runs %s, one per process, but MPI "
                   "started %d: launch it with mpirun -np %d %s ...\n",
                   layout.c_str(), size, numProcesses,
                   argc > 0 ? argv[0] : "BIN");
    }
    MPI_Finalize();
    return 2;
  }
  numReplicasOfRun = numReplicas;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &trainerComm), "MPI_Comm_dup");
  check(MPI_Comm_split(MPI_COMM_WORLD, worldRank / numStages,
                       worldRank % numStages, &stageComm),
        "MPI_Comm_split (stages)");
  check(MPI_Comm_split(MPI_COMM_WORLD, worldRank % numStages,
                       worldRank / numStages, &replicaComm),
        "MPI_Comm_split (replicas)");
  for (MPI_Comm comm : {trainerComm, stageComm, replicaComm})
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPIStageGroup group(programs, numStages, numReplicas);
  int code = trainerMain(argc, argv, programs[group.stage()], group);
  for (MPI_Comm *comm : {&replicaComm, &stageComm, &trainerComm})
    MPI_Comm_free(comm);
  MPI_Finalize();
  return code;
}

} // namespace memopt::rt
