//===- DeviceProfile.cpp - Device profiles and their syntax ---------------===//
//
// The built-in profiles hold the vendors' published peak numbers (sources
// in docs/cost-model.md); what a device reaches in practice is lower, and a
// profile can be overridden key by key where a measurement says otherwise.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/DeviceProfile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace memopt;
using llvm::StringRef;

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

/// A built-in profile: memory in GiB, FLOP/s in T, bandwidths in GB/s.
struct BuiltinProfile {
  llvm::StringLiteral name;
  unsigned memoryGiB;
  double fp32, tf32, bf16, fp16; // TFLOP/s; 0: no such tensor cores
  double bandwidth, link;        // GB/s
  double launchSeconds;
};

/// Reference numbers (docs/cost-model.md lists the sources).
constexpr BuiltinProfile kBuiltinProfiles[] = {
    // A nominal 8-core AVX2 machine: 8 cores x 3 GHz x 32 fp32 FLOP/cycle
    // (two 8-wide FMA units), dual-channel DDR4-3200. Host memory is the
    // device memory, so the "link" is the memory itself.
    {"cpu", 64, 0.768, 0, 0, 0, 51.2, 51.2, 1e-6},
    // GeForce RTX 2060 (TU106): 1920 CUDA cores at 1680 MHz boost; fp16
    // tensor cores with fp32 accumulation (half the fp16-accumulate 51.6
    // TFLOP/s), no bf16/tf32; 8 GB as in the radiograph study; PCIe 3.0 x16.
    {"rtx2060", 8, 6.45, 0, 0, 25.8, 336, 15.75, 5e-6},
    // A100 40GB SXM4, dense tensor-core rates; PCIe 4.0 x16 one way.
    {"a100-40g", 40, 19.5, 156, 312, 312, 1555, 32, 5e-6},
    // H100 SXM5 80GB, dense rates (half the datasheet's with-sparsity
    // numbers); PCIe 5.0 x16 one way.
    {"h100", 80, 67, 494.7, 989.4, 989.4, 3350, 64, 5e-6},
};

constexpr StringRef kBuiltinNames[] = {"cpu", "rtx2060", "a100-40g", "h100"};

const BuiltinProfile *findBuiltin(StringRef name) {
  for (const BuiltinProfile &builtin : kBuiltinProfiles)
    if (builtin.name == name)
      return &builtin;
  return nullptr;
}

DeviceProfile fromBuiltin(const BuiltinProfile &b) {
  DeviceProfile p;
  p.name = b.name.str();
  p.memoryBytes = uint64_t(b.memoryGiB) << 30;
  p.fp32Flops = b.fp32 * kTera;
  p.tf32Flops = b.tf32 * kTera;
  p.bf16Flops = b.bf16 * kTera;
  p.fp16Flops = b.fp16 * kTera;
  p.memoryBandwidth = b.bandwidth * kGiga;
  p.linkBandwidth = b.link * kGiga;
  p.launchSeconds = b.launchSeconds;
  return p;
}

constexpr const char *kSizeForms =
    "a size such as 8GiB, 750MB, 1.5GB or 1073741824 (units B, KB, MB, GB, "
    "TB, KiB, MiB, GiB, TiB)";
constexpr const char *kDeviceForms =
    "NAME[,KEY=VALUE]... with NAME cpu, rtx2060, a100-40g, h100 or custom "
    "and KEY memory (8GiB), fp32, tf32, bf16, fp16 (FLOP/s: 19.5T), "
    "bandwidth, link (bytes/s: 336GB/s), launch (seconds: 5us) or lean (a "
    "factor of at least 1: 2); custom "
    "needs memory, fp32 and bandwidth";

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Splits `text` into a non-negative decimal number and what follows it.
std::optional<double> leadingNumber(StringRef text, StringRef &rest) {
  size_t end = 0;
  while (end < text.size() &&
         (llvm::isDigit(text[end]) || text[end] == '.' ||
          ((text[end] == 'e' || text[end] == 'E') && end > 0 &&
           end + 1 < text.size() &&
           (llvm::isDigit(text[end + 1]) || text[end + 1] == '-' ||
            text[end + 1] == '+'))))
    end += (text[end] == 'e' || text[end] == 'E') ? 2 : 1;
  double value;
  if (end == 0 || text.take_front(end).getAsDouble(value) ||
      !std::isfinite(value) || value < 0)
    return std::nullopt;
  rest = text.drop_front(end);
  return value;
}

/// A number with one of `units` (matched case-sensitively; "" is the bare
/// number).
std::optional<double>
scaledNumber(StringRef text,
             llvm::ArrayRef<std::pair<StringRef, double>> units) {
  StringRef unit;
  std::optional<double> value = leadingNumber(text.trim(), unit);
  if (!value)
    return std::nullopt;
  for (auto [name, scale] : units)
    if (unit == name)
      return *value * scale;
  return std::nullopt;
}

const std::pair<StringRef, double> kSizeUnits[] = {
    {"", 1},           {"B", 1},          {"KB", 1e3},
    {"MB", 1e6},       {"GB", 1e9},       {"TB", 1e12},
    {"KiB", 1024.0},   {"MiB", 1048576.0}, {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0}};
