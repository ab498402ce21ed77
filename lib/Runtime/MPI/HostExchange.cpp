//===- HostExchange.cpp - The step's tensors over MPI, on host memory -----===//
//
// Blocking MPI calls on host tensors: every stage performs its transfers in
// the step's global order (tg-partition) and every replica its all-reduces
// in the same order, so blocking calls cannot deadlock. The CPU backend
// calls them on its tensors (CPUTransfer.cpp); the CUDA backend's mpi
// exchange on its pinned staging buffer. A failed call ends every process
// with a message naming the rank.
//
//===----------------------------------------------------------------------===//

#include "Communicators.h"

#include <algorithm>
#include <vector>

namespace memopt::rt::mpi {

namespace {
/// A transfer moves the view's bytes whatever its element type (a bf16 or
/// f16 activation at a cut under --amp is 2 bytes an element).
int messageBytes(ConstTensor view, const char *what) {
  return messageCount(view.bytes(), what);
}

/// The collectives sum floats: an operand of another element type would be
/// read as floats.
void requireFloat(ConstTensor view, const char *what) {
  if (view.type != ElementType::F32)
    abortRun(std::string(what) + " of a non-f32 tensor (element type " +
             std::to_string(static_cast<int>(view.type)) +
             "): the replicas exchange f32 gradients and weights only");
}
} // namespace

void sendHost(ConstTensor view, int64_t peer, int64_t tag) {
  check(MPI_Send(view.data, messageBytes(view, "a tensor send"),
                 MPI_BYTE, static_cast<int>(peer), static_cast<int>(tag),
                 stageComm()),
        "MPI_Send to stage " + std::to_string(peer) + " (tag " +
            std::to_string(tag) + ")");
}

void receiveHost(Tensor view, int64_t peer, int64_t tag) {
  check(MPI_Recv(view.data, messageBytes(view, "a tensor receive"),
                 MPI_BYTE, static_cast<int>(peer), static_cast<int>(tag),
                 stageComm(), MPI_STATUS_IGNORE),
        "MPI_Recv from stage " + std::to_string(peer) + " (tag " +
            std::to_string(tag) + ")");
}

void allReduceMeanHost(ConstTensor input, Tensor output) {
  requireFloat(output, "an all-reduce");
  int count = messageCount(output.numel(), "an all-reduce");
  check(MPI_Allreduce(input.data == output.data ? MPI_IN_PLACE : input.data,
                      output.data, count, MPI_FLOAT, MPI_SUM, replicaComm()),
        "MPI_Allreduce over " + std::to_string(numReplicas()) + " replicas");
  // The sum times 1/R (exact for R a power of two): the mean of the
  // replicas' gradients of their slices' mean losses is the gradient of the
  // whole batch's mean loss.
  float scale = 1.0f / static_cast<float>(numReplicas());
  for (int i = 0; i < count; ++i)
    output.data[i] *= scale;
}

Part partOf(int64_t numel, int64_t partSize, int replica) {
  int64_t begin = std::min<int64_t>(numel, replica * partSize);
  return {begin, std::min<int64_t>(partSize, numel - begin)};
}

void allGatherPartsHost(ConstTensor part, Tensor whole) {
  requireFloat(whole, "an all-gather");
  int replica = 0;
  MPI_Comm_rank(replicaComm(), &replica);
  int replicas = numReplicas();
  std::vector<int> counts(replicas), displacements(replicas);
  for (int r = 0; r < replicas; ++r) {
    Part each = partOf(whole.numel(), part.numel(), r);
    counts[r] = messageCount(each.count, "a gathered part");
    displacements[r] = messageCount(each.begin, "a gathered tensor");
  }
  // In place when the part already sits at its place in the whole (the
  // CUDA exchange's staging buffer).
  const void *send = part.data == whole.data + displacements[replica]
                         ? MPI_IN_PLACE
                         : static_cast<const void *>(part.data);
  check(MPI_Allgatherv(send, counts[replica], MPI_FLOAT, whole.data,
                       counts.data(), displacements.data(), MPI_FLOAT,
                       replicaComm()),
        "MPI_Allgatherv over " + std::to_string(replicas) + " replicas");
}

} // namespace memopt::rt::mpi
