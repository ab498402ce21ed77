//===- ConvWorkspace.h - Convolution workspaces of the CUDA backend -*- C++ -*-===//
//
// cuDNN's convolution algorithms need scratch memory whose size depends on
// the algorithm, the GPU and the cuDNN version, none of which is known when
// memopt-compile plans the arena (it may run on a machine without a GPU).
// The plan therefore reserves a fixed workspace per convolution, computed
// from the shapes alone by this function, and the CUDA runtime picks the
// fastest deterministic algorithm (cuDNN's heuristics) that fits in it,
// or runs the convolution in slices when none does.
// Both sides include this header, so they agree on the size by
// construction.
//
// The size is that of the convolution's largest tensor in its element
// type (f32, or half/bf16 under mixed precision), at least
// kMinConvWorkspaceBytes: the scratch never more than doubles the memory
// the op touches, yet leaves room for the GEMM and Winograd algorithms that
// cuDNN prefers for the 3x3 convolutions of U-Nets. The plan places each
// workspace in the arena only while its op runs.
//
// The size is a guess at cuDNN's needs, not a bound on them: a filter
// gradient can want more (ALGO_1 asked 1.34x the largest tensor for the
// ResNet-34 U-Net at 512x512). The runtime then splits the convolution
// into slices of the batch, bands of rows and slices of the channels that
// fit (ConvSlices.h, ConvBands.h) rather than use more than planned, so
// the measured peak stays the predicted one.
//
// Header-only and free of CUDA and MLIR: the code generator and the
// runtime both include it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUDA_CONVWORKSPACE_H
#define MEMOPT_RUNTIME_CUDA_CONVWORKSPACE_H

#include "memopt/Runtime/Tensor.h"

#include <algorithm>
#include <cstddef>

namespace memopt::rt::cuda {

/// The smallest workspace the plan reserves for a convolution.
inline constexpr size_t kMinConvWorkspaceBytes = size_t(4) << 20;

/// The workspace reserved for a convolution (any direction) whose forward
/// input, weight and output have the shapes `input`, `weight`, `output`.
inline size_t convWorkspaceBytes(const Dims &input, const Dims &weight,
                                 const Dims &output,
                                 size_t elementBytes = sizeof(float)) {
  size_t largest = static_cast<size_t>(
      std::max({input.product(), weight.product(), output.product()}));
  return std::max(largest * elementBytes, kMinConvWorkspaceBytes);
}

/// The lean workspace of a convolution whose full workspace
/// (convWorkspaceBytes) is `fullBytes`: an eighth of it, at least
/// kMinConvWorkspaceBytes. tg-remat may plan a convolution with it where
/// the full one would exceed the budget (--lean-workspaces); the runtime
/// then runs a deterministic algorithm that needs less, or slices of an
/// eighth of the batch or bands of an eighth of the rows, which still
/// fill the GPU where the full workspace was large. Never more than
/// `fullBytes`.
inline size_t convLeanWorkspaceBytes(size_t fullBytes) {
  return std::min(fullBytes, std::max(fullBytes / 8, kMinConvWorkspaceBytes));
}

} // namespace memopt::rt::cuda

#endif // MEMOPT_RUNTIME_CUDA_CONVWORKSPACE_H