const std::pair<StringRef, double> kFlopUnits[] = {
    {"", 1}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
const std::pair<StringRef, double> kBandwidthUnits[] = {
    {"B/s", 1},      {"KB/s", 1e3},        {"MB/s", 1e6},
    {"GB/s", 1e9},   {"TB/s", 1e12},       {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"", 1}};
const std::pair<StringRef, double> kFactorUnits[] = {{"", 1}};
const std::pair<StringRef, double> kTimeUnits[] = {
    {"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

} // namespace

double DeviceProfile::peakFlops(mlir::Type elementType) const {
  double peak = 0;
  if (elementType.isF16())
    peak = fp16Flops;
  else if (elementType.isBF16())
    peak = bf16Flops;
  return peak > 0 ? peak : fp32Flops;
}

llvm::ArrayRef<StringRef> memopt::builtinDeviceNames() { return kBuiltinNames; }

llvm::Expected<uint64_t> memopt::parseByteSize(StringRef text) {
  std::optional<double> bytes = scaledNumber(text, kSizeUnits);
  if (!bytes || *bytes >= 18446744073709551616.0)
    return error(llvm::Twine("expected ") + kSizeForms + ", got '" + text +
                 "'");
  return static_cast<uint64_t>(*bytes);
}

llvm::Expected<DeviceProfile> memopt::parseDeviceProfile(StringRef spec) {
  llvm::SmallVector<StringRef> parts;
  spec.split(parts, ',');
  StringRef name = parts.front().trim();
  bool custom = name == "custom";
  const BuiltinProfile *builtin = findBuiltin(name);
  if (!custom && !builtin)
    return error("unknown device '" + name + "'; expected " + kDeviceForms);
  DeviceProfile profile;
  if (builtin)
    profile = fromBuiltin(*builtin);
  else
    profile.name = "custom";
  bool hasMemory = !custom, hasFp32 = !custom, hasBandwidth = !custom;
  for (StringRef part : llvm::drop_begin(parts)) {
    auto [key, value] = part.split('=');
    key = key.trim();
    value = value.trim();
    auto bad = [&](const char *forms) {
      return error("bad value '" + value + "' for device key '" + key +
                   "': expected " + forms);
    };
    if (key == "lean") {
      std::optional<double> factor = scaledNumber(value, kFactorUnits);
      if (!factor || !(*factor >= 1) || *factor > 1e6)
        return bad("a factor of at least 1 such as 2 or 1.5");
      profile.leanSlowdown = *factor;
      continue;
    }
    if (key == "memory") {
      llvm::Expected<uint64_t> bytes = parseByteSize(value);
      if (!bytes) {
        llvm::consumeError(bytes.takeError());
        return bad(kSizeForms);
      }
      profile.memoryBytes = *bytes;
      hasMemory = true;
      continue;
    }
    double *field = llvm::StringSwitch<double *>(key)
                        .Case("fp32", &profile.fp32Flops)
                        .Case("tf32", &profile.tf32Flops)
                        .Case("bf16", &profile.bf16Flops)
                        .Case("fp16", &profile.fp16Flops)
                        .Case("bandwidth", &profile.memoryBandwidth)
                        .Case("link", &profile.linkBandwidth)
                        .Case("launch", &profile.launchSeconds)
                        .Default(nullptr);
    if (!field)
      return error("unknown device key '" + key + "' in '" + spec +
                   "'; expected " + kDeviceForms);
    bool flops = field != &profile.memoryBandwidth &&
                 field != &profile.linkBandwidth &&
                 field != &profile.launchSeconds;
    std::optional<double> number =
        field == &profile.launchSeconds
            ? scaledNumber(value, kTimeUnits)
            : scaledNumber(value, flops ? llvm::ArrayRef(kFlopUnits)
                                        : llvm::ArrayRef(kBandwidthUnits));
    if (!number)
      return bad(field == &profile.launchSeconds
                     ? "seconds such as 5us, 0.1ms or 0"
                 : flops ? "FLOP/s such as 19.5T, 800G or 6.5e12"
                         : "bytes/s such as 336GB/s, 1.5TB/s or 12GiB/s");
    *field = *number;
    hasFp32 |= field == &profile.fp32Flops;
    hasBandwidth |= field == &profile.memoryBandwidth;
  }
  if (!hasMemory || !hasFp32 || !hasBandwidth)
    return error("device 'custom' needs memory, fp32 and bandwidth, e.g. "
                 "custom,memory=8GiB,fp32=6.5T,bandwidth=336GB/s,"
                 "link=12GB/s");
  if (profile.fp32Flops <= 0 || profile.memoryBandwidth <= 0)
    return error("device '" + spec + "': fp32 and bandwidth must be positive");
  return profile;
}

std::string memopt::formatBytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return std::to_string(bytes) + " B";
  return llvm::formatv("{0:f2} {1}", value, units[unit]).str();
}

std::string memopt::describeDeviceProfile(const DeviceProfile &profile) {
  return llvm::formatv("{0} ({1}, fp32 {2:f2} TFLOP/s, {3:f0} GB/s)",
                       profile.name,
                       formatBytes(profile.memoryBytes),
                       profile.fp32Flops / kTera,
                       profile.memoryBandwidth / kGiga)
      .str();
}
