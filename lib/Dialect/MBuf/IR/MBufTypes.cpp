//===- MBufTypes.cpp - Types of mbuf --------------------------------------===//
//
// `!mbuf.view<1x3xf32>` spells its shape as builtin tensors do, with the
// memory space after a comma when it is not the default (device).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace memopt::mbuf;

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

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               MemorySpace) {
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return emitError() << "a view has a static shape";
  if (!elementType.isF32() && !elementType.isF16() && !elementType.isBF16() &&
      !elementType.isInteger(64) && !elementType.isInteger(8))
    return emitError() << "a view holds f32, f16, bf16, i64 or i8 elements, "
                          "not "
                       << elementType;
  return success();
}

int64_t ViewType::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : getShape())
    count *= dim;
  return count;
}

int64_t ViewType::getSizeInBytes() const {
  return getNumElements() *
         static_cast<int64_t>(getElementType().getIntOrFloatBitWidth() / 8);
}

RankedTensorType ViewType::getTensorType() const {
  return RankedTensorType::get(getShape(), getElementType());
}
