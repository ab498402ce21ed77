//===- TGToMBuf.cpp - The convert-tg-to-mbuf pass -------------------------===//
//
// Reads the plan tg-plan-memory recorded (readStepArenaPlan), removes the
// record and walks the planned op order once. Every value gets its view where its
// first writer runs: a step result computed in its buffer the caller's
// result buffer (mbuf.result), an operand computed in its slice of a concat
// a subview of the concat's result view (which is then created early), any
// other value a view of arena 0 at its planned offset. Each op becomes an
// mbuf.kernel whose body is the op itself on the tensors of its inputs.
// The host copies of offloaded tensors (tg-offload) are views of arena 1,
// in pinned host memory, one after the other; their copies become
// mbuf.copy_async, their waits mbuf.wait of the copy's token.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/TGToMBuf/TGToMBuf.h"

#include "memopt/Analysis/StepMemory.h"
#include "memopt/Dialect/MBuf/IR/MBufOps.h"
#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"
#include "memopt/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace memopt {
#define GEN_PASS_DEF_CONVERTTGTOMBUF
#include "memopt/Conversion/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

/// Where a value lives inside the result of the concat that reads it.
struct Slice {
  Value concatResult;
  uint64_t offset;
};

class StepConverter {
public:
  StepConverter(func::FuncOp step, const StepArenaPlan &plan,
                bool constantsInArena)
      : step(step), plan(plan.plan), workspaces(plan.workspaces),
        constantsInArena(constantsInArena),
        resultBuffers(resultBufferPlacements(step)) {}

  LogicalResult run();

private:
  FailureOr<mbuf::ViewType> viewType(Type type, Location loc) const;
  /// The view of `value`, created at the builder's point if it has none.
  FailureOr<Value> viewOf(OpBuilder &builder, Value value);
  LogicalResult convertOp(OpBuilder &builder, Operation &op);
  /// The device of the step's arena: its pipeline stage (tg-partition's
  /// `memopt.stage`), else 0.
  int64_t stageIndex() const {
    StageAttr stage = getDecision<StageAttr>(step);
    return stage ? stage.getIndex() : 0;
  }

  func::FuncOp step;
  const ArenaPlan &plan;
  const DenseMap<Operation *, uint64_t> &workspaces;
  bool constantsInArena;
  DenseMap<Value, unsigned> resultBuffers;
  DenseMap<Value, Slice> slices;
  DenseMap<Value, uint64_t> constantOffsets;
  IRMapping views;
  Value arena;
  /// tg-offload's host copies: the pinned host arena and their offsets.
  Value hostArena;
  DenseMap<Value, uint64_t> hostOffsets;
  /// The token of the copy into a host copy or a prefetched tensor.
  DenseMap<Value, Value> copyTokens;
};

FailureOr<mbuf::ViewType> StepConverter::viewType(Type type,
                                                  Location loc) const {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << "convert-tg-to-mbuf: expected a statically shaped "
                             "tensor, not "
                          << type;
  auto diag = [&] { return emitError(loc) << "convert-tg-to-mbuf: "; };
  if (failed(mbuf::ViewType::verify(diag, tensor.getShape(),
                                    tensor.getElementType(),
                                    mbuf::MemorySpace::Device)))
    return failure();
  return mbuf::ViewType::get(tensor.getShape(), tensor.getElementType());
}

FailureOr<Value> StepConverter::viewOf(OpBuilder &builder, Value value) {
  if (Value view = views.lookupOrNull(value))
    return view;
  Location loc = value.getLoc();
  FailureOr<mbuf::ViewType> type = viewType(value.getType(), loc);
  if (failed(type))
    return failure();
  auto result = dyn_cast<OpResult>(value);
  Value view;
  if (!result) {
    return emitError(loc) << "convert-tg-to-mbuf: a value of another block";
  } else if (auto it = resultBuffers.find(value); it != resultBuffers.end()) {
    view = mbuf::ResultOp::create(builder, loc, *type, it->second);
  } else if (auto it = slices.find(value); it != slices.end()) {
    FailureOr<Value> whole = viewOf(builder, it->second.concatResult);
    if (failed(whole))
      return failure();
    view = mbuf::SubviewOp::create(builder, loc, *type, *whole,
                                   it->second.offset);
  } else if (std::optional<uint64_t> offset = plan.offset(value)) {
    view = mbuf::ViewOp::create(builder, loc, *type, arena, *offset);
  } else if (auto it = constantOffsets.find(value);
             it != constantOffsets.end()) {
    view = mbuf::ViewOp::create(builder, loc, *type, arena, it->second);
  } else {
    return emitError(loc) << "convert-tg-to-mbuf: result #"
                          << result.getResultNumber() << " of '"
                          << result.getOwner()->getName()
                          << "' has no place in the memory plan";
  }
  views.map(value, view);
  return view;
}

