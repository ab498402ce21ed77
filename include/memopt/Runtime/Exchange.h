//===- Exchange.h - How the processes of a run exchange tensors -*- C++ -*-===//
//
// A multi-process binary (--stages, --data-parallel) moves tensors between
// ranks in the step (Transfer.h) over one of two exchanges:
//   mpi:  MPI on host memory. The CPU backend's tensors are host memory
//         already; the CUDA backend copies each tensor to a pinned host
//         staging buffer (allocated once, Program::exchangeBytes) and back.
//   nccl: NCCL on device memory (CUDA only), bootstrapped over MPI, on a
//         communication stream ordered with the compute stream by events.
// `BIN --exchange=nccl|mpi` asks for one; a CUDA binary defaults to nccl and
// falls back to mpi, saying why in the run report, when NCCL cannot serve
// the run (the runtime was built without it, or ranks share a GPU, which
// NCCL refuses). This header is the part that needs neither MPI nor CUDA:
// the choice and the staging size, which the unit tests check on any
// machine.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_EXCHANGE_H
#define MEMOPT_RUNTIME_EXCHANGE_H

#include "memopt/Runtime/Status.h"

#include <cstddef>
#include <optional>
#include <string>

namespace memopt::rt {

struct Program;

enum class ExchangeKind { Mpi, Nccl };

/// "mpi" or "nccl", as the flag and the run report spell them.
const char *exchangeName(ExchangeKind kind);
/// The kind named `text`, or nullopt.
std::optional<ExchangeKind> parseExchangeKind(const std::string &text);

/// What the processes of this run can do, as the CUDA exchange finds it.
struct ExchangeFacts {
  bool cuda = false;         // the binary's tensors live in device memory
  bool ncclBuilt = false;    // the runtime was linked with NCCL
  bool ranksShareGpu = false; // on some node, more ranks than visible GPUs
};

/// The exchange of a run: `requested` (--exchange, nullopt when absent)
/// against `facts`. `note` says why the default was not taken (empty
/// otherwise); an explicit request that cannot be served is an error that
/// names the fix.
struct ExchangeChoice {
  ExchangeKind kind = ExchangeKind::Mpi;
  std::string note;
};
Status chooseExchange(std::optional<ExchangeKind> requested,
                      const ExchangeFacts &facts, ExchangeChoice &choice);

/// The pinned host bytes the exchange `kind` of a binary with `cuda`
/// tensors allocates for `program`: its largest exchanged tensor for a CUDA
/// binary over mpi, nothing otherwise (host tensors and NCCL need no
/// staging).
size_t stagingHostBytes(const Program &program, ExchangeKind kind, bool cuda);

/// What the run report says about the exchange of this rank.
struct ExchangeReport {
  std::string kind; // exchangeName()
  std::string note; // ExchangeChoice::note
  /// Device memory that the exchange's library allocated outside the
  /// arena (NCCL's buffers: the driver's used memory grown across NCCL's
  /// calls), and the pinned staging buffer.
  size_t commDeviceBytes = 0;
  size_t stagingHostBytes = 0;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_EXCHANGE_H
