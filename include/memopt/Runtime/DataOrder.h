//===- DataOrder.h - The order in which training visits samples -*- C++ -*-===//
//
// Every epoch visits a permutation of the samples in batches; when fewer
// than a batch are left the epoch ends and they are dropped. Without
// shuffling the permutation is the identity (sorted order). With shuffling
// one std::mt19937_64, seeded once with the seed, draws every epoch's
// permutation in turn by Fisher-Yates: for i = n-1 down to 1, swap i with
// j uniform in [0, i], drawn by rejection (r = next() until r >= 2^64 mod
// (i+1), j = r mod (i+1)). The engine and this draw are fully specified, so
// an order depends on the seed only, on every platform.
//
// The state (epoch, position in it, the engine at the start of the epoch)
// goes into checkpoints; restoring it continues the same sequence.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_DATAORDER_H
#define MEMOPT_RUNTIME_DATAORDER_H

#include "memopt/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace memopt::rt {

class DataOrder {
public:
  struct State {
    uint64_t epoch = 0;    // 0-based
    uint64_t position = 0; // samples of the epoch already visited
    std::string engine;    // the engine at the start of the epoch (text)
  };

  DataOrder(size_t numSamples, bool shuffle, uint64_t seed);

  /// The sample indices of the next batch of `batchSize` (<= numSamples).
  const uint32_t *nextBatch(size_t batchSize);

  State state() const;
  /// Continues from `state` (taken from a DataOrder over as many samples).
  Status restore(const State &state);

private:
  void startEpoch();

  bool shuffle;
  std::mt19937_64 engine;
  std::vector<uint32_t> order;
  State current;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_DATAORDER_H
