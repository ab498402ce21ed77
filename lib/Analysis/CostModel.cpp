//===- CostModel.cpp - FLOPs, bytes and time of tg ops --------------------===//
//
// Every op that runs a kernel gives its FLOPs and bytes through
// tg::KernelOpInterface (the formulas are with the ops, in
// lib/Dialect/TG/IR/TGKernelFacts.cpp, and in docs/cost-model.md); this
// file turns them into a roofline time on a device profile and sums them
// over the step.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/CostModel.h"

#include "memopt/Analysis/Workspace.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using namespace memopt;

/// The roofline seconds of `kernel`, without the launch.
static double rooflineSeconds(tg::KernelOpInterface kernel,
                              const DeviceProfile &device) {
  Operation *op = kernel.getOperation();
  auto resultType = op->getNumResults()
                        ? dyn_cast<ShapedType>(op->getResult(0).getType())
                        : ShapedType();
  Type elementType = resultType ? resultType.getElementType()
                                : Float32Type::get(op->getContext());
  double computeSeconds = static_cast<double>(kernel.getFlops()) /
                          device.peakFlops(elementType);
  double memorySeconds =
      static_cast<double>(kernel.getBytesRead() + kernel.getBytesWritten()) /
      device.memoryBandwidth;
  return std::max(computeSeconds, memorySeconds);
}

OpCost CostModel::cost(Operation *op) const {
  OpCost cost;
  auto kernel = dyn_cast<tg::KernelOpInterface>(op);
  if (!kernel)
    return cost;
  cost.flops = kernel.getFlops();
  cost.bytesRead = kernel.getBytesRead();
  cost.bytesWritten = kernel.getBytesWritten();
  cost.workspaceBytes = workspace ? workspace(op) : 0;
  cost.seconds = rooflineSeconds(kernel, device) + device.launchSeconds;
  if (op->hasAttr(kLeanWorkspaceAttr))
    cost.seconds += leanSeconds(op);
  return cost;
}

double CostModel::leanSeconds(Operation *op) const {
  auto kernel = dyn_cast<tg::KernelOpInterface>(op);
  if (!kernel)
    return 0;
  return (std::max(device.leanSlowdown, 1.0) - 1) *
         rooflineSeconds(kernel, device);
}

StepCost memopt::estimateStepCost(
    func::FuncOp step, const CostModel &model, const StepPhases &phases,
    function_ref<void(Operation *, const OpCost &, StepPhase)> each) {
  StepCost total;
  // The ops in a kernel's region (a fused elementwise body) are part of
  // that kernel, which counts their FLOPs; they run no kernel of their own.
  step.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa<tg::KernelOpInterface>(op))
      return WalkResult::advance();
    OpCost cost = model.cost(op);
    StepPhase phase = phases.phase(op);
    unsigned index = static_cast<unsigned>(phase);
    if (isRecomputation(op)) {
      total.recomputeFlops += cost.flops;
      total.recomputeSeconds += cost.seconds;
    } else {
      total.flops[index] += cost.flops;
      total.seconds[index] += cost.seconds;
    }
    total.bytes += cost.bytes();
    if (op->hasAttr(kLeanWorkspaceAttr))
      total.leanSeconds += model.leanSeconds(op);
    if (each)
      each(op, cost, phase);
    return WalkResult::skip();
  });
  return total;
}
