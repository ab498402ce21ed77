//===- TimelineJson.h - The memory timeline as JSON -------------*- C++ -*-===//
//
// Writes a MemoryTimeline for tools: the same numbers the SVG draws, one
// entry per op of the schedule (its op, ONNX node, phase and live bytes
// per category), so that a script can find every point near the peak, not
// only the peak the compile report names (a plan whose top points lie
// within a few MB of each other is bounded by all of them).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_TIMELINEJSON_H
#define MEMOPT_ANALYSIS_TIMELINEJSON_H

#include "memopt/Analysis/TimelineSvg.h"

#include "llvm/Support/raw_ostream.h"

namespace memopt {

/// Writes `timeline` with `labels` as one JSON object (docs/user-guide.md,
/// "Memory timeline", lists its fields).
void writeTimelineJson(llvm::raw_ostream &os, const MemoryTimeline &timeline,
                       const TimelineLabels &labels);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_TIMELINEJSON_H
