//===- StageGroup.h - The processes of a multi-process run -----*- C++ -*-===//
//
// A binary compiled with `memopt-compile --stages=S --data-parallel=R` runs
// S x R processes (`mpirun -np S*R BIN ...`): rank r runs pipeline stage
// r % S of replica r / S, so each replica's stages are consecutive ranks
// and replica 0 is ranks 0 .. S-1. The trainer (MemoptRuntimeHost,
// which does not depend on MPI) talks to the other processes through this
// interface; MemoptRuntimeMPI implements it and provides `stageMain`, the
// binary's main. Every call is collective or point to point between ranks
// that all make it in the same order; an MPI failure ends every process
// (MPI_Abort) with a message naming the rank.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_STAGEGROUP_H
#define MEMOPT_RUNTIME_STAGEGROUP_H

#include "memopt/Runtime/Exchange.h"
#include "memopt/Runtime/Program.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace memopt::rt {

class StageGroup {
public:
  virtual ~StageGroup() = default;
  /// This process's MPI rank and the number of processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Its pipeline stage and the number of stages (1 without --stages).
  virtual int stage() const = 0;
  virtual int stages() const = 0;
  /// Its data-parallel replica and the number of replicas (1 without
  /// --data-parallel): each replica trains on its slice of every batch.
  virtual int replica() const = 0;
  virtual int replicas() const = 0;
  /// The Program of stage `stage` (every rank holds all of them).
  virtual const Program &program(int stage) const = 0;
  /// Copies `bytes` at `data` of rank `root` to every rank's `data`.
  virtual void broadcast(void *data, size_t bytes, int root) = 0;
  /// Point to point, on a channel of the trainer's own (never the step's).
  virtual void send(const void *data, size_t bytes, int peer) = 0;
  virtual void receive(void *data, size_t bytes, int peer) = 0;
  /// Every rank's `value`, by rank.
  virtual std::vector<int64_t> allGather(int64_t value) = 0;
  /// Sets up the exchange of the step's tensors (Exchange.h; `requested`:
  /// --exchange) for `program`, before the trainer opens the device (the
  /// CUDA exchange picks this rank's GPU). Collective.
  virtual Status startExchange(const Program &program,
                               std::optional<ExchangeKind> requested) = 0;
  /// This rank's exchange, for the run report.
  virtual ExchangeReport exchangeReport() const = 0;
  /// Ends every process of the run with exit code `code`, after this
  /// process printed why.
  [[noreturn]] virtual void abort(int code) = 0;
};

/// The trainer of one stage: `program` is `group.program(group.stage())`.
int trainerMain(int argc, char **argv, const Program &program,
                StageGroup &group);

/// The main of a binary of `numStages` pipeline stages (one Program each)
/// and `numReplicas` data-parallel replicas (MemoptRuntimeMPI): starts MPI,
/// checks that it runs numStages x numReplicas processes, and runs the
/// trainer of its rank's stage.
int stageMain(int argc, char **argv, const Program *programs, int numStages,
              int numReplicas);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STAGEGROUP_H
