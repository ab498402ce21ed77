//===- StepTrace.h - Per-kernel events of the generated step ----*- C++ -*-===//
//
// The C++ that convert-tg-to-emitc generates calls traceKernel after every
// kernel call of the step:
//
//   memopt::rt::conv(input, weight, {}, conv_encoder_conv1, ...);
//   memopt::rt::traceKernel("conv_encoder_conv1", "conv");
//
// While the trainer writes a trace (--trace), each call records one Chrome
// trace event from the previous mark (the step's start or the previous
// kernel's end) to now; otherwise it returns at once, so untraced runs pay
// one branch per kernel.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_STEPTRACE_H
#define MEMOPT_RUNTIME_STEPTRACE_H

#include <chrono>
#include <cstdint>

namespace memopt::rt {

class Trace;

/// Marks the end of one kernel call: `name` (the C++ name of the op's
/// result, after its ONNX node) and `kind` (the tg op, or "copy") must be
/// string literals, since the trace keeps the pointers.
void traceKernel(const char *name, const char *kind);

/// After waitCopy(id) (memopt/Runtime/Copy.h): records copy `id` as an
/// event of its own track ("copies"), from its start to its end on the
/// copy thread, when the backend knows them (the CPU backend); `name` and
/// `kind` ("offload" or "prefetch") must be string literals.
void traceCopy(int64_t id, const char *name, const char *kind);

/// Trainer side: record traceKernel's events into `trace` during step
/// `step`, with times relative to `origin`, until stopKernelTrace.
void startKernelTrace(Trace &trace, std::chrono::steady_clock::time_point origin,
                      int64_t step);
void stopKernelTrace();

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_STEPTRACE_H
