//===- Exchange.cpp - Transfer.h for the CUDA backend ---------------------===//
//
// startExchange gives each rank its GPU (local rank % visible devices),
// finds whether ranks share one (the GPUs' UUIDs, gathered on each node),
// chooses the exchange (Exchange.h) and sets it up; the step's transfers
// then go to it. replicaPart needs no other process: a copy on the compute
// stream.
//
//===----------------------------------------------------------------------===//

#include "DeviceExchange.h"

#include "../Context.h"
#include "MPI/Communicators.h"

#include "memopt/Runtime/Device.h"
#include "memopt/Runtime/Program.h"
#include "memopt/Runtime/Transfer.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace memopt::rt {

namespace {

std::unique_ptr<cuda::DeviceExchange> active;
ExchangeReport report;

/// A call that no exchange was set up for is a runtime bug.
cuda::DeviceExchange &exchange() {
  if (!active)
    mpi::abortRun("the step exchanged a tensor before the exchange was set "
                  "up (memopt bug)");
  return *active;
}

/// Whether two ranks of this node (`node`: its ranks) drive the same GPU:
/// the devices' UUIDs, gathered over the node, compared; then agreed over
/// every node. (Not the device count: a launcher may give each rank its
/// own CUDA_VISIBLE_DEVICES.)
bool ranksShareGpu(int device, MPI_Comm node) {
  cudaDeviceProp properties;
  MEMOPT_CUDA_CHECK("exchange setup",
                    cudaGetDeviceProperties(&properties, device));
  int nodeSize = 0;
  MPI_Comm_size(node, &nodeSize);
  constexpr int kUuidBytes = sizeof(properties.uuid.bytes);
  std::vector<char> uuids(static_cast<size_t>(nodeSize) * kUuidBytes);
  mpi::check(MPI_Allgather(properties.uuid.bytes, kUuidBytes, MPI_BYTE,
                           uuids.data(), kUuidBytes, MPI_BYTE, node),
             "MPI_Allgather (GPU UUIDs)");
  int shared = 0;
  for (int a = 0; a < nodeSize && !shared; ++a)
    for (int b = a + 1; b < nodeSize && !shared; ++b)
      shared = std::memcmp(&uuids[a * kUuidBytes], &uuids[b * kUuidBytes],
                           kUuidBytes) == 0;
  int anywhere = 0;
  mpi::check(MPI_Allreduce(&shared, &anywhere, 1, MPI_INT, MPI_MAX,
                           MPI_COMM_WORLD),
             "MPI_Allreduce (shared GPUs)");
  return anywhere != 0;
}

/// MEMOPT_EXCHANGE_TIMEOUT: seconds that one NCCL call may make no progress
/// before the run ends (default 600).
Status exchangeTimeout(double &seconds) {
  seconds = 600.0;
  const char *text = std::getenv("MEMOPT_EXCHANGE_TIMEOUT");
  if (!text || !*text)
    return Status();
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (*end || !(value > 0.0))
    return Status::error(std::string("MEMOPT_EXCHANGE_TIMEOUT='") + text +
                         "': expected a number of seconds > 0");
  seconds = value;
  return Status();
}

} // namespace

Status startExchange(const Program &program,
                     std::optional<ExchangeKind> requested) {
  if (Status status = device::open(); !status.ok())
    return status;
  int local = 0, devices = 0;
  MPI_Comm node = MPI_COMM_NULL;
  mpi::check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                 MPI_INFO_NULL, &node),
             "MPI_Comm_split_type (node)");
  MPI_Comm_rank(node, &local);
  MEMOPT_CUDA_CHECK("exchange setup", cudaGetDeviceCount(&devices));
  int device = local % devices;
  MEMOPT_CUDA_CHECK("exchange setup", cudaSetDevice(device));

  ExchangeFacts facts;
  facts.cuda = true;
#ifdef MEMOPT_HAVE_NCCL
  facts.ncclBuilt = true;
#endif
  facts.ranksShareGpu = ranksShareGpu(device, node);
  MPI_Comm_free(&node);
  ExchangeChoice choice;
  if (Status status = chooseExchange(requested, facts, choice); !status.ok())
    return status;
  double timeout = 0.0;
  if (Status status = exchangeTimeout(timeout); !status.ok())
    return status;
#ifdef MEMOPT_HAVE_NCCL
  if (choice.kind == ExchangeKind::Nccl)
    active = cuda::createNcclExchange(device, timeout);
#endif
  if (choice.kind == ExchangeKind::Mpi)
    active = cuda::createStagedExchange(
        stagingHostBytes(program, choice.kind, /*cuda=*/true));
  report.kind = exchangeName(choice.kind);
  report.note = choice.note;
  return Status();
}

ExchangeReport exchangeReport() {
  ExchangeReport current = report;
  if (active) {
    current.commDeviceBytes = active->commDeviceBytes();
    current.stagingHostBytes = active->stagingHostBytes();
  }
  return current;
}

void stopExchange() { active.reset(); }

void sendTensor(ConstTensor view, int64_t peer, int64_t tag) {
  exchange().send(view, peer, tag);
}

void receiveTensor(Tensor view, int64_t peer, int64_t tag) {
  exchange().receive(view, peer, tag);
}

void allReduceMean(ConstTensor input, Tensor output) {
  exchange().allReduceMean(input, output);
}

void allGatherParts(ConstTensor part, Tensor whole) {
  exchange().allGatherParts(part, whole);
}

void replicaPart(ConstTensor whole, Tensor part) {
  cuda::requireFloat32(whole, "replicaPart");
  int replica = 0;
  MPI_Comm_rank(mpi::replicaComm(), &replica);
  mpi::Part mine = mpi::partOf(whole.numel(), part.numel(), replica);
  MEMOPT_CUDA_CHECK("replicaPart",
                    cudaMemcpyAsync(part.data, whole.data + mine.begin,
                                    mine.count * sizeof(float),
                                    cudaMemcpyDeviceToDevice, cuda::stream()));
  if (mine.count < part.numel())
    MEMOPT_CUDA_CHECK(
        "replicaPart",
        cudaMemsetAsync(part.data + mine.count, 0,
                        (part.numel() - mine.count) * sizeof(float),
                        cuda::stream()));
}

namespace cuda {

void requireFloat32(ConstTensor view, const char *what) {
  if (view.type != ElementType::F32)
    mpi::abortRun(std::string(what) +
                  ": the CUDA exchange moves float32 tensors only");
}

} // namespace cuda

} // namespace memopt::rt
