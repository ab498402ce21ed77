//===- Toolchain.cpp - The compilers memopt-compile runs ------------------===//

#include "Toolchain.h"

#include "CompileConfig.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace memopt;
using namespace memopt::tool;

std::vector<ToolCommand>
tool::buildCommands(bool cuda, bool compileOnly, bool multiProcess,
                    llvm::StringRef source, llvm::StringRef object,
                    llvm::StringRef binary) {
  // The step compiles to an object (-c: the output), which the C++
  // compiler then links with the runtime. The generated C++ only declares
  // views and calls the runtime's kernels, which are optimized in the
  // prebuilt runtime libraries: -O0 compiles it in time linear in its
  // (bounded) functions, several times faster than -O1 (densenet121: 9 s
  // against 65 s of CPU), and changes no result. nvcc's -O is the host
  // code's level too; the generated CUDA kernels are optimized whatever it
  // is (device optimization is on without -G). Without FMA contraction
  // they round every operation as the CPU backend and the runtime's own
  // kernels do.
  std::vector<ToolCommand> commands;
  std::string include = std::string("-I") + config::kRuntimeIncludeDir;
  if (cuda) {
    std::vector<std::string> nvcc = {config::kNvcc, "-O0", "-std=c++17",
                                     "--fmad=false", include};
    for (const char *const *flag = config::kCudaGencode; *flag; ++flag)
      nvcc.push_back(*flag);
    nvcc.insert(nvcc.end(), {"-c", source.str(), "-o", object.str()});
    commands.push_back({"nvcc", std::move(nvcc)});
  } else {
    commands.push_back(
        {"compile", {config::kCxxCompiler, "-O0", "-std=c++17", include, "-c",
                     source.str(), "-o", object.str()}});
  }
  if (compileOnly)
    return commands;
  std::vector<std::string> link = {config::kCxxCompiler, object.str(), "-o",
                                   binary.str()};
  // A multi-process main (stageMain) and MPI come first: they call the
  // trainer.
  if (multiProcess)
    for (const char *const *item = cuda ? config::kCudaExchangeLinkItems
                                        : config::kMpiLinkItems;
         *item; ++item)
      link.push_back(*item);
  for (const char *const *item = cuda ? config::kCudaRuntimeLinkItems
                                      : config::kRuntimeLinkItems;
       *item; ++item)
    link.push_back(*item);
  commands.push_back({"link", std::move(link)});
  return commands;
}

bool tool::runCommand(llvm::ArrayRef<std::string> command,
                      llvm::StringRef logPath, std::string &output) {
  llvm::SmallVector<llvm::StringRef> args(command.begin(), command.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath,
                                                logPath};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(command.front(), args, std::nullopt,
                                         redirects, 0, 0, &message);
  if (auto log = llvm::MemoryBuffer::getFile(logPath))
    output = (*log)->getBuffer().str();
  if (!message.empty())
    output += message + "\n";
  return status == 0;
}
