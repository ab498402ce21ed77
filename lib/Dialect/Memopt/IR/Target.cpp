//===- Target.cpp - #memopt.target ----------------------------------------===//
//
// Syntax: `#memopt.target<BACKEND(, KEY = VALUE)*>` with the keys
// `in_place = true|false`, `device = #memopt.device<...>` and `budget =
// BYTES`, each printed only when it differs from the backend's default
// (budget: when there is one).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace memopt;

static bool defaultInPlace(Backend backend) { return backend == Backend::cpu; }

bool TargetAttr::hasDefaultInPlace() const {
  return getInPlace() == defaultInPlace(getBackend());
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   Backend backend, bool inPlace, DeviceAttr device,
                   uint64_t budget) {
  // cuDNN's BatchNorm and the generated kernels were never checked for
  // writing over their input.
  if (backend == Backend::cuda && inPlace)
    return emitError() << "#memopt.target<cuda> does not allow in_place = "
                          "true: the CUDA kernels are not checked for "
                          "in-place writes";
  if (!device)
    return emitError() << "#memopt.target needs a #memopt.device";
  if (llvm::Error tooLarge = verifyBudget(budget, device.getProfile()))
    return emitError() << llvm::toString(std::move(tooLarge));
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
  DeviceAttr device = DeviceAttr::getDefault(parser.getContext(), *backend);
  uint64_t budget = 0;
  llvm::SmallDenseSet<StringRef> given;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!given.insert(key).second) {
      parser.emitError(keyLoc) << "target key '" << key << "' given twice";
      return {};
    }
    SMLoc valueLoc = parser.getCurrentLocation();
    if (key == "in_place") {
      StringRef value;
      if (parser.parseKeyword(&value))
        return {};
      if (value != "true" && value != "false") {
        parser.emitError(valueLoc)
            << "in_place must be true or false, got '" << value << "'";
        return {};
      }
      inPlace = value == "true";
    } else if (key == "device") {
      if (parser.parseAttribute(device))
        return {};
    } else if (key == "budget") {
      if (parser.parseInteger(budget))
        return {};
      if (budget == 0) {
        parser.emitError(valueLoc) << "budget must be a positive number of "
                                      "bytes; leave it out for none";
        return {};
      }
    } else {
      parser.emitError(keyLoc) << "unknown target key '" << key
                               << "': expected in_place, device or budget";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return TargetAttr::getChecked(
      [&] { return parser.emitError(loc); }, parser.getContext(), *backend,
      inPlace, device, budget);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyBackend(getBackend());
  if (!hasDefaultInPlace())
    printer << ", in_place = " << (getInPlace() ? "true" : "false");
  if (getDevice() != DeviceAttr::getDefault(getContext(), getBackend())) {
    printer << ", device = ";
    printer.printAttribute(getDevice());
  }
  if (getBudget())
    printer << ", budget = " << getBudget();
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
