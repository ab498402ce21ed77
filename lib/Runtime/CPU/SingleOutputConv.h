//===- SingleOutputConv.h - Gradients of one-output-channel convs -*- C++ -*-===//
//
// Direct, workspace-free forward and gradients of a convolution with one output channel
// and one group (see SingleOutputConv.cpp for why). Private to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_SINGLEOUTPUTCONV_H
#define MEMOPT_LIB_RUNTIME_CPU_SINGLEOUTPUTCONV_H

#include "memopt/Runtime/Kernels.h"

namespace memopt::rt::detail {

/// Whether a convolution with `weight` (O, I, kH, kW) and `groups` has one
/// output channel and one group: its gradients take the direct path. The
/// direct path is 2-D; 1-D and 3-D convolutions take oneDNN's.
bool isSingleOutputConv(const Dims &weight, int64_t groups);

void singleOutputConv(ConstTensor input, ConstTensor weight, ConstTensor bias,
                      Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations);
void singleOutputConvBackwardData(ConstTensor gradOutput, ConstTensor weight,
                                  Tensor gradInput, const Dims &strides, const Dims &pads,
                                  const Dims &dilations);
void singleOutputConvBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                    Tensor gradWeight, const Dims &strides, const Dims &pads,
                                    const Dims &dilations);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_SINGLEOUTPUTCONV_H
