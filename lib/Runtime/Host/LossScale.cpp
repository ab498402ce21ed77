//===- LossScale.cpp - fp16 dynamic loss scaling ---------------------------===//

#include "memopt/Runtime/LossScale.h"

#include <cstring>

using namespace memopt::rt;

LossScaler::LossScaler(double initialScale) { setScale(initialScale); }

double LossScaler::scale() const {
  double scale;
  std::memcpy(&scale, &state[kScaleBits], sizeof scale);
  return scale;
}

void LossScaler::setScale(double scale) {
  std::memcpy(&state[kScaleBits], &scale, sizeof scale);
}

void LossScaler::update(bool skipped) {
  if (skipped) {
    ++state[kSkipped];
    state[kClean] = 0;
    setScale(scale() * 0.5);
    return;
  }
  ++state[kApplied];
  if (++state[kClean] == kGrowthInterval) {
    state[kClean] = 0;
    setScale(scale() * 2.0);
  }
}
