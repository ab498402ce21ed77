//===- DeviceMemory.h - Tensor memory with a measured peak ------*- C++ -*-===//
//
// Every byte the trainer hands to the compiled step (the arena, one buffer
// per argument and result) comes from here, so that the run report's
// `measured_peak_bytes` is exactly what the step needed, comparable to the
// compile report's `predicted_peak_bytes`. Host-side staging (decoding an
// image file, serializing a model, the host copies of device tensors) is
// not device memory and is not counted. The memory itself comes from the
// backend the binary links (memopt/Runtime/Device.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_DEVICEMEMORY_H
#define MEMOPT_RUNTIME_DEVICEMEMORY_H

#include <cstddef>
#include <vector>

namespace memopt::rt {

class DeviceMemory {
public:
  /// Every allocation is aligned to this many bytes.
  static constexpr size_t kAlignment = 64;

  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  ~DeviceMemory();

  /// `bytes` zero-filled bytes, kAlignment-aligned; null for 0 bytes or
  /// when the device is out of memory.
  void *allocate(size_t bytes);

  /// The high-water mark of the allocated bytes, counted as requested (the
  /// padding to kAlignment is not counted). Allocations live until the
  /// DeviceMemory is destroyed, so this is also the current total.
  size_t peakBytes() const { return peak; }

  /// Waits for the device (device::synchronize) and samples the memory the
  /// driver reports in use; driverPeakBytes() is the largest sample.
  void synchronize();
  size_t driverPeakBytes() const { return driverPeak; }

private:
  std::vector<void *> blocks;
  size_t peak = 0;
  size_t driverPeak = 0;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_DEVICEMEMORY_H
