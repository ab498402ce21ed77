//===- StageMain.cpp - The main of a multi-process binary -----------------===//
//
// stageMain starts MPI, checks the process count against the compiled
// stages and replicas, and runs the trainer of this rank's stage with an
// MPI StageGroup. A replica's stages exchange activations and gradients on
// their own communicator (peers numbered by stage); a stage's replicas
// average on theirs (tg.all_reduce).
// Errors are returned by MPI (MPI_ERRORS_RETURN) so that the failing rank
// names itself before MPI_Abort ends every process: a failure never leaves
// the other ranks waiting. An error every rank meets together
// (Status::errorOnEveryRank) returns from the trainer instead, and the
// ranks finalize and exit with its code. The step's tensors travel through
// the exchange library linked beside this one (Communicators.h), which the
// trainer starts through StageGroup::startExchange.
//
//===----------------------------------------------------------------------===//

#include "Communicators.h"

#include "memopt/Runtime/StageGroup.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace memopt::rt {

namespace {

int rankInWorld = -1;
// The trainer's messages (weights for --out) travel on their own
// communicator, so they never match a step's tags.
MPI_Comm trainerComm = MPI_COMM_NULL;
// The stages of this process's replica (rank = stage), and the replicas of
// its stage (rank = replica).
MPI_Comm stagesOfReplica = MPI_COMM_NULL;
MPI_Comm replicasOfStage = MPI_COMM_NULL;
int stagesOfRun = 1;
int replicasOfRun = 1;
constexpr int kTrainerTag = 1;

// Open MPI forwards each rank's output through mpirun and may drop what is
// still on its way when MPI_Abort tears the job down; the failing rank's
// message is the one that must arrive, so it gets a moment to.
void flushBeforeAbort() {
  std::fflush(stdout);
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

} // namespace

namespace mpi {

int worldRank() { return rankInWorld; }
MPI_Comm stageComm() { return stagesOfReplica; }
MPI_Comm replicaComm() { return replicasOfStage; }
int numStages() { return stagesOfRun; }
int numReplicas() { return replicasOfRun; }

[[noreturn]] void abortRun(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s\n", rankInWorld, message.c_str());
  flushBeforeAbort();
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

} // namespace mpi

namespace {

using mpi::check;
using mpi::messageCount;

class MPIStageGroup final : public StageGroup {
public:
  MPIStageGroup(const Program *programs, int numStages, int numReplicas)
      : programs(programs), numStages(numStages), numReplicas(numReplicas) {}

  int rank() const override { return rankInWorld; }
  int size() const override { return numStages * numReplicas; }
  int stage() const override { return rankInWorld % numStages; }
  int stages() const override { return numStages; }
  int replica() const override { return rankInWorld / numStages; }
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
  Status startExchange(const Program &program,
                       std::optional<ExchangeKind> requested) override {
    return rt::startExchange(program, requested);
  }
  ExchangeReport exchangeReport() const override {
    return rt::exchangeReport();
  }
  [[noreturn]] void abort(int code) override {
    flushBeforeAbort();
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

private:
  const Program *programs;
  int numStages;
  int numReplicas;
};

} // namespace

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
  MPI_Comm_rank(MPI_COMM_WORLD, &rankInWorld);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != numProcesses) {
    // Every rank sees the same count: rank 0 alone says so.
    if (rankInWorld == 0) {
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
  stagesOfRun = numStages;
  replicasOfRun = numReplicas;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &trainerComm), "MPI_Comm_dup");
  check(MPI_Comm_split(MPI_COMM_WORLD, rankInWorld / numStages,
                       rankInWorld % numStages, &stagesOfReplica),
        "MPI_Comm_split (stages)");
  check(MPI_Comm_split(MPI_COMM_WORLD, rankInWorld % numStages,
                       rankInWorld / numStages, &replicasOfStage),
        "MPI_Comm_split (replicas)");
  for (MPI_Comm comm : {trainerComm, stagesOfReplica, replicasOfStage})
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPIStageGroup group(programs, numStages, numReplicas);
  int code = trainerMain(argc, argv, programs[group.stage()], group);
  stopExchange();
  for (MPI_Comm *comm : {&replicasOfStage, &stagesOfReplica, &trainerComm})
    MPI_Comm_free(comm);
  MPI_Finalize();
  return code;
}

} // namespace memopt::rt
