//===- Communicators.h - MPI state shared by the exchanges -----*- C++ -*-===//
//
// What stageMain (StageMain.cpp) sets up and the exchanges of the step's
// tensors use: this rank, the communicators of its replica's stages and of
// its stage's replicas, the checked-call helpers that end every process
// with a message naming the rank, and MPI on host memory (HostExchange.cpp),
// which the CPU backend calls on its tensors and the CUDA backend's mpi
// exchange on its staging buffer.
//
// The exchange itself (Transfer.h and the start/stop/report below) is
// implemented by the library linked beside MemoptRuntimeMPI: MPI on host
// tensors (MemoptRuntimeMPICPU, CPUTransfer.cpp) or the CUDA exchange
// (MemoptRuntimeCUDAExchange). Private to those libraries.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_MPI_COMMUNICATORS_H
#define MEMOPT_LIB_RUNTIME_MPI_COMMUNICATORS_H

#include "memopt/Runtime/Exchange.h"
#include "memopt/Runtime/Tensor.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace memopt::rt {

struct Program;

namespace mpi {

/// This process's rank in MPI_COMM_WORLD.
int worldRank();
/// The stages of this process's replica (rank = stage), and the replicas of
/// its stage (rank = replica), and their counts.
MPI_Comm stageComm();
MPI_Comm replicaComm();
int numStages();
int numReplicas();

/// Prints "error: rank R: <message>" and ends every process (MPI_Abort).
[[noreturn]] void abortRun(const std::string &message);
/// abortRun with `what` and MPI's error string unless `code` is
/// MPI_SUCCESS.
void check(int code, const std::string &what);
/// `count` as an MPI count, or abortRun naming `what`.
int messageCount(size_t count, const char *what);

/// Transfer.h on host memory: a blocking send / receive on stageComm, the
/// mean over replicaComm (`input` may be `output`), and the gather of the
/// replicas' parts (replicaPart's layout).
void sendHost(ConstTensor view, int64_t peer, int64_t tag);
void receiveHost(Tensor view, int64_t peer, int64_t tag);
void allReduceMeanHost(ConstTensor input, Tensor output);
void allGatherPartsHost(ConstTensor part, Tensor whole);

/// Where replica `replica`'s part of `numel` elements in parts of
/// `partSize` starts, and its length (short or empty at the end).
struct Part {
  int64_t begin, count;
};
Part partOf(int64_t numel, int64_t partSize, int replica);

} // namespace mpi

/// Implemented by the exchange library: sets up the exchange of `program`'s
/// tensors (`requested`: BIN --exchange) after MPI started, before the
/// trainer opens the device (the CUDA exchange picks this rank's GPU); a
/// collective call. stopExchange releases what it set up, before
/// MPI_Finalize.
Status startExchange(const Program &program,
                     std::optional<ExchangeKind> requested);
ExchangeReport exchangeReport();
void stopExchange();

} // namespace memopt::rt

#endif // MEMOPT_LIB_RUNTIME_MPI_COMMUNICATORS_H
