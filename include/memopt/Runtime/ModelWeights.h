//===- ModelWeights.h - Initial and trained values in ONNX form -*- C++ -*-===//
//
// A training binary is code only: it reads its initial weights from an ONNX
// file at start, by default the one memopt-compile writes beside it
// (`BIN.weights.onnx`, the model the binary was compiled from), or the file
// `--weights` names. The initializers of that model are the initial values
// of the Param and State arguments (matched by name); they must have the
// element types and shapes the program was compiled for (its Param and
// State specs are the manifest the file is checked against), and a file
// that differs is refused naming the first tensor that does. `--out` writes
// the same model with those initializers replaced by the trained values,
// so that the result runs in any ONNX runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_MODELWEIGHTS_H
#define MEMOPT_RUNTIME_MODELWEIGHTS_H

#include "memopt/Runtime/Program.h"
#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/TensorBuffer.h"

#include <string>
#include <vector>

namespace memopt::rt {

/// The suffix memopt-compile appends to the binary's name (or, with -c, to
/// the object's name without its extension) for the file of initial
/// weights it writes beside it.
inline constexpr const char *kWeightsFileSuffix = ".weights.onnx";

/// The largest model file read (protobuf parses at most 2 GiB; memopt-compile
/// writes external data into its weights file).
inline constexpr size_t kMaxModelFileBytes = 0x7fffffff;

/// The file the initial weights come from: `weights` (the --weights flag)
/// when given, else `program.weightsFile`, which a relative name resolves
/// against the directory of the running executable (/proc/self/exe, with
/// symbolic links followed).
std::string initialWeightsPath(const Program &program,
                               const std::string &weights);

/// Fills each buffer from the initializer of its spec's name in the ONNX
/// model file `path` (float32 from raw_data or float_data; int64 from
/// raw_data or int64_data). Fails with one line naming `path`, the cause
/// and the fix: a missing, unreadable or oversized file, one that is not
/// an ONNX model, or the first buffer whose initializer is missing, holds
/// external data, or has another element type, shape or value count than
/// its spec.
Status loadInitialValues(const std::string &path,
                         const std::vector<TensorBuffer> &buffers);

/// Writes the model of file `modelPath` to `path` (atomically) with the
/// initializer of each buffer's name replaced by the buffer's value, as
/// raw_data; fails as loadInitialValues does when the file no longer holds
/// those initializers.
Status writeTrainedModel(const std::string &modelPath,
                         const std::vector<TensorBuffer> &buffers,
                         const std::string &path);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_MODELWEIGHTS_H
