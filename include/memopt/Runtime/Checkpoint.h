//===- Checkpoint.h - Resumable training state ------------------*- C++ -*-===//
//
// A checkpoint holds every Param, State and OptState value, the step
// number, the data order (epoch, position, shuffle engine), the data set
// options it depends on, and the loss and time of every step so far, so that
// a resumed run ends bit-identical to an uninterrupted one and reports
// every step.
//
// File `D/checkpoint-<step, 10 digits>.mckpt`, little-endian:
//   "MEMOPTCK"  u32 version (3)  u32 0  u64 file size
//   u64 step  u64 samples  u64 batch  u32 rank  u32 ranks  u32 stage
//   u32 stages  u32 replica  u32 replicas  u64 seed  u32 shuffle  u32 tensors
//   u64 epoch  u64 position  u32 n  n bytes: the engine (std::mt19937_64 text)
//   u64 steps  steps x f32 loss  steps x f64 seconds
//   per tensor: u32 n  n bytes: name  u32 role  u32 type  u32 rank
//               rank x i64 dims  u64 bytes  the values
//   u32 CRC-32 (zlib) of everything before it
// It is written through `<file>.tmp` (fsync, rename, fsync of D); then all
// but the two newest checkpoints and any stale `.tmp` are removed, so the
// previous checkpoint survives until the new one is complete.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CHECKPOINT_H
#define MEMOPT_RUNTIME_CHECKPOINT_H

#include "memopt/Runtime/DataOrder.h"
#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/TensorBuffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memopt::rt {

/// The process that writes a checkpoint, in the run's layout: its MPI
/// rank of `ranks`, its pipeline stage of `stages` and its data-parallel
/// replica of `replicas` (with ZeRO, the replica says which shard of the
/// optimizer state it holds). Shards of equal shapes look alike: only this
/// tells a rank's checkpoint from another's.
struct ProcessLayout {
  uint32_t rank = 0, ranks = 1;
  uint32_t stage = 0, stages = 1;
  uint32_t replica = 0, replicas = 1;
  bool operator==(const ProcessLayout &other) const {
    return rank == other.rank && ranks == other.ranks &&
           stage == other.stage && stages == other.stages &&
           replica == other.replica && replicas == other.replicas;
  }
  /// "rank R of N (stage S of T, replica P of Q)".
  std::string describe() const;
};

struct TrainingProgress {
  int64_t step = 0; // steps done
  uint64_t numSamples = 0;
  uint64_t batchSize = 0; // compiled into the program: resume needs the same
  ProcessLayout layout;   // resume needs the same process
  uint64_t seed = 0;
  bool shuffle = true;
  DataOrder::State order;
  std::vector<float> losses;       // of steps 1..step
  std::vector<double> stepSeconds; // of steps 1..step
};

/// Creates `dir` (and its parents) if needed and checks that checkpoints
/// can be written there.
Status prepareCheckpointDirectory(const std::string &dir);

/// Writes the checkpoint of `progress.step` into `dir`; `path` receives its
/// file name.
Status writeCheckpoint(const std::string &dir, const TrainingProgress &progress,
                       const std::vector<TensorBuffer> &buffers,
                       std::string &path);

/// The newest checkpoint in `dir` (empty if none) and the one before it
/// (empty if none), by step number.
Status findCheckpoints(const std::string &dir, std::string &newest,
                       std::string &previous);

/// Reads `path` into `progress` and the buffers, which must be the tensors
/// it was written from (same names, roles, types and shapes, in order).
/// A foreign, truncated or corrupt file (magic, size, CRC) is detected
/// before any value is read.
Status readCheckpoint(const std::string &path, TrainingProgress &progress,
                      const std::vector<TensorBuffer> &buffers);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_CHECKPOINT_H
