//===- CudaWorkspace.cpp - Convolution workspaces of the CUDA backend -----===//
//
// For the CUDA backend the arena reserves, per convolution, the workspace that
// memopt/Runtime/CUDA/ConvWorkspace.h computes from the shapes; the CUDA
// runtime includes the same header and picks a cuDNN algorithm within it.
// No GPU is needed at compile time. cuDNN pads symmetrically, so an
// asymmetric pad is rejected here, at the op's location, rather than by
// the binary, and so is a 1-D or 3-D convolution: the CUDA runtime's
// descriptors, bands and slices are 2-D.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
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
    if (p.input.size() != 4)
      return op->emitError("the CUDA backend convolves 2-D tensors only, got "
                           "a ")
             << p.input.size() - 2
             << "-D convolution; compile 1-D and 3-D models with "
                "--target=cpu";
    ArrayRef<int64_t> pads = p.pads;
    if (pads[0] != pads[2] || pads[1] != pads[3])
      return op->emitError("the CUDA backend needs symmetric convolution "
                           "padding (cuDNN), got pads [")
             << llvm::make_range(pads.begin(), pads.end())
             << "]; pad the input explicitly or use --target=cpu";
    // cuDNN's algorithms work in the tensors' own type (half, bf16).
    return rt::cuda::convWorkspaceBytes(
        dims(p.input), dims(p.weight), dims(p.output),
        p.elementType.getIntOrFloatBitWidth() / 8);
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
