//===- Workspace.cpp - Library workspace sizes of tg ops ------------------===//

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#ifdef MEMOPT_HAVE_CPU_RUNTIME
#include "memopt/Runtime/Kernels.h"
#endif

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;

#ifdef MEMOPT_HAVE_CPU_RUNTIME

namespace {

rt::Dims dimsOf(Value value) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  return rt::Dims(shape.data(), static_cast<int>(shape.size()));
}

rt::Hw hw(ArrayRef<int64_t> values) { return {values[0], values[1]}; }

rt::Pads pads(ArrayRef<int64_t> values) {
  return {values[0], values[1], values[2], values[3]};
}

} // namespace

FailureOr<uint64_t> memopt::queryCPUWorkspaceBytes(Operation *op) {
  return llvm::TypeSwitch<Operation *, uint64_t>(op)
      .Case([](tg::Conv2DOp conv) {
        return rt::conv2dWorkspaceBytes(
            dimsOf(conv.getInput()), dimsOf(conv.getWeight()),
            static_cast<bool>(conv.getBias()), dimsOf(conv.getOutput()),
            hw(conv.getStrides()), pads(conv.getPads()),
            hw(conv.getDilations()), conv.getGroups());
      })
      .Case([](tg::Conv2DBackwardDataOp conv) {
        return rt::conv2dBackwardDataWorkspaceBytes(
            dimsOf(conv.getGradOutput()), dimsOf(conv.getWeight()),
            dimsOf(conv.getGradInput()), hw(conv.getStrides()),
            pads(conv.getPads()), hw(conv.getDilations()), conv.getGroups());
      })
      .Case([](tg::Conv2DBackwardFilterOp conv) {
        return rt::conv2dBackwardFilterWorkspaceBytes(
            dimsOf(conv.getGradOutput()), dimsOf(conv.getInput()),
            dimsOf(conv.getGradWeight()), hw(conv.getStrides()),
            pads(conv.getPads()), hw(conv.getDilations()), conv.getGroups());
      })
      .Case([](tg::ConvTranspose2DOp conv) {
        return rt::convTranspose2dWorkspaceBytes(
            dimsOf(conv.getInput()), dimsOf(conv.getWeight()),
            static_cast<bool>(conv.getBias()), dimsOf(conv.getOutput()),
            hw(conv.getStrides()), pads(conv.getPads()),
            hw(conv.getDilations()), hw(conv.getOutputPadding()),
            conv.getGroups());
      })
      .Case([](tg::ConvTranspose2DBackwardFilterOp conv) {
        return rt::convTranspose2dBackwardFilterWorkspaceBytes(
            dimsOf(conv.getGradOutput()), dimsOf(conv.getInput()),
            dimsOf(conv.getGradWeight()), hw(conv.getStrides()),
            pads(conv.getPads()), hw(conv.getDilations()),
            hw(conv.getOutputPadding()), conv.getGroups());
      })
      .Default([](Operation *) { return 0; });
}

#else

FailureOr<uint64_t> memopt::queryCPUWorkspaceBytes(Operation *op) {
  if (!isa<tg::Conv2DOp, tg::Conv2DBackwardDataOp, tg::Conv2DBackwardFilterOp,
           tg::ConvTranspose2DOp, tg::ConvTranspose2DBackwardFilterOp>(op))
    return 0;
  return op->emitError("cannot size the convolution workspace: memopt was "
                       "built without the CPU runtime (oneDNN)");
}

#endif

FailureOr<uint64_t> memopt::queryWorkspaceBytes(Operation *op,
                                                WorkspaceTarget target) {
  return target == WorkspaceTarget::CUDA ? cudaWorkspaceBytes(op)
                                         : queryCPUWorkspaceBytes(op);
}

uint64_t memopt::workspaceBytes(Operation *op) {
  auto bytes = op->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr);
  return bytes ? bytes.getValue().getZExtValue() : 0;
}
