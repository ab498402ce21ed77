//===- Random.h - Counter-based random numbers ------------------*- C++ -*-===//
//
// Dropout needs random numbers that depend only on (run seed, step, op,
// element), never on how many were drawn before: then a resumed run, a
// rematerialized op or another schedule draws exactly the same masks.
// SplitMix64 over such counters gives that. Header-only: the kernels (CPU
// and CUDA, where the element functions run on the device), the trainer and
// the generated steps share it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_RANDOM_H
#define MEMOPT_RUNTIME_RANDOM_H

#include "memopt/Runtime/HostDevice.h"

#include <math.h>
#include <cstdint>

namespace memopt::rt {

/// SplitMix64's output function: a bijective 64-bit mix.
MEMOPT_HOST_DEVICE inline uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The seed of step `step` of a run with --seed `runSeed`: what the trainer
/// passes as the step's Seed argument.
inline int64_t stepSeed(uint64_t runSeed, int64_t step) {
  return static_cast<int64_t>(
      splitMix64(runSeed ^ splitMix64(static_cast<uint64_t>(step))));
}

/// The seed of random stream `stream` (one per dropout op) of a step whose
/// seed is `seed`; the kernels hash it further.
inline uint64_t streamSeed(int64_t seed, uint64_t stream) {
  return splitMix64(static_cast<uint64_t>(seed) ^ splitMix64(stream));
}

/// The seed of the tg.random_uniform whose `stream` attribute is `stream`
/// in a step whose seed is `seed`: streams with the top bit set, apart from
/// the dropouts' (0, 1, ... in op order).
inline uint64_t randomUniformSeed(int64_t seed, uint64_t stream) {
  return streamSeed(seed, stream | (uint64_t(1) << 63));
}

/// Element `index` of tg.random_uniform's kernel, whose seed hashes to
/// `seedHash` (splitMix64 of the seed): low + span * u with u a 24-bit
/// fraction in [0, 1), fused so that both backends round alike.
MEMOPT_HOST_DEVICE inline float uniformElement(uint64_t seedHash,
                                               uint64_t index, float low,
                                               float span) {
  float u = static_cast<float>(splitMix64(seedHash ^ index) >> 40) *
            5.9604644775390625e-8f; // 2^-24
  return fmaf(span, u, low);
}

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_RANDOM_H
