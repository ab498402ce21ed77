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
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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
  llvm::StringLiteral description; // --device=list
  unsigned memoryGiB;
  double fp32, tf32, bf16, fp16; // TFLOP/s; 0: no such tensor cores
  double bandwidth, link;        // GB/s
  double launchSeconds;
  /// The lean-workspace slowdown (DeviceProfile::leanSlowdown).
  double lean = 2;
};

/// Reference numbers (docs/cost-model.md lists the sources).
constexpr BuiltinProfile kBuiltinProfiles[] = {
    // A nominal 8-core AVX2 machine: 8 cores x 3 GHz x 32 fp32 FLOP/cycle
    // (two 8-wide FMA units), dual-channel DDR4-3200. Host memory is the
    // device memory, so the "link" is the memory itself. Lean filter
    // gradients (in pieces) took at most 1.2x the default's time, and
    // 0.88x summed, over eight U-Net layers (bench/lean_workspaces.py,
    // 2 threads): the slowest layer's factor.
    {"cpu", "a nominal 8-core AVX2 host (the cpu target's default)", 64,
     0.768, 0, 0, 0, 51.2, 51.2, 1e-6, 1.2},
    // GeForce RTX 2060 (TU106): 1920 CUDA cores at 1680 MHz boost; fp16
    // tensor cores with fp32 accumulation (half the fp16-accumulate 51.6
    // TFLOP/s), no bf16/tf32; 8 GB as in the radiograph study; PCIe 3.0 x16.
    {"rtx2060", "GeForce RTX 2060 with 8 GiB (Turing: fp16, no bf16)", 8,
     6.45, 0, 0, 25.8, 336, 15.75, 5e-6},
    // A100 40GB SXM4, dense tensor-core rates; PCIe 4.0 x16 one way.
    {"a100-40g", "A100 40GB SXM (Ampere; the cuda target's default)", 40,
     19.5, 156, 312, 312, 1555, 32, 5e-6},
    // H100 SXM5 80GB, dense rates (half the datasheet's with-sparsity
    // numbers); PCIe 5.0 x16 one way.
    {"h100", "H100 SXM 80GB (Hopper)", 80, 67, 494.7, 989.4, 989.4, 3350, 64,
     5e-6},
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
  p.leanSlowdown = b.lean;
  return p;
}

constexpr const char *kSizeForms =
    "a size such as 8GiB, 750MB, 1.5GB or 1073741824 (units B, KB, MB, GB, "
    "TB, KiB, MiB, GiB, TiB)";
constexpr const char *kDeviceForms =
    "NAME[,KEY=VALUE]... with NAME cpu, rtx2060, a100-40g, h100, custom or "
    "a FILE.json user profile "
    "and KEY memory (8GiB), fp32, tf32, bf16, fp16 (FLOP/s: 19.5T), "
    "bandwidth, link (bytes/s: 336GB/s), launch (seconds: 5us) or lean (a "
    "factor of at least 1: 2); custom "
    "needs memory, fp32 and bandwidth";

/// The keys of a profile (--device=NAME,KEY=VALUE and the JSON file).
constexpr StringRef kDeviceKeys[] = {"memory",    "fp32", "tf32",
                                     "bf16",      "fp16", "bandwidth",
                                     "link",      "launch", "lean"};

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
  // Dividing by 1e6 rounds 5us to the double nearest 5e-6, as the
  // literal; multiplying by 1e-6 would not.
  for (auto [name, scale] : units)
    if (unit == name)
      return scale < 1 ? *value / std::round(1 / scale) : *value * scale;
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

StringRef memopt::defaultDeviceName(bool cuda) {
  // The most common GPU of data-center training, with bf16 and tf32: a
  // --amp=bf16 step plans on it as it would run.
  return cuda ? "a100-40g" : "cpu";
}

StringRef memopt::builtinDeviceDescription(StringRef name) {
  const BuiltinProfile *builtin = findBuiltin(name);
  return builtin ? StringRef(builtin->description) : StringRef();
}

std::optional<DeviceProfile> memopt::builtinDeviceProfile(StringRef name) {
  if (const BuiltinProfile *builtin = findBuiltin(name))
    return fromBuiltin(*builtin);
  return std::nullopt;
}

llvm::Expected<uint64_t> memopt::parseByteSize(StringRef text) {
  std::optional<double> bytes = scaledNumber(text, kSizeUnits);
  if (!bytes || *bytes >= 18446744073709551616.0)
    return error(llvm::Twine("expected ") + kSizeForms + ", got '" + text +
                 "'");
  return static_cast<uint64_t>(*bytes);
}

