//===- Toolchain.h - The compilers memopt-compile runs ----------*- C++ -*-===//
//
// What memopt-compile does after the lowering: the commands that compile
// the generated C++ (or CUDA) and link it with the memopt runtime this
// build has, and running them. The binary is code only: its weights are in
// the weights file written beside it (memopt/Runtime/ModelWeights.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMOPTCOMPILE_TOOLCHAIN_H
#define MEMOPT_TOOLS_MEMOPTCOMPILE_TOOLCHAIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace memopt::tool {

/// One compiler run: its phase in the compile report and its command line.
struct ToolCommand {
  std::string phase;
  std::vector<std::string> arguments;
};

/// The commands that build the step: `source` (C++, or CUDA with `cuda`)
/// compiled to `object`, then, unless `compileOnly`, linked with the
/// runtime (with a multi-process main and the exchange when
/// `multiProcess`) into `binary`.
std::vector<ToolCommand> buildCommands(bool cuda, bool compileOnly,
                                       bool multiProcess,
                                       llvm::StringRef source,
                                       llvm::StringRef object,
                                       llvm::StringRef binary);

/// Runs `command` with its output captured in `logPath`; false when it
/// fails, with its output (and why it could not run) in `output`.
bool runCommand(llvm::ArrayRef<std::string> command, llvm::StringRef logPath,
                std::string &output);

} // namespace memopt::tool

#endif // MEMOPT_TOOLS_MEMOPTCOMPILE_TOOLCHAIN_H
