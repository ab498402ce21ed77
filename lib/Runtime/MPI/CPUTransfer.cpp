//===- CPUTransfer.cpp - Transfer.h for the CPU backend -------------------===//
//
// The CPU backend's tensors are host memory: the step's transfers are the
// MPI calls of HostExchange.cpp on them, and the only exchange is mpi.
//
//===----------------------------------------------------------------------===//

#include "Communicators.h"

#include "memopt/Runtime/Transfer.h"

#include <algorithm>

namespace memopt::rt {

void sendTensor(ConstTensor view, int64_t peer, int64_t tag) {
  mpi::sendHost(view, peer, tag);
}

void receiveTensor(Tensor view, int64_t peer, int64_t tag) {
  mpi::receiveHost(view, peer, tag);
}

void allReduceMean(ConstTensor input, Tensor output) {
  mpi::allReduceMeanHost(input, output);
}

void replicaPart(ConstTensor whole, Tensor part) {
  int replica = 0;
  MPI_Comm_rank(mpi::replicaComm(), &replica);
  mpi::Part mine = mpi::partOf(whole.numel(), part.numel(), replica);
  std::copy(whole.data + mine.begin, whole.data + mine.begin + mine.count,
            part.data);
  std::fill(part.data + mine.count, part.data + part.numel(), 0.0f);
}

void allGatherParts(ConstTensor part, Tensor whole) {
  mpi::allGatherPartsHost(part, whole);
}

Status startExchange(const Program &,
                     std::optional<ExchangeKind> requested) {
  ExchangeChoice choice;
  return chooseExchange(requested, ExchangeFacts{}, choice);
}

ExchangeReport exchangeReport() { return {exchangeName(ExchangeKind::Mpi)}; }

void stopExchange() {}

} // namespace memopt::rt