LogicalResult StepConverter::convertOp(OpBuilder &builder, Operation &op) {
  Location loc = op.getLoc();
  auto constant = dyn_cast<tg::ConstantOp>(op);
  if (constant && !constantsInArena) {
    FailureOr<mbuf::ViewType> type = viewType(constant.getType(), loc);
    if (failed(type))
      return failure();
    views.map(constant.getOutput(),
              mbuf::ConstantOp::create(builder, loc, *type,
                                       constant.getValue()));
    return success();
  }

  // A transfer between pipeline stages (tg-partition): the arena's device
  // is the stage, the peer's device its peer stage; the transfer completes
  // before the next op, so its view's lifetime is the plan's.
  auto token = mbuf::TokenType::get(op.getContext());
  if (auto send = dyn_cast<tg::SendOp>(op)) {
    Value view = views.lookupOrNull(send.getInput());
    if (!view)
      return op.emitError("convert-tg-to-mbuf: an operand is defined in another "
                          "block");
    mbuf::WaitOp::create(builder, loc,
                         ValueRange{mbuf::SendOp::create(builder, loc, token, view,
                                                         send.getPeer(),
                                                         send.getTag())});
    return success();
  }
  if (auto recv = dyn_cast<tg::RecvOp>(op)) {
    FailureOr<Value> view = viewOf(builder, recv.getOutput());
    if (failed(view))
      return failure();
    mbuf::WaitOp::create(builder, loc,
                         ValueRange{mbuf::RecvOp::create(builder, loc, token, *view,
                                                         recv.getPeer(),
                                                         recv.getTag())});
    return success();
  }

  // Offload and prefetch (tg-offload): asynchronous copies whose waits
  // are where the tg ops stand, so the views live as the plan says.
  if (auto start = dyn_cast<tg::OffloadStartOp>(op)) {
    Value source = views.lookupOrNull(start.getInput());
    FailureOr<mbuf::ViewType> type = viewType(start.getType(), loc);
    if (!source || failed(type))
      return op.emitError("convert-tg-to-mbuf: an offloaded tensor without a "
                          "view");
    auto hostType = mbuf::ViewType::get(type->getShape(),
                                        type->getElementType(),
                                        mbuf::MemorySpace::PinnedHost);
    Value host = mbuf::ViewOp::create(builder, loc, hostType, hostArena,
                                      hostOffsets.lookup(start.getHost()));
    views.map(start.getHost(), host);
    copyTokens[start.getHost()] =
        mbuf::CopyAsyncOp::create(builder, loc, token, source, host);
    return success();
  }
  if (auto prefetch = dyn_cast<tg::PrefetchStartOp>(op)) {
    Value host = views.lookupOrNull(prefetch.getHost());
    FailureOr<Value> view = viewOf(builder, prefetch.getOutput());
    if (!host || failed(view))
      return op.emitError("convert-tg-to-mbuf: a prefetch without its views");
    copyTokens[prefetch.getOutput()] =
        mbuf::CopyAsyncOp::create(builder, loc, token, host, *view);
    return success();
  }
  if (isa<tg::OffloadWaitOp, tg::PrefetchWaitOp>(op)) {
    Value copied = isa<tg::OffloadWaitOp>(op) ? op.getOperand(1)
                                              : op.getOperand(0);
    Value copyToken = copyTokens.lookup(copied);
    if (!copyToken)
      return op.emitError("convert-tg-to-mbuf: a wait before its copy");
    mbuf::WaitOp::create(builder, loc, ValueRange{copyToken});
    return success();
  }

  SmallVector<Value> ins, outs;
  for (Value operand : op.getOperands()) {
    Value view = views.lookupOrNull(operand);
    if (!view)
      return op.emitError("convert-tg-to-mbuf: an operand is defined in another "
                          "block");
    ins.push_back(view);
  }
  for (Value result : op.getResults()) {
    FailureOr<Value> view = viewOf(builder, result);
    if (failed(view))
      return failure();
    outs.push_back(*view);
  }
  // Tied inputs: written over in place, or computed in their slice.
  SmallVector<int64_t> tied(op.getNumOperands(), -1);
  for (OpResult result : op.getResults())
    if (std::optional<unsigned> operand = plan.inPlaceOperand(result))
      tied[*operand] = result.getResultNumber();
  for (unsigned k : plan.slicedOperands(&op))
    tied[k] = 0;
  Value workspace;
  if (std::optional<uint64_t> offset = plan.workspaceOffset(&op)) {
    auto type = mbuf::ViewType::get(
        {static_cast<int64_t>(workspaces.lookup(&op))}, builder.getI8Type());
    workspace = mbuf::ViewOp::create(builder, loc, type, arena, *offset);
  }
  auto kernel = mbuf::KernelOp::create(
      builder, loc, ins, outs, workspace,
      llvm::any_of(tied, [](int64_t k) { return k >= 0; })
          ? builder.getDenseI64ArrayAttr(tied)
          : DenseI64ArrayAttr());
  Block *body = builder.createBlock(&kernel.getBody());
  IRMapping mapping;
  for (Value operand : op.getOperands())
    mapping.map(operand, body->addArgument(operand.getType(), loc));
  Operation *computation = builder.clone(op, mapping);
  mbuf::YieldOp::create(builder, loc, computation->getResults());
  builder.setInsertionPointAfter(kernel);
  return success();
}

