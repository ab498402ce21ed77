//===- SetTarget.cpp - The memopt-set-target pass --------------------------===//
//
// Records the backend, the device profile and the budget once, as the
// module's #memopt.target, so that no two passes can plan for different
// ones.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace memopt {
#define GEN_PASS_DEF_SETTARGET
#include "memopt/Transforms/Passes.h.inc"
} // namespace memopt

using namespace mlir;
using namespace memopt;

namespace {

class SetTargetPass : public memopt::impl::SetTargetBase<SetTargetPass> {
public:
  using SetTargetBase::SetTargetBase;

  LogicalResult initialize(MLIRContext *context) override {
    std::optional<Backend> backend = symbolizeBackend(target);
    if (!backend)
      return emitError(UnknownLoc::get(context))
             << "memopt-set-target: unknown target '" << target
             << "': expected target=cpu or target=cuda";
    bool inPlaceAllowed = *backend == Backend::cpu;
    if (!inPlace.empty() && inPlace != "true" && inPlace != "false")
      return emitError(UnknownLoc::get(context))
             << "memopt-set-target: in-place must be true or false, got '"
             << inPlace << "'";
    if (!inPlace.empty())
      inPlaceAllowed = inPlace == "true";
    DeviceAttr deviceAttr = DeviceAttr::getDefault(context, *backend);
    if (!device.empty()) {
      llvm::Expected<DeviceProfile> profile = parseDeviceProfile(device);
      if (!profile)
        return emitError(UnknownLoc::get(context))
               << "memopt-set-target: device: "
               << llvm::toString(profile.takeError());
      deviceAttr = DeviceAttr::get(context, *profile);
    }
    attr = TargetAttr::getChecked(
        [&] {
          return emitError(UnknownLoc::get(context)) << "memopt-set-target: ";
        },
        context, *backend, inPlaceAllowed, deviceAttr, budget.getValue());
    return success(static_cast<bool>(attr));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto existing =
        module->getAttrOfType<TargetAttr>(MemoptDialect::kTargetAttrName);
    if (existing && existing != attr) {
      module.emitError("memopt-set-target: the module already targets ")
          << existing << "; earlier passes planned for it, so it cannot "
          << "become " << attr;
      return signalPassFailure();
    }
    module->setAttr(MemoptDialect::kTargetAttrName, attr);
  }

private:
  TargetAttr attr;
};

} // namespace
