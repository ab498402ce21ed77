//===- MBufOps.cpp - Operations of mbuf -----------------------------------===//

#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "memopt/Runtime/Program.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace memopt::mbuf;

#define GET_OP_CLASSES
#include "memopt/Dialect/MBuf/IR/MBufOps.cpp.inc"

Value memopt::mbuf::rootView(Value view) {
  while (auto subview = view.getDefiningOp<SubviewOp>())
    view = subview.getSource();
  return view;
}

std::optional<ArenaPlace> memopt::mbuf::arenaPlace(Value view) {
  // Offsets are non-negative int64 (ODS checks them); their sum over a chain
  // of subviews not yet verified may overflow.
  std::optional<int64_t> offset = 0;
  while (auto subview = view.getDefiningOp<SubviewOp>()) {
    if (offset)
      offset = llvm::checkedAdd(*offset,
                                static_cast<int64_t>(subview.getOffset()));
    view = subview.getSource();
  }
  auto viewOp = view.getDefiningOp<ViewOp>();
  if (!viewOp || !offset)
    return std::nullopt;
  auto arena = viewOp.getArena().getDefiningOp<ArenaOp>();
  offset =
      llvm::checkedAdd(*offset, static_cast<int64_t>(viewOp.getOffset()));
  if (!arena || !offset)
    return std::nullopt;
  return ArenaPlace{arena, *offset};
}

uint64_t memopt::mbuf::endOfBytes(uint64_t offset, int64_t bytes) {
  return offset + static_cast<uint64_t>(bytes);
}

/// Fails with a diagnostic when device number `device` (an arena's, a
/// transfer's peer) is beyond what the runtime holds (an int).
static LogicalResult verifyDevice(Operation *op, StringRef what,
                                  uint64_t device) {
  if (device <= static_cast<uint64_t>(memopt::rt::kMaxDevice))
    return success();
  return op->emitOpError() << what << " " << device
                           << " is out of range: devices are numbered 0 to "
                           << memopt::rt::kMaxDevice;
}

