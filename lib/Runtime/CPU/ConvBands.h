//===- ConvBands.h - Filter gradients in bands ------------------*- C++ -*-===//
//
// oneDNN 2.6's bf16 filter gradient keeps transposed copies of its whole
// input and output gradient per thread: for the 3x3 convolutions of a U-Net
// decoder at 512 x 512 a 50 MB scratchpad on two threads, which is the peak
// of the mixed-precision step (docs/passes/amp.md), and for the 3x3x3
// convolutions of a 3-D U-Net's top level as much per volume. The filter
// gradient is a sum over the output's positions, so it can be computed in
// bands of the outermost spatial axis (rows of an image, slabs of planes
// of a volume, segments of a 1-D signal): each band's gradient by oneDNN
// (the band's part of the input, with the padding only where the band
// meets the tensor's edge) into an f32 buffer, summed into an f32
// accumulator in band order, rounded once to the result's type. The
// scratchpad and the blocked copies shrink with the band.
//
// The band count depends on the shapes, the type and oneDNN's workspace
// for the whole problem only, so that the workspace tg-annotate-workspaces
// records at compile time is the one the kernel uses. Only low-precision
// (bf16, f16) filter gradients are banded by default: the f32 ones stay
// bit-identical.
//
// A lean workspace (tg-remat's choice under --workspaces=lean, any type)
// also splits a weight-heavy problem into groups of output channels: a deep
// layer on a small image, where oneDNN's scratchpad is its threads' copies
// of the whole weight gradient, and each group's gradient is a disjoint
// slice of the result. The planner asks leanFilterGradientBands at compile
// time; the kernel runs it when the plan gave the op less than the default
// workspace (StepSupport.h's plannedWorkspaceBytes).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_CONVBANDS_H
#define MEMOPT_LIB_RUNTIME_CPU_CONVBANDS_H

#include "memopt/Runtime/Kernels.h"

#include <cstddef>
#include <cstdint>

namespace memopt::rt::detail {

/// A tg.conv_backward_filter, its shapes checked by the caller.
struct FilterGradientProblem {
  Dims gradOutput, input, gradWeight;
  Dims strides, pads, dilations;
  int64_t groups;
  ElementType type;
};

/// How a filter gradient is computed, and its workspace.
struct FilterGradientBands {
  /// The pieces (row bands times channel groups); 1: not split (the whole
  /// problem in one oneDNN primitive).
  int64_t count = 1;
  /// Output rows (indices of the outermost spatial axis) per band; the
  /// last band may have fewer.
  int64_t rows = 0;
  /// Output channels per group (groups == 1 only); the last group may have
  /// fewer. Every channel in one group when not split by channels.
  int64_t channels = 0;
  /// The result is f32: the pieces add into it directly, there is no
  /// accumulator in the workspace.
  bool intoResult = false;
  /// Whether each band is converted to f32 copies first (oneDNN has no
  /// primitive for the type on this CPU: f16, or bf16 without AVX-512).
  bool converted = false;
  /// The parts of the workspace: the scratchpad shared by every band's
  /// primitives at offset 0, then the largest band's blocked copies, then
  /// the f32 accumulator (not intoResult), then (converted) the f32 copies
  /// of a band.
  size_t scratchpadBytes = 0, innerBytes = 0;
  size_t workspaceBytes = 0;
};

/// The bands of `problem`, whose unbanded workspace is `wholeBytes`
/// (returned as workspaceBytes when it is not banded). A low-precision
/// problem whose workspace exceeds its input's bytes, and whose input has
/// at least 16 elements per weight, is split into as many bands as bring
/// the workspace down to about the input's bytes (the input is live
/// anyway), if that makes it smaller.
FilterGradientBands filterGradientBands(const FilterGradientProblem &problem,
                                        size_t wholeBytes);

/// The lean way to compute `problem`, whose default workspace is
/// `defaultBytes` (filterGradientBands'): the split with the smallest
/// workspace among a few row bands (activation-heavy problems) or output
/// channel groups (weight-heavy ones); `count` 1 and `defaultBytes` when
/// no split is smaller.
FilterGradientBands leanFilterGradientBands(const FilterGradientProblem &problem,
                                            size_t defaultBytes);

/// The filter gradient of `problem` in `bands` (count > 1).
void bandedFilterGradient(const FilterGradientProblem &problem,
                          const FilterGradientBands &bands,
                          ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, void *workspace);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_CONVBANDS_H
