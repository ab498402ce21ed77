//===- TorchExport.h - What torch.export's metadata says about a model ----===//
//
// PyTorch's default ONNX exporter (torch.export, "dynamo") records the
// exported program's signature (which graph inputs are the module's
// parameters and buffers, by state_dict name) and, per node, the module and
// FX node it came from. Its ONNX optimizer then merges initializers of equal
// values (the InstanceNorm scales of a fresh network become one), folds
// parameters into constants and fuses BatchNorm into convolutions: each
// would make memopt train a different model than `model.train()` does.
// These functions read that metadata to untie what was merged, under the
// user's names, and to refuse with the export fix what cannot be restored.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ONNX_TORCHEXPORT_H
#define MEMOPT_LIB_TARGET_ONNX_TORCHEXPORT_H

#include "memopt/Target/ONNX/ImportONNX.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

namespace memopt::onnx_import {

/// The metadata_props of a node, which ONNX 1.12 (IR version 8) does not
/// know: read from the protobuf's unknown fields.
std::map<std::string, std::string> nodeMetadata(const onnx::NodeProto &node);

/// The parameters and buffers of a torch.export signature, by state_dict
/// name (the initializer names), and the placeholders naming them in FX.
struct ExportSignature {
  std::map<std::string, std::string> parameters; // placeholder -> target
  std::map<std::string, std::string> buffers;    // placeholder -> target
  bool empty() const { return parameters.empty() && buffers.empty(); }
};

/// The signature that torch.export recorded in the graph's metadata, or an
/// empty one (TorchScript exports and other producers).
ExportSignature readExportSignature(const onnx::GraphProto &graph);

/// Unties initializers that the exporter's optimizer merged (restoring the
/// parameter and buffer names the FX nodes name), gives the other readers of
/// a parameter their own constant copy, and fails, naming the export fix,
/// where parameters were folded or fused away. Fills `constants` with the
/// float initializers that are not the module's parameters or buffers (the
/// optimizer lifts constants into initializers: they must not be trained)
/// and records the decisions in `summary`. Sets `changed` when the
/// initializers changed.
bool reconcileWithSignature(onnx::ModelProto &model,
                            const ExportSignature &signature,
                            std::set<std::string> &constants,
                            ONNXImportSummary &summary, bool &changed,
                            std::string &error);

/// Records initializers that feed the weights of several nodes in a file
/// without a torch.export signature: TorchScript exports share one only
/// where the module shares the parameter, so they stay tied, reported.
void reportSharedInitializers(const onnx::GraphProto &graph,
                              ONNXImportSummary &summary);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_TORCHEXPORT_H