/// Sets `key` of `profile` from `value` (the --device syntax). The error
/// names the key and its accepted forms.
static llvm::Error applyDeviceKey(DeviceProfile &profile, StringRef key,
                                  StringRef value, StringRef where) {
  auto bad = [&](const char *forms) {
    return error("bad value '" + value + "' for device key '" + key +
                 "': expected " + forms);
  };
  if (key == "lean") {
    std::optional<double> factor = scaledNumber(value, kFactorUnits);
    if (!factor || !(*factor >= 1) || *factor > 1e6)
      return bad("a factor of at least 1 such as 2 or 1.5");
    profile.leanSlowdown = *factor;
    return llvm::Error::success();
  }
  if (key == "memory") {
    llvm::Expected<uint64_t> bytes = parseByteSize(value);
    if (!bytes) {
      llvm::consumeError(bytes.takeError());
      return bad(kSizeForms);
    }
    profile.memoryBytes = *bytes;
    return llvm::Error::success();
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
    return error("unknown device key '" + key + "' in '" + where +
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
  return llvm::Error::success();
}

/// The keys a profile without a built-in base must give.
static bool hasRequiredKeys(const llvm::StringSet<> &given) {
  return given.contains("memory") && given.contains("fp32") &&
         given.contains("bandwidth");
}

/// A user profile from the JSON file `path` (see parseDeviceProfile).
static llvm::Expected<DeviceProfile> readDeviceFile(StringRef path) {
  auto fail = [&](const llvm::Twine &message) {
    return error("device file '" + path + "': " + message);
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read it: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return fail("expected an object such as {\"memory\": \"8GiB\", "
                "\"fp32\": \"6.5T\", \"bandwidth\": \"336GB/s\"}");
  DeviceProfile profile;
  profile.name = llvm::sys::path::stem(path).str();
  llvm::StringSet<> given;
  // In key order, so that the first bad key is reported whatever the hash
  // order of the object.
  llvm::SmallVector<StringRef> keys;
  for (const auto &entry : *object)
    keys.push_back(entry.first);
  llvm::sort(keys);
  for (StringRef key : keys) {
    const llvm::json::Value &value = *object->get(key);
    if (key == "name") {
      std::optional<StringRef> name = value.getAsString();
      if (!name || name->empty() || name->ends_with(".json"))
        return fail("bad value for key 'name': expected a non-empty string "
                    "such as \"mygpu\"");
      profile.name = name->str();
      continue;
    }
    std::string text;
    if (std::optional<StringRef> string = value.getAsString())
      text = string->str();
    else if (std::optional<uint64_t> integer = value.getAsUINT64())
      text = std::to_string(*integer);
    else if (std::optional<double> number = value.getAsNumber())
      text = llvm::formatv("{0:e16}", *number).str();
    else
      return fail("bad value for device key '" + key +
                  "': expected a JSON number or a string such as \"8GiB\", "
                  "\"19.5T\" or \"336GB/s\"");
    if (!llvm::is_contained(kDeviceKeys, key))
      return fail("unknown key '" + key +
                  "'; expected name, memory, fp32, tf32, bf16, fp16, "
                  "bandwidth, link, launch or lean");
    if (llvm::Error bad = applyDeviceKey(profile, key, text, path))
      return fail(llvm::toString(std::move(bad)));
    given.insert(key);
  }
  if (!hasRequiredKeys(given))
    return fail("a user profile needs memory, fp32 and bandwidth, e.g. "
                "{\"memory\": \"8GiB\", \"fp32\": \"6.5T\", "
                "\"bandwidth\": \"336GB/s\", \"link\": \"12GB/s\"}");
  return profile;
}

llvm::Expected<DeviceProfile> memopt::parseDeviceProfile(StringRef spec) {
  llvm::SmallVector<StringRef> parts;
  spec.split(parts, ',');
  StringRef name = parts.front().trim();
  bool custom = name == "custom";
  bool file = name.ends_with_insensitive(".json");
  DeviceProfile profile;
  if (file) {
    llvm::Expected<DeviceProfile> read = readDeviceFile(name);
    if (!read)
      return read.takeError();
    profile = std::move(*read);
  } else if (std::optional<DeviceProfile> builtin =
                 builtinDeviceProfile(name)) {
    profile = std::move(*builtin);
  } else if (custom) {
    profile.name = "custom";
  } else {
    return error("unknown device '" + name + "'; expected " + kDeviceForms);
  }
  llvm::StringSet<> given;
  for (StringRef part : llvm::drop_begin(parts)) {
    auto [key, value] = part.split('=');
    key = key.trim();
    if (llvm::Error bad = applyDeviceKey(profile, key, value.trim(), spec))
      return std::move(bad);
    given.insert(key);
  }
  if (custom && !hasRequiredKeys(given))
    return error("device 'custom' needs memory, fp32 and bandwidth, e.g. "
                 "custom,memory=8GiB,fp32=6.5T,bandwidth=336GB/s,"
                 "link=12GB/s");
  if (llvm::Error invalid = verifyDeviceProfile(profile))
    return std::move(invalid);
  return profile;
}

llvm::Error memopt::verifyDeviceProfile(const DeviceProfile &profile) {
  auto invalid = [&](StringRef key, double value, StringRef rule) {
    return error(llvm::formatv("device '{0}': {1} must be {2}, got {3}",
                               profile.name, key, rule, value)
                     .str());
  };
  if (profile.memoryBytes == 0)
    return error("device '" + profile.name +
                 "': memory must be positive, got 0");
  for (auto [key, value] : {std::pair<StringRef, double>{"fp32",
                                                         profile.fp32Flops},
                            {"bandwidth", profile.memoryBandwidth}})
    if (!(value > 0) || !std::isfinite(value))
      return invalid(key, value, "a positive number");
  for (auto [key, value] :
       {std::pair<StringRef, double>{"tf32", profile.tf32Flops},
        {"bf16", profile.bf16Flops},
        {"fp16", profile.fp16Flops},
        {"link", profile.linkBandwidth},
        {"launch", profile.launchSeconds}})
    if (!(value >= 0) || !std::isfinite(value))
      return invalid(key, value, "a finite number >= 0");
  if (!(profile.leanSlowdown >= 1) || profile.leanSlowdown > 1e6)
    return invalid("lean", profile.leanSlowdown, "a factor from 1 to 1e6");
  return llvm::Error::success();
}

llvm::Error memopt::verifyBudget(uint64_t budget,
                                 const DeviceProfile &profile) {
  if (budget <= profile.memoryBytes)
    return llvm::Error::success();
  return error(llvm::formatv("the budget of {0} bytes ({1}) exceeds the "
                             "memory of device '{2}', {3} bytes ({4}): give "
                             "a budget of at most {3} bytes or a device "
                             "with more memory",
                             budget, formatBytes(budget), profile.name,
                             profile.memoryBytes,
                             formatBytes(profile.memoryBytes))
                   .str());
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
