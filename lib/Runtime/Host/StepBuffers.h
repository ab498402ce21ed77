//===- StepBuffers.h - The memory the compiled step runs on -----*- C++ -*-===//
//
// The 64-byte aligned arenas of Program::arenas and one buffer per step
// argument and result, all from a DeviceMemory but the arenas in pinned
// host memory (device::allocatePinnedHost). A Param, State or OptState
// result shares the buffer of the argument of the same name, role, type and
// shape (the step updates it in place); every other result has its own.
//
// When the device memory is not host-addressable (CUDA), the tensors the
// trainer reads or writes (the batch, the loss, the weights and everything
// a checkpoint holds) get a host copy as well: `input`, `target`, `loss`,
// `weights` and `persistent` point to the host copies, and the upload and
// download functions move them. The step number stays in host memory only,
// since the generated step reads it on the host. On the CPU the host copies
// are the buffers themselves and the functions do nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_HOST_STEPBUFFERS_H
#define MEMOPT_LIB_RUNTIME_HOST_STEPBUFFERS_H

#include "memopt/Runtime/DeviceMemory.h"
#include "memopt/Runtime/Program.h"
#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/TensorBuffer.h"

#include <memory>
#include <vector>

namespace memopt::rt::detail {

struct StepBuffers {
  std::vector<void *> arenas;
  /// The arenas in pinned host memory (tg-offload's host pool), allocated
  /// apart from the DeviceMemory so that its peak leaves them out.
  struct PinnedRelease {
    void operator()(void *data) const;
  };
  std::vector<std::unique_ptr<void, PinnedRelease>> pinnedArenas;
  std::vector<void *> args;
  std::vector<void *> results;
  /// For Program::evalStep: the buffers of the Output results, null else.
  std::vector<void *> evalResults;
  /// Param and State arguments: initialized from the ONNX model, written to
  /// --out.
  std::vector<TensorBuffer> weights;
  /// Param, State and OptState arguments: what a checkpoint holds.
  std::vector<TensorBuffer> persistent;
  float *input = nullptr;
  float *target = nullptr;
  int64_t *step = nullptr; // null when the program takes no step number
  int64_t *seed = nullptr; // null when the program takes no random seed
  /// Host copy of the loss scale (fp16), uploaded by uploadLossScale; null
  /// when the program has no loss scaling.
  float *lossScale = nullptr;
  const float *loss = nullptr;
  int64_t batchSize = 0;
  /// Whether the step reads the batch (a pipeline stage without the input
  /// and the target argument does not).
  bool loadsBatch = true;
  /// A pipeline stage's host buffers for the input or target it does not
  /// take (Program::dataInput, dataTarget).
  std::vector<std::vector<float>> batchScratch;

  /// Copy the batch (input and target) to the device.
  void uploadBatch();
  /// Copy `*lossScale` to the device (the step's kernels read it there).
  void uploadLossScale();
  /// Copy the loss of the last step to `*loss`.
  void downloadLoss();
  /// Copy the persistent tensors (weights, optimizer state) to the device,
  /// after they were initialized or restored through `persistent`.
  void uploadPersistent();
  /// Copy the persistent tensors to the host, before they are written.
  void downloadPersistent();

  /// A host copy and the device buffer it mirrors.
  struct Mirror {
    void *host;
    void *device;
    size_t bytes;
  };
  Mirror inputMirror{}, targetMirror{}, lossMirror{}, lossScaleMirror{};
  std::vector<Mirror> persistentMirrors;
  std::vector<std::unique_ptr<unsigned char[]>> hostCopies;
  int64_t hostStep = 0;
  int64_t hostSeed = 0;
};

/// Checks that the trainer can drive `program` (one float Input and Target
/// with the same batch size, a scalar float loss, at most one scalar int64
/// Step and Seed, ranks within kMaxRank) and allocates its buffers from
/// `memory`.
Status allocateStepBuffers(const Program &program, DeviceMemory &memory,
                           StepBuffers &buffers);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_HOST_STEPBUFFERS_H
