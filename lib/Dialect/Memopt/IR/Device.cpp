//===- Device.cpp - #memopt.device -----------------------------------------===//
//
// Syntax: `#memopt.device<"NAME"(, KEY = NUMBER)*>` with the keys of
// memopt/Analysis/DeviceProfile.h in base units. A built-in profile's
// name gives its numbers and only the keys that differ are printed; any
// other name starts from zeros (lean 2).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Memopt/IR/MemoptDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace memopt;

namespace {

/// The numbers of a profile by key, in printing order; memory apart.
struct RateKey {
  StringLiteral key;
  double DeviceProfile::*field;
};

constexpr RateKey kRateKeys[] = {
    {"fp32", &DeviceProfile::fp32Flops},
    {"tf32", &DeviceProfile::tf32Flops},
    {"bf16", &DeviceProfile::bf16Flops},
    {"fp16", &DeviceProfile::fp16Flops},
    {"bandwidth", &DeviceProfile::memoryBandwidth},
    {"link", &DeviceProfile::linkBandwidth},
    {"launch", &DeviceProfile::launchSeconds},
    {"lean", &DeviceProfile::leanSlowdown},
};

/// What the keys of a device named `name` default to: its built-in numbers,
/// or zeros (and the default lean factor) for any other name.
DeviceProfile baseProfile(StringRef name) {
  if (std::optional<DeviceProfile> builtin = builtinDeviceProfile(name))
    return *builtin;
  DeviceProfile base;
  base.name = name.str();
  return base;
}

APFloat toAPFloat(double value) { return APFloat(value); }

/// The parameters of a #memopt.device as the cost model takes them.
DeviceProfile profileOf(StringRef name, uint64_t memory, const APFloat &fp32,
                        const APFloat &tf32, const APFloat &bf16,
                        const APFloat &fp16, const APFloat &bandwidth,
                        const APFloat &link, const APFloat &launch,
                        const APFloat &lean) {
  DeviceProfile p;
  p.name = name.str();
  p.memoryBytes = memory;
  p.fp32Flops = fp32.convertToDouble();
  p.tf32Flops = tf32.convertToDouble();
  p.bf16Flops = bf16.convertToDouble();
  p.fp16Flops = fp16.convertToDouble();
  p.memoryBandwidth = bandwidth.convertToDouble();
  p.linkBandwidth = link.convertToDouble();
  p.launchSeconds = launch.convertToDouble();
  p.leanSlowdown = lean.convertToDouble();
  return p;
}

} // namespace

DeviceAttr DeviceAttr::get(MLIRContext *context, const DeviceProfile &p) {
  return get(context, StringRef(p.name), p.memoryBytes, toAPFloat(p.fp32Flops),
                   toAPFloat(p.tf32Flops), toAPFloat(p.bf16Flops),
                   toAPFloat(p.fp16Flops), toAPFloat(p.memoryBandwidth),
                   toAPFloat(p.linkBandwidth), toAPFloat(p.launchSeconds),
                   toAPFloat(p.leanSlowdown));
}

DeviceAttr DeviceAttr::getDefault(MLIRContext *context, Backend backend) {
  return get(context,
             *builtinDeviceProfile(defaultDeviceName(backend == Backend::cuda)));
}

DeviceProfile DeviceAttr::getProfile() const {
  return profileOf(getName(), getMemory(), getFp32(), getTf32(), getBf16(),
                   getFp16(), getBandwidth(), getLink(), getLaunch(),
                   getLean());
}

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, uint64_t memory,
                                 APFloat fp32, APFloat tf32, APFloat bf16,
                                 APFloat fp16, APFloat bandwidth, APFloat link,
                                 APFloat launch, APFloat lean) {
  if (name.empty())
    return emitError() << "#memopt.device needs a name";
  DeviceProfile p = profileOf(name, memory, fp32, tf32, bf16, fp16,
                              bandwidth, link, launch, lean);
  if (llvm::Error invalid = verifyDeviceProfile(p))
    return emitError() << llvm::toString(std::move(invalid));
  return success();
}

Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  DeviceProfile profile = baseProfile(name);
  llvm::StringSet<> given;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!given.insert(key).second) {
      parser.emitError(keyLoc) << "device key '" << key << "' given twice";
      return {};
    }
    if (key == "memory") {
      if (parser.parseInteger(profile.memoryBytes))
        return {};
      continue;
    }
    const RateKey *rate = llvm::find_if(
        kRateKeys, [&](const RateKey &rate) { return rate.key == key; });
    if (rate == std::end(kRateKeys)) {
      parser.emitError(keyLoc)
          << "unknown device key '" << key
          << "': expected memory, fp32, tf32, bf16, fp16, bandwidth, link, "
             "launch or lean";
      return {};
    }
    // Integers too: `fp32 = 0` reads as well as `fp32 = 0.0`.
    SMLoc valueLoc = parser.getCurrentLocation();
    Attribute number;
    if (parser.parseAttribute(number))
      return {};
    double &value = profile.*(rate->field);
    if (auto integer = dyn_cast<IntegerAttr>(number)) {
      value = static_cast<double>(integer.getValue().getSExtValue());
    } else if (auto real = dyn_cast<FloatAttr>(number)) {
      value = real.getValueAsDouble();
    } else {
      parser.emitError(valueLoc)
          << "device key '" << key << "' expects a number, got " << number;
      return {};
    }
  }
  if (!builtinDeviceProfile(name))
    for (StringRef key : {"memory", "fp32", "bandwidth"})
      if (!given.contains(key)) {
        parser.emitError(loc)
            << "#memopt.device<\"" << name
            << "\"> is not a built-in profile (cpu, rtx2060, a100-40g, "
               "h100): give memory, fp32 and bandwidth";
        return {};
      }
  if (parser.parseGreater())
    return {};
  DeviceProfile &p = profile;
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), StringRef(p.name), p.memoryBytes,
                    toAPFloat(p.fp32Flops), toAPFloat(p.tf32Flops),
                    toAPFloat(p.bf16Flops), toAPFloat(p.fp16Flops),
                    toAPFloat(p.memoryBandwidth), toAPFloat(p.linkBandwidth),
                    toAPFloat(p.launchSeconds), toAPFloat(p.leanSlowdown));
}

void DeviceAttr::print(AsmPrinter &printer) const {
  DeviceProfile base = baseProfile(getName());
  DeviceProfile p = getProfile();
  printer << "<";
  printer.printString(getName());
  if (p.memoryBytes != base.memoryBytes)
    printer << ", memory = " << p.memoryBytes;
  for (const RateKey &rate : kRateKeys)
    if (p.*(rate.field) != base.*(rate.field)) {
      printer << ", " << rate.key << " = ";
      printer.printFloat(toAPFloat(p.*(rate.field)));
    }
  printer << ">";
}
