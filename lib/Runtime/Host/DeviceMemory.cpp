//===- DeviceMemory.cpp - Tensor memory with a measured peak --------------===//

#include "memopt/Runtime/DeviceMemory.h"

#include "memopt/Runtime/Device.h"

#include <algorithm>

namespace memopt::rt {

DeviceMemory::~DeviceMemory() {
  for (void *block : blocks)
    device::release(block);
}

void *DeviceMemory::allocate(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *data = device::allocate(padded);
  if (!data)
    return nullptr;
  blocks.push_back(data);
  peak += bytes;
  return data;
}

void DeviceMemory::synchronize() {
  device::synchronize();
  driverPeak = std::max(driverPeak, device::driverUsedBytes());
}

} // namespace memopt::rt
