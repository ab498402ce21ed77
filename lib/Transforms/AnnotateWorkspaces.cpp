//===- AnnotateWorkspaces.cpp - The tg-annotate-workspaces pass ------------===//
//
// The one place that sizes library workspaces (oneDNN at compile time on
// cpu, the cuDNN policy on cuda). Everything later reads the recorded
// `memopt.workspace_bytes` through memopt::workspaceBytes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/Workspace.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/Builders.h"

namespace memopt {
#define GEN_PASS_DEF_ANNOTATEWORKSPACES
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class AnnotateWorkspacesPass
    : public memopt::impl::AnnotateWorkspacesBase<AnnotateWorkspacesPass> {
public:
  using AnnotateWorkspacesBase::AnnotateWorkspacesBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    FailureOr<TargetAttr> target =
        lookupTarget(function, "tg-annotate-workspaces");
    if (failed(target))
      return signalPassFailure();
    WorkspaceTarget backend = target->getBackend() == Backend::cuda
                                  ? WorkspaceTarget::CUDA
                                  : WorkspaceTarget::CPU;
    Builder builder(&getContext());
    WalkResult walk = function.walk([&](Operation *op) {
      if (op == function)
        return WalkResult::advance();
      FailureOr<uint64_t> bytes = queryWorkspaceBytes(op, backend);
      if (failed(bytes))
        return WalkResult::interrupt();
      op->removeAttr(kLeanWorkspaceBytesAttr);
      if (!*bytes) {
        op->removeAttr(kWorkspaceBytesAttr);
        return WalkResult::advance();
      }
      op->setAttr(kWorkspaceBytesAttr,
                  builder.getI64IntegerAttr(static_cast<int64_t>(*bytes)));
      ++numAnnotated;
      numLargest = std::max<uint64_t>(numLargest.getValue(), *bytes);
      if (!lean)
        return WalkResult::advance();
      FailureOr<uint64_t> leanBytes =
          queryWorkspaceBytes(op, backend, /*lean=*/true);
      if (failed(leanBytes))
        return WalkResult::interrupt();
      if (*leanBytes < *bytes) {
        op->setAttr(kLeanWorkspaceBytesAttr, builder.getI64IntegerAttr(
                                                 static_cast<int64_t>(
                                                     *leanBytes)));
        ++numLean;
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // oneDNN sized the scratchpads for this process's threads: the binary
    // must run with as many (Program::threads).
    bool annotated = false;
    function.walk([&](Operation *op) {
      annotated |= op->hasAttr(kWorkspaceBytesAttr);
    });
    if (int threads = workspaceThreads(backend); annotated && threads > 0)
      function->setAttr(kWorkspaceThreadsAttr,
                        builder.getI64IntegerAttr(threads));
    else
      function->removeAttr(kWorkspaceThreadsAttr);
  }
};

} // namespace
