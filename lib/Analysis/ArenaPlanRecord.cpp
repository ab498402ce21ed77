//===- ArenaPlanRecord.cpp - The arena plan as IR attributes --------------===//
//
// Writes an ArenaPlan onto the ops it places and reads it back, so that the
// plan is visible in memopt-opt's output between tg-plan-memory and
// convert-tg-to-mbuf (and FileCheck can test it). The offsets and sizes the
// conversion then emits are checked by the mbuf verifier; this checks only
// that the record fits the ops it is on.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/ArenaPlan.h"

#include "memopt/Analysis/Workspace.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace memopt;

namespace {
constexpr StringLiteral kOffsets = "offsets";
constexpr StringLiteral kInPlace = "in_place";
constexpr StringLiteral kSliced = "sliced";
constexpr StringLiteral kWorkspace = "workspace";
} // namespace

void memopt::recordStepArenaPlan(func::FuncOp step, const ArenaPlan &plan) {
  Builder builder(step.getContext());
  step->setAttr(kArenaSizeAttr,
                builder.getI64IntegerAttr(static_cast<int64_t>(
                    plan.totalBytes())));
  for (Operation &op : step.getBody().front().without_terminator()) {
    SmallVector<NamedAttribute> place;
    SmallVector<int64_t> offsets, inPlace;
    for (OpResult result : op.getResults()) {
      std::optional<uint64_t> offset = plan.offset(result);
      offsets.push_back(offset ? static_cast<int64_t>(*offset) : -1);
      std::optional<unsigned> operand = plan.inPlaceOperand(result);
      inPlace.push_back(operand ? static_cast<int64_t>(*operand) : -1);
    }
    auto any = [](ArrayRef<int64_t> values) {
      return llvm::any_of(values, [](int64_t v) { return v >= 0; });
    };
    if (any(offsets))
      place.push_back(builder.getNamedAttr(
          kOffsets, builder.getDenseI64ArrayAttr(offsets)));
    if (any(inPlace))
      place.push_back(builder.getNamedAttr(
          kInPlace, builder.getDenseI64ArrayAttr(inPlace)));
    if (ArrayRef<unsigned> sliced = plan.slicedOperands(&op); !sliced.empty())
      place.push_back(builder.getNamedAttr(
          kSliced, builder.getDenseI64ArrayAttr(SmallVector<int64_t>(
                       sliced.begin(), sliced.end()))));
    if (std::optional<uint64_t> offset = plan.workspaceOffset(&op))
      place.push_back(builder.getNamedAttr(
          kWorkspace,
          builder.getI64IntegerAttr(static_cast<int64_t>(*offset))));
    if (place.empty())
      op.removeAttr(kPlaceAttr);
    else
      op.setAttr(kPlaceAttr, builder.getDictionaryAttr(place));
  }
}

FailureOr<StepArenaPlan> memopt::readStepArenaPlan(func::FuncOp step,
                                                   StringRef pass) {
  auto size = step->getAttrOfType<IntegerAttr>(kArenaSizeAttr);
  if (!size || size.getInt() < 0)
    return step.emitError()
           << pass << ": @" << step.getSymName()
           << " has no memory plan (an i64 '" << kArenaSizeAttr
           << "' >= 0): run tg-plan-memory first";
  StepArenaPlan result;
  ArenaPlan &plan = result.plan;
  plan.total = static_cast<uint64_t>(size.getInt());
  for (Operation &op : step.getBody().front().without_terminator()) {
    Attribute attr = op.getAttr(kPlaceAttr);
    if (!attr)
      continue;
    auto place = dyn_cast<DictionaryAttr>(attr);
    if (!place)
      return op.emitError() << pass << ": '" << kPlaceAttr
                            << "' must be a dictionary, got " << attr;
    auto bad = [&](StringRef key, StringRef expected) {
      return op.emitError() << pass << ": '" << kPlaceAttr << "' " << key
                            << " must be " << expected << ", got "
                            << place.get(key);
    };
    // One entry per result: an offset (or operand index), -1 for none.
    auto perResult = [&](StringRef key, int64_t bound,
                         StringRef expected) -> FailureOr<ArrayRef<int64_t>> {
      Attribute value = place.get(key);
      if (!value)
        return ArrayRef<int64_t>();
      auto array = dyn_cast<DenseI64ArrayAttr>(value);
      if (!array || array.size() != static_cast<int64_t>(op.getNumResults()) ||
          llvm::any_of(array.asArrayRef(),
                       [&](int64_t v) { return v < -1 || v >= bound; }))
        return bad(key, expected);
      return array.asArrayRef();
    };
    for (NamedAttribute entry : place)
      if (!llvm::is_contained({kOffsets, kInPlace, kSliced, kWorkspace},
                              entry.getName().getValue()))
        return op.emitError() << pass << ": '" << kPlaceAttr
                              << "' has no entry '" << entry.getName().getValue()
                              << "'; expected offsets, in_place, sliced or "
                                 "workspace";
    FailureOr<ArrayRef<int64_t>> offsets =
        perResult(kOffsets, INT64_MAX,
                  "an array<i64> of one offset >= 0 (or -1) per result");
    FailureOr<ArrayRef<int64_t>> inPlace =
        perResult(kInPlace, op.getNumOperands(),
                  "an array<i64> of one operand index (or -1) per result");
    if (failed(offsets) || failed(inPlace))
      return failure();
    for (auto [result, offset] : llvm::zip(op.getResults(), *offsets))
      if (offset >= 0)
        plan.valueOffsets[result] = static_cast<uint64_t>(offset);
    for (auto [result, operand] : llvm::zip(op.getResults(), *inPlace))
      if (operand >= 0)
        plan.inPlaceOperands[result] = static_cast<unsigned>(operand);
    if (Attribute value = place.get(kSliced)) {
      auto sliced = dyn_cast<DenseI64ArrayAttr>(value);
      if (!sliced || llvm::any_of(sliced.asArrayRef(), [&](int64_t k) {
            return k < 0 || k >= static_cast<int64_t>(op.getNumOperands());
          }))
        return bad(kSliced, "an array<i64> of operand indices");
      for (int64_t k : sliced.asArrayRef())
        plan.sliced[&op].push_back(static_cast<unsigned>(k));
    }
    if (Attribute value = place.get(kWorkspace)) {
      auto offset = dyn_cast<IntegerAttr>(value);
      uint64_t bytes = workspaceBytes(&op);
      if (!offset || offset.getInt() < 0)
        return bad(kWorkspace, "an i64 offset >= 0");
      if (!bytes)
        return op.emitError() << pass << ": '" << kPlaceAttr
                              << "' places a workspace of an op that has "
                                 "none (no '"
                              << kWorkspaceBytesAttr << "')";
      plan.workspaceOffsets[&op] = static_cast<uint64_t>(offset.getInt());
      result.workspaces[&op] = bytes;
    }
  }
  return result;
}

void memopt::eraseStepArenaPlan(func::FuncOp step) {
  step->removeAttr(kArenaSizeAttr);
  for (Operation &op : step.getBody().front().without_terminator())
    op.removeAttr(kPlaceAttr);
}
