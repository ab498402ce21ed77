//===- Random.h - Counter-based random numbers ------------------*- C++ -*-===//
//
// Dropout needs random numbers that depend only on (run seed, step, op,
// element), never on how many were drawn before: then a resumed run, a
// rematerialized op or another schedule draws exactly the same masks.
// SplitMix64 over such counters gives that. Header-only: the kernels, the
// trainer and the generated steps share it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_RANDOM_H
#define MEMOPT_RUNTIME_RANDOM_H

#include <cstdint>

namespace memopt::rt {

/// SplitMix64's output function: a bijective 64-bit mix.
inline uint64_t splitMix64(uint64_t x) {
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

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_RANDOM_H
