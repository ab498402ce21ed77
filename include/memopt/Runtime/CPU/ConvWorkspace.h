//===- ConvWorkspace.h - Lean convolution workspaces of the CPU backend -*- C++ -*-===//
//
// oneDNN's filter gradient keeps per-thread copies of the whole weight
// gradient (a deep layer on a small image) or blocked copies of its input
// and output gradient (a top layer on a large one): on the networks of
// segmentation_models_pytorch at 64x64 one such scratchpad sets the step's
// peak. Under --workspaces=lean tg-remat may give such an op its lean
// workspace instead: the CPU runtime then computes the gradient in a few
// pieces (row bands or groups of output channels, ConvBands.h), slower and
// summed in another order, in the size this query returns. The runtime
// runs the lean pieces exactly when the plan gave the op less than its
// default workspace (`memopt::rt::plannedWorkspaceBytes`).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CPU_CONVWORKSPACE_H
#define MEMOPT_RUNTIME_CPU_CONVWORKSPACE_H

#include "memopt/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>

namespace memopt::rt {

/// The lean workspace of tg.conv_backward_filter (the arguments of
/// convBackwardFilterWorkspaceBytes): at most the default one, which it
/// equals where no split needs less.
size_t convBackwardFilterLeanWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight,
    const Dims &strides, const Dims &pads, const Dims &dilations,
    int64_t groups, ElementType type = ElementType::F32);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_CPU_CONVWORKSPACE_H
