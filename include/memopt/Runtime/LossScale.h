//===- LossScale.h - fp16 dynamic loss scaling ------------------*- C++ -*-===//
//
// The scale of an fp16 step's loss (tg-loss-scale), kept by the trainer:
// 2^16 to start, halved after a step whose gradients overflowed (its
// updates were skipped), doubled after 2000 clean steps in a row, as
// torch.cuda.amp.GradScaler does. Its state is four int64 values that a
// checkpoint holds (as the tensor "memopt.loss_scale"), so that a resumed
// run continues with the same scale, streak and optimizer step.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_LOSSSCALE_H
#define MEMOPT_RUNTIME_LOSSSCALE_H

#include <cstdint>

namespace memopt::rt {

class LossScaler {
public:
  static constexpr double kInitialScale = 65536.0;
  static constexpr int64_t kGrowthInterval = 2000;

  explicit LossScaler(double initialScale = kInitialScale);

  /// The scale of the next step's loss.
  double scale() const;
  /// The optimizer's step number for the next step: 1 + the updates
  /// applied so far (a skipped step does not advance Adam's bias
  /// correction, as GradScaler skips optimizer.step()).
  int64_t optimizerStep() const { return state[kApplied] + 1; }
  int64_t skippedSteps() const { return state[kSkipped]; }
  /// After a step: halves the scale when its updates were skipped, doubles
  /// it after kGrowthInterval clean steps in a row.
  void update(bool skipped);

  /// The checkpointed state: scale (the bits of a double), clean streak,
  /// applied updates, skipped steps.
  int64_t *data() { return state; }
  static constexpr int kStateSize = 4;

private:
  enum { kScaleBits, kClean, kApplied, kSkipped };
  int64_t state[kStateSize] = {};
  void setScale(double scale);
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_LOSSSCALE_H
