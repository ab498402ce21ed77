//===- OpsetAdapters.h - Newer ONNX files down to what ONNX 1.12 reads ----===//
//
// Today's PyTorch writes IR version 10 and opsets 18 and newer; the ONNX
// library memopt links (Debian's 1.12) checks and infers only up to IR 8 and
// opset 17, and its version converter cannot go down. These adapters do
// memopt's own down-conversion: every operator whose semantics changed after
// opset 17 is rewritten to its opset-17 form or refused by name, the
// operators added after 17 that memopt trains are expanded into opset-17
// ops, and element types that IR 8 lacks are refused.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ONNX_OPSETADAPTERS_H
#define MEMOPT_LIB_TARGET_ONNX_OPSETADAPTERS_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace memopt::onnx_import {

/// The opset and IR version that the linked ONNX library checks.
constexpr int64_t kLibraryOpset = 17;
constexpr int64_t kLibraryIRVersion = 8;
/// The newest opset whose changes the adapters know (ONNX 1.23).
constexpr int64_t kNewestKnownOpset = 28;

/// Rewrites a model of opset 18 to kNewestKnownOpset (and IR version 9 or
/// 10) into opset kLibraryOpset and IR version kLibraryIRVersion, in place.
/// Models at opset 17 or older with IR version <= 8 are left as they are.
bool adaptToLibraryOpset(onnx::ModelProto &model, std::string &error);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_OPSETADAPTERS_H