LogicalResult StepConverter::run() {
  Block &oldBody = step.getBody().front();
  for (Operation &op : oldBody.without_terminator())
    if (ArrayRef<unsigned> sliced = plan.slicedOperands(&op); !sliced.empty()) {
      std::optional<SmallVector<uint64_t>> offsets = concatOperandOffsets(&op);
      if (!offsets)
        return op.emitError("convert-tg-to-mbuf: sliced operands need a "
                            "tg.concat of contiguous slabs");
      for (unsigned k : sliced)
        slices[op.getOperand(k)] = {op.getResult(0), (*offsets)[k]};
    }
  uint64_t arenaBytes = plan.totalBytes();
  if (constantsInArena)
    for (auto constant : oldBody.getOps<tg::ConstantOp>()) {
      constantOffsets[constant.getOutput()] = arenaBytes;
      arenaBytes += llvm::alignTo(tensorBytes(constant.getOutput()),
                                  ArenaPlan::kAlignment);
    }

  // The new body goes before the old one, which is erased once the step is
  // converted (or the new one is, on failure).
  Block *newBody = new Block();
  step.getBody().push_front(newBody);
  SmallVector<Type> argTypes, resultTypes;
  for (BlockArgument arg : oldBody.getArguments()) {
    FailureOr<mbuf::ViewType> type = viewType(arg.getType(), arg.getLoc());
    if (failed(type)) {
      newBody->erase();
      return failure();
    }
    argTypes.push_back(*type);
    views.map(arg, newBody->addArgument(*type, arg.getLoc()));
  }
  for (Type type : step.getResultTypes()) {
    FailureOr<mbuf::ViewType> view = viewType(type, step.getLoc());
    if (failed(view)) {
      newBody->erase();
      return failure();
    }
    resultTypes.push_back(*view);
  }
  // mbuf.result checks its type against the function's.
  auto oldType = step.getFunctionType();
  step.setFunctionType(
      FunctionType::get(step.getContext(), argTypes, resultTypes));
  auto restore = [&] {
    newBody->dropAllDefinedValueUses();
    newBody->dropAllReferences();
    newBody->erase();
    step.setFunctionType(oldType);
    return failure();
  };

  OpBuilder builder = OpBuilder::atBlockEnd(newBody);
  arena = mbuf::ArenaOp::create(
      builder, step.getLoc(),
      mbuf::ArenaType::get(step.getContext(), mbuf::MemorySpace::Device),
      /*index=*/0, arenaBytes, /*device=*/stageIndex());
  uint64_t hostBytes = 0;
  for (auto start : oldBody.getOps<tg::OffloadStartOp>()) {
    hostOffsets[start.getHost()] = hostBytes;
    hostBytes += llvm::alignTo(tensorBytes(start.getHost()),
                               ArenaPlan::kAlignment);
  }
  if (hostBytes)
    hostArena = mbuf::ArenaOp::create(
        builder, step.getLoc(),
        mbuf::ArenaType::get(step.getContext(),
                             mbuf::MemorySpace::PinnedHost),
        /*index=*/1, hostBytes, /*device=*/stageIndex());
  for (Operation &op : oldBody.without_terminator())
    if (failed(convertOp(builder, op)))
      return restore();
  Operation *terminator = oldBody.getTerminator();
  SmallVector<Value> results;
  for (Value value : terminator->getOperands()) {
    Value view = views.lookupOrNull(value);
    if (!view)
      return restore();
    results.push_back(view);
  }
  func::ReturnOp::create(builder, terminator->getLoc(), results);

  oldBody.dropAllDefinedValueUses();
  oldBody.dropAllReferences();
  oldBody.erase();
  return success();
}

} // namespace

LogicalResult memopt::convertTGToMBuf(func::FuncOp step,
                                      const StepArenaPlan &plan,
                                      bool constantsInArena) {
  return StepConverter(step, plan, constantsInArena).run();
}

namespace {

class ConvertTGToMBufPass
    : public memopt::impl::ConvertTGToMBufBase<ConvertTGToMBufPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    FailureOr<TargetAttr> target;
    if (failed(checkOneBlock(function, "convert-tg-to-mbuf")) ||
        failed(target = lookupTarget(function, "convert-tg-to-mbuf")))
      return signalPassFailure();
    FailureOr<StepArenaPlan> plan =
        readStepArenaPlan(function, "convert-tg-to-mbuf");
    if (failed(plan))
      return signalPassFailure();
    // The kernels clone the ops: without the record, which the views and
    // kernels now state.
    eraseStepArenaPlan(function);
    // A device backend's kernels cannot read the program's static data.
    if (failed(convertTGToMBuf(function, *plan,
                               /*constantsInArena=*/target->getBackend() ==
                                   Backend::cuda)))
      return signalPassFailure();
    function.walk([&](mbuf::KernelOp) { ++numKernels; });
  }
};

} // namespace
