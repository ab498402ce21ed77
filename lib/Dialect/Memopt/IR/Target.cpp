//===- Target.cpp - #memopt.target ----------------------------------------===//
//
// Syntax: `#memopt.target<BACKEND>` or `#memopt.target<BACKEND, in_place =
// true|false>`; in_place is printed only when it differs from the
// backend's default.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace memopt;

static bool defaultInPlace(Backend backend) { return backend == Backend::cpu; }

bool TargetAttr::hasDefaultInPlace() const {
  return getInPlace() == defaultInPlace(getBackend());
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   Backend backend, bool inPlace) {
  // cuDNN's BatchNorm and the generated kernels were never checked for
  // writing over their input.
  if (backend == Backend::cuda && inPlace)
    return emitError() << "#memopt.target<cuda> does not allow in_place = "
                          "true: the CUDA kernels are not checked for "
                          "in-place writes";
  return success();
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<Backend> backend = symbolizeBackend(keyword);
  if (!backend) {
    parser.emitError(loc) << "unknown backend '" << keyword
                          << "': expected cpu or cuda";
    return {};
  }
  bool inPlace = defaultInPlace(*backend);
  if (succeeded(parser.parseOptionalComma())) {
    StringRef value;
    SMLoc valueLoc;
    if (parser.parseKeyword("in_place") || parser.parseEqual() ||
        (valueLoc = parser.getCurrentLocation(),
         parser.parseKeyword(&value)))
      return {};
    if (value != "true" && value != "false") {
      parser.emitError(valueLoc)
          << "in_place must be true or false, got '" << value << "'";
      return {};
    }
    inPlace = value == "true";
  }
  if (parser.parseGreater())
    return {};
  return TargetAttr::getChecked(
      [&] { return parser.emitError(loc); }, parser.getContext(), *backend,
      inPlace);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyBackend(getBackend());
  if (!hasDefaultInPlace())
    printer << ", in_place = " << (getInPlace() ? "true" : "false");
  printer << ">";
}

FailureOr<TargetAttr> memopt::lookupTarget(Operation *op, StringRef pass) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (module)
    if (auto target = module->getAttrOfType<TargetAttr>(
            MemoptDialect::kTargetAttrName))
      return target;
  return op->emitError()
         << pass << ": the module has no memopt.target; run "
         << "-memopt-set-target=target=cpu (or target=cuda) first, or the "
            "memopt-training-pipeline, which sets it";
}
