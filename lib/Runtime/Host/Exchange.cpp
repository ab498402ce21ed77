//===- Exchange.cpp - The choice of a run's exchange ----------------------===//
//
// The part of Exchange.h that needs neither MPI nor CUDA, so that the unit
// tests check it on any machine: the exchanges' names, the choice between
// them and the size of the staging buffer.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Exchange.h"

#include "memopt/Runtime/Program.h"

namespace memopt::rt {

const char *exchangeName(ExchangeKind kind) {
  return kind == ExchangeKind::Nccl ? "nccl" : "mpi";
}

std::optional<ExchangeKind> parseExchangeKind(const std::string &text) {
  if (text == "nccl")
    return ExchangeKind::Nccl;
  if (text == "mpi")
    return ExchangeKind::Mpi;
  return std::nullopt;
}

Status chooseExchange(std::optional<ExchangeKind> requested,
                      const ExchangeFacts &facts, ExchangeChoice &choice) {
  choice = ExchangeChoice{};
  if (!facts.cuda) {
    if (requested == ExchangeKind::Nccl)
      return Status::error(
          "--exchange=nccl: this binary was compiled for the CPU backend, "
          "whose tensors travel over MPI: give --exchange=mpi or drop "
          "--exchange");
    return Status();
  }
  if (requested == ExchangeKind::Mpi)
    return Status();
  // Why NCCL cannot serve this run, if it cannot.
  std::string obstacle;
  if (!facts.ncclBuilt)
    obstacle = "the runtime was built without NCCL (CMake found no libnccl)";
  else if (facts.ranksShareGpu)
    obstacle = "ranks share a GPU (more ranks on a node than visible GPUs), "
               "which NCCL refuses";
  if (obstacle.empty()) {
    choice.kind = ExchangeKind::Nccl;
    return Status();
  }
  if (requested == ExchangeKind::Nccl)
    return Status::error("--exchange=nccl: " + obstacle +
                         ": give --exchange=mpi (host-staged copies)" +
                         (facts.ncclBuilt ? " or run one rank per GPU"
                                          : " or rebuild memopt with NCCL"));
  choice.note = "mpi instead of nccl: " + obstacle;
  return Status();
}

size_t stagingHostBytes(const Program &program, ExchangeKind kind,
                        bool cuda) {
  return cuda && kind == ExchangeKind::Mpi ? program.exchangeBytes : 0;
}

} // namespace memopt::rt
