//===- DeviceProfile.h - What the cost model knows of a device --*- C++ -*-===//
//
// A device profile is the handful of numbers the cost model predicts with
// (docs/cost-model.md): memory capacity, peak FLOP/s per precision, memory
// bandwidth, host-link bandwidth and a per-kernel launch overhead. Profiles
// are chosen by name and may be overridden key by key:
//
//   h100                          a built-in profile
//   rtx2060,memory=6GiB           a built-in profile with one value changed
//   custom,memory=8GiB,fp32=6.5T,bandwidth=336GB/s,link=12GB/s
//   mygpu.json                    a user profile (the same keys, in JSON)
//
// The numbers of the built-in profiles and their sources are in
// docs/cost-model.md. The profile reaches the passes as the module's
// #memopt.target (memopt/Dialect/Memopt/IR/MemoptDialect.h), which
// memopt-set-target builds from this syntax; none hard-codes a number.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_DEVICEPROFILE_H
#define MEMOPT_ANALYSIS_DEVICEPROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Type;
} // namespace mlir

namespace memopt {

struct DeviceProfile {
  std::string name;
  uint64_t memoryBytes = 0;
  /// Peak FLOP/s: plain fp32, and the tensor-core rates for tf32, bf16 and
  /// fp16 (0 where the device has none; fp32 is used then).
  double fp32Flops = 0;
  double tf32Flops = 0;
  double bf16Flops = 0;
  double fp16Flops = 0;
  /// Device memory bandwidth and host<->device bandwidth (one direction),
  /// bytes per second.
  double memoryBandwidth = 0;
  double linkBandwidth = 0;
  /// Fixed cost of starting one kernel, seconds.
  double launchSeconds = 0;
  /// How many times its roofline time a convolution takes on its lean
  /// workspace (tg-remat lean-workspaces; at least 1): cuDNN's algorithms
  /// that need less scratch, or slices, are slower than the one the full
  /// workspace allows.
  double leanSlowdown = 2;

  /// The peak FLOP/s for arithmetic on `elementType` (f16, bf16 or f32).
  double peakFlops(mlir::Type elementType) const;
};

/// The names of the built-in profiles, in the order the docs list them.
llvm::ArrayRef<llvm::StringRef> builtinDeviceNames();

/// One line on the built-in profile `name` (what it models), for
/// `memopt-compile --device=list`; "" for any other name.
llvm::StringRef builtinDeviceDescription(llvm::StringRef name);

/// The built-in profile `name`, if there is one.
std::optional<DeviceProfile> builtinDeviceProfile(llvm::StringRef name);

/// The built-in profile a target uses without --device: `cpu` on the cpu
/// backend, `a100-40g` on cuda (docs/cost-model.md says why).
llvm::StringRef defaultDeviceName(bool cuda);

/// Fails unless every number of `profile` is usable: memory, fp32 and
/// bandwidth positive, the other rates, link and launch finite and not
/// negative, lean from 1 to 1e6. The message names the key and the
/// accepted values.
llvm::Error verifyDeviceProfile(const DeviceProfile &profile);

/// Fails unless a `budget` (bytes; 0: none) fits `profile`'s memory: a
/// step planned for more than the device holds cannot run on it.
llvm::Error verifyBudget(uint64_t budget, const DeviceProfile &profile);

/// Parses `NAME[,KEY=VALUE]...` (see the file comment). Keys: memory
/// (a size), fp32, tf32, bf16, fp16 (FLOP/s: 19.5T, 6.5e12), bandwidth and
/// link (bytes/s: 336GB/s, 1.5TB/s), launch (seconds: 5us, 0), lean (a
/// factor of at least 1: 2, 1.5). `custom`
/// starts from nothing and needs memory, fp32 and bandwidth. A NAME that
/// ends in `.json` is a user profile read from that file: an object with
/// an optional "name" (default: the file's stem) and the keys above,
/// whose values are JSON numbers in bytes, FLOP/s, bytes/s and seconds or
/// strings in the syntax above ("8GiB"); it needs memory, fp32 and
/// bandwidth too, and refuses other keys. The error names the key and
/// the accepted forms.
llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef spec);

/// Parses a byte size: an integer or decimal number with an optional unit
/// B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of
/// 1024): 8GiB, 750MB, 1.5GB, 1073741824. The error names the accepted
/// forms.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef text);

/// `bytes` for people: "1.50 GiB", "750.0 MiB", "512 B".
std::string formatBytes(uint64_t bytes);

/// One line for people: "h100 (80.00 GiB, fp32 67 TFLOP/s, 3350 GB/s)".
std::string describeDeviceProfile(const DeviceProfile &profile);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_DEVICEPROFILE_H
