//===- ModelWeights.h - Initial and trained values in ONNX form -*- C++ -*-===//
//
// The program embeds the ONNX model it was compiled from. Its initializers
// are the initial values of the Param and State arguments (matched by
// name); `--out` writes the same model with those initializers replaced by
// the trained values, so that the result runs in any ONNX runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_MODELWEIGHTS_H
#define MEMOPT_RUNTIME_MODELWEIGHTS_H

#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/TensorBuffer.h"

#include <cstddef>
#include <string>
#include <vector>

namespace memopt::rt {

/// Fills each buffer from the initializer of its spec's name in the
/// serialized ModelProto `model` (float32 from raw_data or float_data, int64
/// from raw_data or int64_data). Fails on an unparsable model, a missing
/// initializer, external data, or a type or shape other than the spec's.
Status loadInitialValues(const unsigned char *model, size_t modelBytes,
                         const std::vector<TensorBuffer> &buffers);

/// Writes `model` to `path` (atomically) with the initializer of each
/// buffer's name replaced by the buffer's value, as raw_data.
Status writeTrainedModel(const unsigned char *model, size_t modelBytes,
                         const std::vector<TensorBuffer> &buffers,
                         const std::string &path);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_MODELWEIGHTS_H
