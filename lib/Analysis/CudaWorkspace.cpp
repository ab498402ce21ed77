//===- CudaWorkspace.cpp - Convolution workspaces of the CUDA backend -----===//
//
// For the CUDA backend the arena reserves, per convolution, the workspace that
// memopt/Runtime/CUDA/ConvWorkspace.h computes from the shapes; the CUDA
// runtime includes the same header and picks a cuDNN algorithm within it.
// No GPU is needed at compile time. What the CUDA runtime cannot convolve
// (ConvGeometry.h: a rank other than 3 to 5, asymmetric pads, which cuDNN
// cannot take) is rejected here, at the op's location, by the same check
// the runtime runs, rather than by the binary.
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Runtime/CUDA/ConvGeometry.h"
#include "memopt/Runtime/CUDA/ConvWorkspace.h"

using namespace mlir;
using namespace memopt;

namespace {

rt::Dims dims(ArrayRef<int64_t> shape) {
  return rt::Dims(shape.data(), static_cast<int>(shape.size()));
}

/// Every kind of convolution kernel gets the workspace of its forward
/// convolution, after checking that cuDNN can pad it.
class CUDAWorkspacePolicy : public tg::WorkspacePolicy {
public:
  FailureOr<uint64_t>
  convolution(Operation *op, const tg::ConvolutionProblem &p) const override {
    if (const char *why = rt::cuda::convUnsupported(
            static_cast<int>(p.input.size()), dims(p.strides), dims(p.pads),
            dims(p.dilations)))
      return op->emitError(why)
             << " (got rank " << p.input.size() << ", pads ["
             << llvm::make_range(p.pads.begin(), p.pads.end()) << "])";
    // cuDNN's algorithms work in the tensors' own type (half, bf16).
    return rt::cuda::convWorkspaceBytes(
        dims(p.input), dims(p.weight), dims(p.output),
        p.elementType.getIntOrFloatBitWidth() / 8);
  }

  /// The runtime picks a cuDNN algorithm that fits the smaller workspace,
  /// or runs in slices.
  FailureOr<uint64_t>
  leanConvolution(Operation *op,
                  const tg::ConvolutionProblem &p) const override {
    FailureOr<uint64_t> full = convolution(op, p);
    if (failed(full))
      return failure();
    return cudaLeanWorkspaceBytes(*full);
  }
};

} // namespace

const tg::WorkspacePolicy &memopt::cudaWorkspacePolicy() {
  static const CUDAWorkspacePolicy policy;
  return policy;
}

uint64_t memopt::cudaLeanWorkspaceBytes(uint64_t fullBytes) {
  return rt::cuda::convLeanWorkspaceBytes(fullBytes);
}
