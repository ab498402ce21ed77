//===- CrashBoundary.h - A crash of a tool as a one-line error ---*- C++ -*-===//
//
// MLIR 22's parser crashes on some input it should reject
// (docs/known-upstream-issues.md). ParserInput.h refuses what a scan of the
// text can see; the rest (e.g. `array<!t: 1>` with `!t = index`) crashes
// inside MLIR. The tools run their work in an llvm::CrashRecoveryContext,
// which turns a signal on the main thread (the parser's) into a one-line
// error and exit code 1 instead of a core dump.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_COMMON_CRASHBOUNDARY_H
#define MEMOPT_TOOLS_COMMON_CRASHBOUNDARY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace memopt::tools {

/// The exit code of `run()`; if it crashes with a signal, prints
/// "<toolName>: error: ..." (one line) and returns 1. `argv0` is the
/// tool's program path.
inline int runCrashSafe(const char *argv0, llvm::StringRef toolName,
                        llvm::function_ref<int()> run) {
  // LLVM's own handlers first, so that the recovery context's, installed
  // after them, see a signal first: InitLLVM (mlirTranslateMain's) then
  // registers nothing, and a crash in the context prints no stack dump. A
  // crash elsewhere (another thread) still reaches LLVM's stack dump.
  llvm::sys::PrintStackTraceOnErrorSignal(argv0);
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  int result = 1;
  if (context.RunSafely([&] { result = run(); }))
    return result;
  // RetCode is 128 + the signal; below 128 the run called exit() (e.g.
  // report_fatal_error, which has printed its message).
  int signal = context.RetCode - 128;
  if (signal <= 0)
    return context.RetCode;
  llvm::errs() << toolName << ": error: crashed (" << ::strsignal(signal)
               << ") on this input: MLIR 22's parser crashes on some invalid "
                  "input (docs/known-upstream-issues.md); if it is none of "
                  "those, please report the input as a memopt bug\n";
  return 1;
}

} // namespace memopt::tools

#endif // MEMOPT_TOOLS_COMMON_CRASHBOUNDARY_H
