//===- DeviceMemory.cpp - Tensor memory with a measured peak --------------===//

#include "memopt/Runtime/DeviceMemory.h"

#include <cstdlib>
#include <cstring>

namespace memopt::rt {

DeviceMemory::~DeviceMemory() {
  for (void *block : blocks)
    std::free(block);
}

void *DeviceMemory::allocate(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *data = std::aligned_alloc(kAlignment, padded);
  if (!data)
    return nullptr;
  std::memset(data, 0, padded);
  blocks.push_back(data);
  peak += bytes;
  return data;
}

} // namespace memopt::rt