/// Fails with a diagnostic when `token` (of an asynchronous op) is never
/// waited for: its views' liveness would have no end.
static LogicalResult verifyAwaited(Operation *op, Value token) {
  for (Operation *user : token.getUsers())
    if (isa<WaitOp>(user))
      return success();
  return op->emitOpError("its token is never awaited: add an mbuf.wait "
                         "where the transfer must be complete");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult ArenaOp::verify() {
  // Reported at the second definition.
  for (Operation *op = (*this)->getPrevNode(); op; op = op->getPrevNode())
    if (auto other = dyn_cast<ArenaOp>(op);
        other && other.getIndex() == getIndex())
      return emitOpError("arena ")
             << getIndex() << " is defined twice in the same block";
  if (getIndex() > static_cast<uint64_t>(memopt::rt::kMaxArenaIndex))
    return emitOpError("arena index ")
           << getIndex() << " is out of range: arenas are numbered 0 to "
           << memopt::rt::kMaxArenaIndex;
  if (failed(verifyDevice(*this, "device", getDevice())))
    return failure();
  return verifyArenaLiveness(*this);
}

LogicalResult ViewOp::verify() {
  ViewType type = getView().getType();
  if (type.getSpace() != getArena().getType().getSpace())
    return emitOpError("the view's memory space (")
           << stringifyMemorySpace(type.getSpace())
           << ") differs from its arena's ("
           << stringifyMemorySpace(getArena().getType().getSpace()) << ")";
  if (getOffset() % MBufDialect::kViewAlignment != 0)
    return emitOpError("offset ") << getOffset() << " is not a multiple of "
                                  << MBufDialect::kViewAlignment << " bytes";
  if (auto arena = getArena().getDefiningOp<ArenaOp>()) {
    uint64_t end = endOfBytes(getOffset(), type.getSizeInBytes());
    if (end > arena.getSize())
      return emitOpError("bytes [")
             << getOffset() << ", " << end << ") exceed arena "
             << arena.getIndex() << " of " << arena.getSize() << " bytes";
  }
  return success();
}

LogicalResult SubviewOp::verify() {
  ViewType source = getSource().getType(), type = getView().getType();
  if (source.getElementType() != type.getElementType() ||
      source.getSpace() != type.getSpace())
    return emitOpError("a subview has the element type and memory space of "
                       "its source");
  int64_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (static_cast<int64_t>(getOffset()) % elementBytes != 0)
    return emitOpError("offset ")
           << getOffset() << " is not a multiple of the element size";
  uint64_t end = endOfBytes(getOffset(), type.getSizeInBytes());
  if (end > static_cast<uint64_t>(source.getSizeInBytes()))
    return emitOpError("bytes [")
           << getOffset() << ", " << end << ") exceed the "
           << source.getSizeInBytes() << " bytes of the source view";
  return success();
}

LogicalResult ResultOp::verify() {
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  if (!function)
    return emitOpError("must be inside a function");
  ArrayRef<Type> results = function.getResultTypes();
  if (getIndex() >= results.size())
    return emitOpError("the function has no result #") << getIndex();
  if (results[getIndex()] != getView().getType())
    return emitOpError("type ")
           << getView().getType() << " differs from the function's result #"
           << getIndex() << ", " << results[getIndex()];
  return success();
}

LogicalResult ConstantOp::verify() {
  auto shaped = cast<ShapedType>(getValue().getType());
  ViewType type = getView().getType();
  if (shaped.getShape() != type.getShape() ||
      shaped.getElementType() != type.getElementType())
    return emitOpError("value of type ")
           << shaped << " does not fit view " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

Operation *KernelOp::getComputation() { return &getBody().front().front(); }

std::optional<unsigned> KernelOp::getTiedOutput(unsigned index) {
  std::optional<ArrayRef<int64_t>> tied = getTiedOperands();
  if (!tied || index >= tied->size() || (*tied)[index] < 0)
    return std::nullopt;
  return static_cast<unsigned>((*tied)[index]);
}

/// Whether `input` of a kernel may share memory with its output `output`:
/// the same bytes, or a subview of it.
static bool isTiedPlacement(Value input, Value output) {
  if (input.getType() == output.getType()) {
    std::optional<ArenaPlace> in = arenaPlace(input), out = arenaPlace(output);
    if (in && out && in->arena == out->arena && in->offset == out->offset)
      return true;
  }
  for (Value view = input; auto subview = view.getDefiningOp<SubviewOp>();) {
    view = subview.getSource();
    if (view == output)
      return true;
  }
  return false;
}

LogicalResult KernelOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getIns().size())
    return emitOpError("the body takes ")
           << body.getNumArguments() << " arguments for " << getIns().size()
           << " inputs";
  for (auto [index, arg, in] : llvm::enumerate(body.getArguments(), getIns()))
    if (arg.getType() != cast<ViewType>(in.getType()).getTensorType())
      return emitOpError("body argument #")
             << index << " of type " << arg.getType()
             << " does not match input " << in.getType();
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError("the body must end with mbuf.yield");
  if (&body.front() == &body.back() ||
      body.front().getNextNode() != &body.back())
    return emitOpError("the body holds exactly one op besides its "
                       "mbuf.yield: the computation of the kernel");
  if (isa<MBufDialect>(getComputation()->getDialect()))
    return emitOpError("the computation of a kernel is an op of a "
                       "value-semantics dialect, not ")
           << getComputation()->getName();
  auto yield = cast<YieldOp>(body.back());
  if (yield.getValues().size() != getOuts().size())
    return emitOpError("yields ") << yield.getValues().size() << " values for "
                                  << getOuts().size() << " outputs";
  for (auto [index, value, out] : llvm::enumerate(yield.getValues(), getOuts()))
    if (value.getType() != cast<ViewType>(out.getType()).getTensorType())
      return emitOpError("yielded value #")
             << index << " of type " << value.getType()
             << " does not match output " << out.getType();
  if (std::optional<ArrayRef<int64_t>> tied = getTiedOperands()) {
    if (tied->size() != getIns().size())
      return emitOpError("'tied_operands' has ")
             << tied->size() << " entries for " << getIns().size() << " inputs";
    for (auto [index, output] : llvm::enumerate(*tied)) {
      if (output < -1 || output >= static_cast<int64_t>(getOuts().size()))
        return emitOpError("input #")
               << index << " is tied to no output #" << output;
      if (output >= 0 && !isTiedPlacement(getIns()[index], getOuts()[output]))
        return emitOpError("input #")
               << index << " is tied to output #" << output
               << " but is neither its bytes nor a subview of it";
    }
  }
  if (Value workspace = getWorkspace()) {
    auto type = cast<ViewType>(workspace.getType());
    if (type.getShape().size() != 1 || !type.getElementType().isInteger(8))
      return emitOpError("the workspace is a 1-D view of i8, not ") << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous transfers
//===----------------------------------------------------------------------===//

LogicalResult CopyAsyncOp::verify() {
  ViewType source = getSource().getType(), target = getTarget().getType();
  if (source.getShape() != target.getShape() ||
      source.getElementType() != target.getElementType())
    return emitOpError("copies ") << source << " into " << target
                                  << ": the shapes and element types differ";
  if (getSource() == getTarget())
    return emitOpError("copies a view onto itself");
  return verifyAwaited(*this, getToken());
}

/// The device of the arena of `view`, if known.
static std::optional<int64_t> deviceOf(Value view) {
  if (std::optional<ArenaPlace> place = arenaPlace(view))
    return static_cast<int64_t>(place->arena.getDevice());
  return std::nullopt;
}

LogicalResult SendOp::verify() {
  if (failed(verifyDevice(*this, "peer device", getPeer())))
    return failure();
  if (deviceOf(getView()) == static_cast<int64_t>(getPeer()))
    return emitOpError("sends to its own device ") << getPeer();
  return verifyAwaited(*this, getToken());
}

LogicalResult RecvOp::verify() {
  if (failed(verifyDevice(*this, "peer device", getPeer())))
    return failure();
  if (deviceOf(getView()) == static_cast<int64_t>(getPeer()))
    return emitOpError("receives from its own device ") << getPeer();
  return verifyAwaited(*this, getToken());
}

/// Whether operand `index` of `wait` is awaited before: by an earlier
/// operand of it or by an mbuf.wait before it in its block.
static bool awaitedBefore(WaitOp wait, unsigned index) {
  for (OpOperand &use : wait.getTokens()[index].getUses()) {
    auto other = dyn_cast<WaitOp>(use.getOwner());
    if (other == wait ? use.getOperandNumber() < index
                      : other && other->getBlock() == wait->getBlock() &&
                            other->isBeforeInBlock(wait))
      return true;
  }
  return false;
}

LogicalResult WaitOp::verify() {
  if (getTokens().empty())
    return emitOpError("waits for no token");
  // A token completes once, and its one mbuf.wait ends the liveness of its
  // views.
  for (unsigned index = 0, e = getTokens().size(); index < e; ++index)
    if (awaitedBefore(*this, index))
      return emitOpError("token #")
             << index << " is awaited a second time: wait for a token once";
  return success();
}
