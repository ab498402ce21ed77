//===- MBufTypes.cpp - Types of mbuf --------------------------------------===//
//
// `!mbuf.view<1x3xf32>` spells its shape as builtin tensors do, with the
// memory space after a comma when it is not the default (device).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "memopt/Runtime/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace memopt::mbuf;
namespace rt = memopt::rt;

Type ViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  MemorySpace space = MemorySpace::Device;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<MemorySpace> parsed = symbolizeMemorySpace(keyword);
    if (!parsed) {
      parser.emitError(loc, "expected a memory space (device or "
                            "pinned_host), not '")
          << keyword << "'";
      return {};
    }
    space = *parsed;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(
      parser.getContext(), ArrayRef<int64_t>(shape), elementType, space);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType();
  if (getSpace() != MemorySpace::Device)
    printer << ", " << stringifyMemorySpace(getSpace());
  printer << ">";
}

/// The bytes of `shape` elements of `elementBytes` each, or nothing when
/// the count overflows int64.
static std::optional<int64_t> checkedSizeInBytes(ArrayRef<int64_t> shape,
                                                 int64_t elementBytes) {
  std::optional<int64_t> bytes = elementBytes;
  for (int64_t dim : shape)
    if (bytes)
      bytes = llvm::checkedMul(*bytes, dim);
  return bytes;
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               MemorySpace) {
  if (shape.size() > static_cast<size_t>(rt::kMaxRank))
    return emitError() << "a view has at most " << rt::kMaxRank
                       << " dimensions (the runtime's kMaxRank), not "
                       << shape.size();
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return emitError() << "a view has a static shape";
  if (!elementType.isF32() && !elementType.isF16() && !elementType.isBF16() &&
      !elementType.isInteger(64) && !elementType.isInteger(8))
    return emitError() << "a view holds f32, f16, bf16, i64 or i8 elements, "
                          "not "
                       << elementType;
  if (!checkedSizeInBytes(shape, elementType.getIntOrFloatBitWidth() / 8))
    return emitError() << "a view's size in bytes overflows int64";
  return success();
}

// Both saturate at INT64_MAX for a type built without verify (ViewType::get),
// which then exceeds every arena and source view.
int64_t ViewType::getNumElements() const {
  return checkedSizeInBytes(getShape(), 1)
      .value_or(std::numeric_limits<int64_t>::max());
}

int64_t ViewType::getSizeInBytes() const {
  return checkedSizeInBytes(getShape(),
                            getElementType().getIntOrFloatBitWidth() / 8)
      .value_or(std::numeric_limits<int64_t>::max());
}

RankedTensorType ViewType::getTensorType() const {
  return RankedTensorType::get(getShape(), getElementType());
}
