//===- StagedExchange.cpp - MPI through pinned host memory ----------------===//
//
// The exchange of CUDA ranks without NCCL, or sharing a GPU (which NCCL
// refuses): each tensor is copied on the compute stream into one pinned
// host buffer, sized once by the plan (Program::exchangeBytes), moved by
// the CPU backend's MPI calls (HostExchange.cpp) and copied back. The
// host waits for the copy out before MPI reads the buffer (the compute
// stream only, never the whole device), and MPI writes the buffer only
// after the previous copy in has read it (an event).
//
//===----------------------------------------------------------------------===//

#include "DeviceExchange.h"

#include "../Context.h"
#include "MPI/Communicators.h"

#include "memopt/Runtime/Device.h"

namespace memopt::rt::cuda {

namespace {

class StagedExchange final : public DeviceExchange {
public:
  explicit StagedExchange(size_t bytes) : bytes(bytes) {
    if (bytes > 0) {
      staging = static_cast<float *>(device::allocatePinnedHost(bytes));
      if (!staging)
        mpi::abortRun("cannot allocate the exchange's pinned staging buffer "
                      "of " +
                      std::to_string(bytes) + " bytes");
    }
    MEMOPT_CUDA_CHECK("exchange setup",
                      cudaEventCreateWithFlags(&stagingFree,
                                               cudaEventDisableTiming));
  }
  ~StagedExchange() override {
    if (staging)
      device::releasePinnedHost(staging);
    cudaEventDestroy(stagingFree);
  }

  void send(ConstTensor view, int64_t peer, int64_t tag) override {
    Tensor host = hostView(view, "sendTensor");
    copyOut(host.data, view.data, view.numel());
    mpi::sendHost(host, peer, tag);
  }

  void receive(Tensor view, int64_t peer, int64_t tag) override {
    Tensor host = hostView(view, "receiveTensor");
    waitStagingFree();
    mpi::receiveHost(host, peer, tag);
    copyIn(view.data, host.data, view.numel());
  }

  void allReduceMean(ConstTensor input, Tensor output) override {
    Tensor host = hostView(output, "allReduceMean");
    copyOut(host.data, input.data, input.numel());
    mpi::allReduceMeanHost(host, host);
    copyIn(output.data, host.data, output.numel());
  }

  void allGatherParts(ConstTensor part, Tensor whole) override {
    Tensor host = hostView(whole, "allGatherParts");
    int replica = 0;
    MPI_Comm_rank(mpi::replicaComm(), &replica);
    mpi::Part mine = mpi::partOf(whole.numel(), part.numel(), replica);
    // This replica's part at its place in the whole: gathered in place.
    copyOut(host.data + mine.begin, part.data, mine.count);
    mpi::allGatherPartsHost(ConstTensor(host.data + mine.begin, part.shape),
                            host);
    copyIn(whole.data, host.data, whole.numel());
  }

  size_t commDeviceBytes() const override { return 0; }
  size_t stagingHostBytes() const override { return bytes; }

private:
  /// The staging buffer as a tensor of `view`'s shape.
  Tensor hostView(ConstTensor view, const char *what) {
    requireFloat32(view, what);
    if (view.bytes() > bytes)
      mpi::abortRun(std::string(what) + ": a tensor of " +
                    std::to_string(view.bytes()) +
                    " bytes, larger than the staging buffer of " +
                    std::to_string(bytes) +
                    " that the plan sized (memopt bug)");
    return Tensor(staging, view.shape);
  }

  /// `count` floats from the device into the staging buffer, complete on
  /// return. Queued after the previous copy in, so it never overtakes it.
  void copyOut(float *host, const float *deviceData, int64_t count) {
    MEMOPT_CUDA_CHECK("exchange copy to host",
                      cudaMemcpyAsync(host, deviceData, count * sizeof(float),
                                      cudaMemcpyDeviceToHost, stream()));
    MEMOPT_CUDA_CHECK("exchange copy to host", cudaStreamSynchronize(stream()));
  }

  /// `count` floats from the staging buffer to the device, queued on the
  /// compute stream; stagingFree completes when they have been read.
  void copyIn(float *deviceData, const float *host, int64_t count) {
    MEMOPT_CUDA_CHECK("exchange copy to device",
                      cudaMemcpyAsync(deviceData, host, count * sizeof(float),
                                      cudaMemcpyHostToDevice, stream()));
    MEMOPT_CUDA_CHECK("exchange copy to device",
                      cudaEventRecord(stagingFree, stream()));
  }

  void waitStagingFree() {
    MEMOPT_CUDA_CHECK("exchange staging", cudaEventSynchronize(stagingFree));
  }

  size_t bytes;
  float *staging = nullptr;
  cudaEvent_t stagingFree = nullptr;
};

} // namespace

std::unique_ptr<DeviceExchange> createStagedExchange(size_t stagingBytes) {
  return std::make_unique<StagedExchange>(stagingBytes);
}

} // namespace memopt::rt::cuda
