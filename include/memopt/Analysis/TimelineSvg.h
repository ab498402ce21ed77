//===- TimelineSvg.h - The memory timeline as an SVG image ------*- C++ -*-===//
//
// Draws a MemoryTimeline for people: live bytes over the ops of the step,
// stacked by category, the forward/backward/optimizer phases shaded, the
// peak marked and labelled with its size and op, the planned peak, budget
// and device capacity as lines, a legend, the model and the device. No
// Python or plotting library is needed; any browser shows the file.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_TIMELINESVG_H
#define MEMOPT_ANALYSIS_TIMELINESVG_H

#include "memopt/Analysis/MemoryTimeline.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace memopt {

struct TimelineLabels {
  std::string model;  // the model's name
  std::string device; // describeDeviceProfile() of the profile
  uint64_t deviceMemoryBytes = 0;
  /// What the runtime allocates with the static plan (persistent buffers
  /// plus the arena), when known.
  std::optional<uint64_t> plannedPeakBytes;
  std::optional<uint64_t> budgetBytes;
};

void writeTimelineSvg(llvm::raw_ostream &os, const MemoryTimeline &timeline,
                      const TimelineLabels &labels);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_TIMELINESVG_H
