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
/// output channel and one group: its gradients take the direct path.
bool isSingleOutputConv(const Dims &weight, int64_t groups);

void singleOutputConv(ConstTensor input, ConstTensor weight, ConstTensor bias,
                      Tensor output, Hw strides, Pads pads, Hw dilations);
void singleOutputConvBackwardData(ConstTensor gradOutput, ConstTensor weight,
                                  Tensor gradInput, Hw strides, Pads pads,
                                  Hw dilations);
void singleOutputConvBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                    Tensor gradWeight, Hw strides, Pads pads,
                                    Hw dilations);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_SINGLEOUTPUTCONV_H
