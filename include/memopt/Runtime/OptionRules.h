//===- OptionRules.h - Option values shared by compile and run time -*- C++ -*-===//
//
// A value that memopt-compile accepts must not be one that the training
// binary refuses, or the reverse: both sides validate through these
// functions (header-only, so that the tool does not link the trainer).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_OPTIONRULES_H
#define MEMOPT_RUNTIME_OPTIONRULES_H

#include <cmath>

namespace memopt::rt {

/// --lr of memopt-compile and of the binary: 0 would train nothing, and a
/// negative, infinite or NaN rate diverges at the first step.
inline bool isValidLearningRate(double lr) {
  return std::isfinite(lr) && lr > 0.0;
}
inline constexpr const char kLearningRateRule[] = "a finite number > 0";

/// The graph inputs a training binary can feed: one, from the --data
/// inputs (the targets are the loss's second operand, not a graph input).
inline constexpr int kTrainableGraphInputs = 1;

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_OPTIONRULES_H
