//===- StepTrace.cpp - Per-kernel events of the generated step ------------===//
//
// The trainer is single-threaded and runs one step at a time, so the state
// of the trace in progress is plain globals.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/StepTrace.h"

#include "memopt/Runtime/Copy.h"
#include "memopt/Runtime/RunReport.h"

namespace memopt::rt {

namespace {

using Clock = std::chrono::steady_clock;

Trace *activeTrace = nullptr;
Clock::time_point traceOrigin;
int64_t tracedStep = 0;
double lastMark = 0;

double sinceOrigin() {
  return std::chrono::duration<double>(Clock::now() - traceOrigin).count();
}

} // namespace

void traceKernel(const char *name, const char *kind) {
  if (!activeTrace)
    return;
  double now = sinceOrigin();
  activeTrace->add(name, kind, lastMark, now - lastMark, tracedStep);
  lastMark = now;
}

void traceCopy(int64_t id, const char *name, const char *kind) {
  Clock::time_point start, end;
  if (!activeTrace || !copyTimes(id, start, end))
    return;
  auto seconds = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  activeTrace->add(name, kind, seconds(start - traceOrigin),
                   seconds(end - start), tracedStep, Trace::kCopyTrack);
}

void startKernelTrace(Trace &trace, Clock::time_point origin, int64_t step) {
  activeTrace = &trace;
  traceOrigin = origin;
  tracedStep = step;
  lastMark = sinceOrigin();
}

void stopKernelTrace() { activeTrace = nullptr; }

} // namespace memopt::rt
