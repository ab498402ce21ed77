//===- ExternalData.h - Initializers stored beside the model file ---------===//
//
// PyTorch's exporter stores every larger initializer in a file beside the
// model (`m.onnx.data`), naming it in the tensor's external_data entries.
// memopt reads those values into the model once, so that the rest of the
// importer and the training binary (which reads the weights file that
// memopt-compile writes from it) see one
// self-contained ModelProto.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ONNX_EXTERNALDATA_H
#define MEMOPT_LIB_TARGET_ONNX_EXTERNALDATA_H

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace memopt::onnx_import {

/// Replaces the external data of every initializer (and Constant node
/// tensor) by raw_data read from the files it names, which must lie in
/// `modelDirectory` (no absolute paths, nothing that leaves it). Sets
/// `changed` when anything was read. Fails on a missing or short file, a
/// size that disagrees with the tensor's shape, or more than 2 GiB in all
/// (the size protobuf can hold).
bool internalizeExternalData(onnx::ModelProto &model,
                             llvm::StringRef modelDirectory, bool &changed,
                             std::string &error);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_EXTERNALDATA_H
