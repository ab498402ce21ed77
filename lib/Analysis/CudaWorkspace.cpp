//===- CudaWorkspace.cpp - Convolution workspaces of the CUDA backend -----===//
//
// For the CUDA backend the arena reserves, per convolution, the workspace that
// memopt/Runtime/CUDA/ConvWorkspace.h computes from the shapes; the CUDA
// runtime includes the same header and picks a cuDNN algorithm within it.
// No GPU is needed at compile time. cuDNN pads symmetrically, so an
// asymmetric pad is rejected here, at the op's location, rather than by
// the binary.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Runtime/CUDA/ConvWorkspace.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;

namespace {

rt::Dims dimsOf(Value value) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  return rt::Dims(shape.data(), static_cast<int>(shape.size()));
}

/// The workspace of a convolution with forward input `x`, weight `w` and
/// forward output `y`, after checking that cuDNN can pad it.
FailureOr<uint64_t> workspace(Operation *op, ArrayRef<int64_t> pads, Value x,
                              Value w, Value y) {
  if (pads[0] != pads[2] || pads[1] != pads[3])
    return op->emitError("the CUDA backend needs symmetric convolution "
                         "padding (cuDNN), got pads [")
           << llvm::make_range(pads.begin(), pads.end())
           << "]; pad the input explicitly or use --target=cpu";
  return rt::cuda::convWorkspaceBytes(dimsOf(x), dimsOf(w), dimsOf(y));
}

} // namespace

FailureOr<uint64_t> memopt::cudaWorkspaceBytes(Operation *op) {
  return llvm::TypeSwitch<Operation *, FailureOr<uint64_t>>(op)
      .Case([](tg::Conv2DOp conv) {
        return workspace(conv, conv.getPads(), conv.getInput(),
                         conv.getWeight(), conv.getOutput());
      })
      .Case([](tg::Conv2DBackwardDataOp conv) {
        return workspace(conv, conv.getPads(), conv.getGradInput(),
                         conv.getWeight(), conv.getGradOutput());
      })
      .Case([](tg::Conv2DBackwardFilterOp conv) {
        return workspace(conv, conv.getPads(), conv.getInput(),
                         conv.getGradWeight(), conv.getGradOutput());
      })
      .Case([](tg::ConvTranspose2DOp conv) {
        return workspace(conv, conv.getPads(), conv.getOutput(),
                         conv.getWeight(), conv.getInput());
      })
      .Case([](tg::ConvTranspose2DBackwardFilterOp conv) {
        return workspace(conv, conv.getPads(), conv.getGradOutput(),
                         conv.getGradWeight(), conv.getInput());
      })
      .Default([](Operation *) { return uint64_t(0); });
}
