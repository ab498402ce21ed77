//===- TGInterfaces.h - Per-op facts of the tg dialect ----------*- C++ -*-===//
//
// The op interfaces of TGInterfaces.td and the types their methods take.
// The workspace of a convolution depends on the runtime of the target, which
// the dialect does not link: an op describes its convolution
// (ConvolutionProblem) and a WorkspacePolicy, implemented next to the
// runtime's sizing code (lib/Analysis/Workspace.cpp, CudaWorkspace.cpp),
// answers.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGINTERFACES_H
#define MEMOPT_DIALECT_TG_IR_TGINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace memopt {

/// The bytes of a ranked, statically shaped tensor type (elements x
/// element size); 0 for anything else.
uint64_t tensorBytes(mlir::Type type);

namespace tg {

/// A 2-D convolution kernel, described by the forward convolution it
/// belongs to: `input` (N x C x H x W) convolved with `weight`
/// (O x C/groups x kH x kW) gives `output`. A data or filter gradient is the
/// same problem with another kind; a transposed convolution is the data
/// gradient of the convolution from its output to its input.
struct ConvolutionProblem {
  enum class Kind {
    Forward,                  // tg.conv
    BackwardData,             // tg.conv_backward_data
    BackwardFilter,           // tg.conv_backward_filter
    Transposed,               // tg.conv_transpose
    TransposedBackwardFilter, // tg.conv_transpose_backward_filter
  };
  Kind kind;
  llvm::ArrayRef<int64_t> input, weight, output;
  bool hasBias;
  llvm::ArrayRef<int64_t> strides, pads, dilations;
  llvm::ArrayRef<int64_t> outputPadding; // Transposed* only
  int64_t groups;
  /// The element type of the tensors (f32, or bf16/f16 under tg-amp): the
  /// libraries' blocked copies and algorithms depend on it.
  mlir::Type elementType;
};

/// How a target's runtime sizes the scratch memory of its kernels.
class WorkspacePolicy {
public:
  virtual ~WorkspacePolicy();
  /// The workspace of the convolution kernel `op`; a failure is reported at
  /// `op`.
  virtual mlir::FailureOr<uint64_t>
  convolution(mlir::Operation *op, const ConvolutionProblem &problem) const = 0;
  /// The lean workspace of the convolution kernel `op`, which the runtime
  /// computes in slower pieces (tg-remat's choice under --workspaces=lean):
  /// at most convolution()'s, which it is where the runtime has no leaner
  /// way.
  virtual mlir::FailureOr<uint64_t>
  leanConvolution(mlir::Operation *op,
                  const ConvolutionProblem &problem) const {
    return convolution(op, problem);
  }
};

namespace detail {
/// The default of KernelOpInterface::getInPlaceOperands: for an op with the
/// Elementwise and SameOperandsAndResultType traits, every operand of the
/// result's type; nothing otherwise.
llvm::SmallVector<unsigned, 2> sameTypeElementwiseOperands(mlir::Operation *op,
                                                           unsigned result);

/// The in-place operands of a binary elementwise op: both, unless one of
/// them broadcasts (the kernel would overwrite elements it reads again).
llvm::SmallVector<unsigned, 2> nonBroadcastingOperands(mlir::Operation *op);

/// The FLOPs of an op that does `perElement` operations per element of its
/// first result or its first operand, whichever is larger (a loss reduces
/// its prediction to a scalar, the gradient of a loss expands one).
uint64_t perElementFlops(mlir::Operation *op, uint64_t perElement);
} // namespace detail

} // namespace tg
} // namespace memopt

#include "memopt/Dialect/TG/IR/TGInterfaces.h.inc"

#endif // MEMOPT_DIALECT_TG_IR_TGINTERFACES_H
