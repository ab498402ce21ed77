//===- Workspace.cpp - Library workspace sizes of tg ops ------------------===//
//
// Each op describes its convolution (tg::KernelOpInterface::
// getWorkspaceBytes); the CPU policy here asks the runtime's oneDNN for the
// scratchpad of that convolution, on the machine that compiles.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#ifdef MEMOPT_HAVE_CPU_RUNTIME
#include "memopt/Runtime/CPU/ConvWorkspace.h"
#include "memopt/Runtime/Device.h"
#include "memopt/Runtime/Kernels.h"
#endif

using namespace mlir;
using namespace memopt;
using Kind = tg::ConvolutionProblem::Kind;

namespace {

#ifdef MEMOPT_HAVE_CPU_RUNTIME

rt::Dims dims(ArrayRef<int64_t> shape) {
  return rt::Dims(shape.data(), static_cast<int>(shape.size()));
}

/// The runtime's entry point for each kind of convolution kernel, with its
/// tensors in the kernel's own order (memopt/Runtime/Kernels.h), in the
/// problem's element type: oneDNN's bf16 primitives have their own blocked
/// copies and scratchpads, and a type oneDNN lacks on this CPU (f16) is
/// computed on f32 copies in the workspace.
class CPUWorkspacePolicy : public tg::WorkspacePolicy {
public:
  FailureOr<uint64_t>
  convolution(Operation *op, const tg::ConvolutionProblem &p) const override {
    FailureOr<rt::ElementType> type = elementType(op, p);
    if (failed(type))
      return failure();
    return defaultBytes(p, *type);
  }

  /// Only a filter gradient has a leaner way on the CPU: in pieces
  /// (memopt/Runtime/CPU/ConvWorkspace.h).
  FailureOr<uint64_t>
  leanConvolution(Operation *op,
                  const tg::ConvolutionProblem &p) const override {
    FailureOr<rt::ElementType> type = elementType(op, p);
    if (failed(type))
      return failure();
    if (p.kind != Kind::BackwardFilter)
      return defaultBytes(p, *type);
    return rt::convBackwardFilterLeanWorkspaceBytes(
        dims(p.output), dims(p.input), dims(p.weight), dims(p.strides),
        dims(p.pads), dims(p.dilations), p.groups, *type);
  }

private:
  static FailureOr<rt::ElementType>
  elementType(Operation *op, const tg::ConvolutionProblem &p) {
    if (p.elementType.isF32())
      return rt::ElementType::F32;
    if (p.elementType.isBF16())
      return rt::ElementType::BF16;
    if (p.elementType.isF16())
      return rt::ElementType::F16;
    return op->emitError("cannot size the convolution workspace of ")
           << p.elementType << " tensors: the CPU runtime convolves f32, "
                               "bf16 and f16";
  }

  static uint64_t defaultBytes(const tg::ConvolutionProblem &p,
                               rt::ElementType type) {
    rt::Dims x = dims(p.input), w = dims(p.weight), y = dims(p.output);
    switch (p.kind) {
    case Kind::Forward:
      return rt::convWorkspaceBytes(x, w, p.hasBias, y, dims(p.strides),
                                      dims(p.pads), dims(p.dilations), p.groups,
                                      type);
    case Kind::BackwardData:
      return rt::convBackwardDataWorkspaceBytes(y, w, x, dims(p.strides),
                                                  dims(p.pads),
                                                  dims(p.dilations), p.groups,
                                                  type);
    case Kind::BackwardFilter:
      return rt::convBackwardFilterWorkspaceBytes(y, x, w, dims(p.strides),
                                                    dims(p.pads),
                                                    dims(p.dilations), p.groups,
                                                    type);
    case Kind::Transposed: // input y, output x
      return rt::convTransposeWorkspaceBytes(
          y, w, p.hasBias, x, dims(p.strides), dims(p.pads), dims(p.dilations),
          dims(p.outputPadding), p.groups, type);
    case Kind::TransposedBackwardFilter: // grad_output x, input y
      return rt::convTransposeBackwardFilterWorkspaceBytes(
          x, y, w, dims(p.strides), dims(p.pads), dims(p.dilations),
          dims(p.outputPadding), p.groups, type);
    }
    llvm_unreachable("unknown convolution kind");
  }
};

#else

class CPUWorkspacePolicy : public tg::WorkspacePolicy {
public:
  FailureOr<uint64_t>
  convolution(Operation *op, const tg::ConvolutionProblem &) const override {
    return op->emitError("cannot size the convolution workspace: memopt was "
                         "built without the CPU runtime (oneDNN)");
  }
};

#endif

} // namespace

const tg::WorkspacePolicy &memopt::cpuWorkspacePolicy() {
  static const CPUWorkspacePolicy policy;
  return policy;
}

int memopt::workspaceThreads(WorkspaceTarget target) {
#ifdef MEMOPT_HAVE_CPU_RUNTIME
  if (target == WorkspaceTarget::CPU)
    return rt::device::threads();
#endif
  return 0;
}

namespace {
/// Asks `policy` for the lean workspaces where an op asks for its
/// workspace.
class LeanView : public tg::WorkspacePolicy {
public:
  explicit LeanView(const tg::WorkspacePolicy &policy) : policy(policy) {}
  FailureOr<uint64_t>
  convolution(Operation *op, const tg::ConvolutionProblem &p) const override {
    return policy.leanConvolution(op, p);
  }

private:
  const tg::WorkspacePolicy &policy;
};
} // namespace

FailureOr<uint64_t> memopt::queryWorkspaceBytes(Operation *op,
                                                WorkspaceTarget target,
                                                bool lean) {
  auto kernel = dyn_cast<tg::KernelOpInterface>(op);
  if (!kernel)
    return uint64_t(0);
  const tg::WorkspacePolicy &policy = target == WorkspaceTarget::CUDA
                                          ? cudaWorkspacePolicy()
                                          : cpuWorkspacePolicy();
  if (lean)
    return kernel.getWorkspaceBytes(LeanView(policy));
  return kernel.getWorkspaceBytes(policy);
}

uint64_t memopt::workspaceBytes(Operation *op) {
  auto bytes = op->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr);
  return bytes ? bytes.getValue().getZExtValue() : 0;
}

uint64_t memopt::leanWorkspaceBytes(Operation *op) {
  auto bytes = op->getAttrOfType<IntegerAttr>(kLeanWorkspaceBytesAttr);
  return bytes ? bytes.getValue().getZExtValue() : workspaceBytes(op);
}
