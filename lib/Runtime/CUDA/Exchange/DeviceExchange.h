//===- DeviceExchange.h - The CUDA backend's exchanges ---------*- C++ -*-===//
//
// Transfer.h on device memory has two implementations, chosen at run time
// (Exchange.h): NcclExchange (NCCL on a communication stream) and
// StagedExchange (MPI through a pinned host staging buffer). Both keep the
// step's order on the compute stream (cuda::stream()): what follows a call
// there sees its result, what precedes it is in the sent tensor, and no
// call synchronizes the whole device. Private to MemoptRuntimeCUDAExchange.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_EXCHANGE_DEVICEEXCHANGE_H
#define MEMOPT_LIB_RUNTIME_CUDA_EXCHANGE_DEVICEEXCHANGE_H

#include "memopt/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace memopt::rt::cuda {

class DeviceExchange {
public:
  virtual ~DeviceExchange() = default;
  /// Transfer.h's sendTensor / receiveTensor (peers on the stage
  /// communicator), allReduceMean and allGatherParts (on the replica
  /// communicator), on device tensors.
  virtual void send(ConstTensor view, int64_t peer, int64_t tag) = 0;
  virtual void receive(Tensor view, int64_t peer, int64_t tag) = 0;
  virtual void allReduceMean(ConstTensor input, Tensor output) = 0;
  virtual void allGatherParts(ConstTensor part, Tensor whole) = 0;
  /// Bytes outside the arena: device memory the library allocated for its
  /// own buffers, and pinned host memory.
  virtual size_t commDeviceBytes() const = 0;
  virtual size_t stagingHostBytes() const = 0;
};

/// MPI through a pinned host buffer of `stagingBytes` (the program's
/// largest exchanged tensor), allocated here once.
std::unique_ptr<DeviceExchange> createStagedExchange(size_t stagingBytes);

/// NCCL communicators for the stages and the replicas of this rank, set up
/// over MPI on `device`; a call that makes no progress for
/// `timeoutSeconds` ends every process (a watchdog thread). Defined only
/// where NCCL was found (MEMOPT_HAVE_NCCL).
std::unique_ptr<DeviceExchange> createNcclExchange(int device,
                                                   double timeoutSeconds);

/// Ends the run with a message naming `what` unless `view` holds float32
/// (the device exchanges move float32 tensors only).
void requireFloat32(ConstTensor view, const char *what);

} // namespace memopt::rt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_EXCHANGE_DEVICEEXCHANGE_H
