//===- DataOrder.cpp - The order in which training visits samples ---------===//

#include "memopt/Runtime/DataOrder.h"

#include <numeric>
#include <sstream>

namespace memopt::rt {

DataOrder::DataOrder(size_t numSamples, bool shuffle, uint64_t seed)
    : shuffle(shuffle), engine(seed), order(numSamples) {
  startEpoch();
}

void DataOrder::startEpoch() {
  std::ostringstream text;
  text << engine;
  current.engine = text.str();
  current.position = 0;
  std::iota(order.begin(), order.end(), 0u);
  if (!shuffle)
    return;
  for (size_t i = order.size(); i > 1; --i) {
    uint64_t bound = i; // j uniform in [0, i - 1]
    uint64_t threshold = (0 - bound) % bound;
    uint64_t r;
    do
      r = engine();
    while (r < threshold);
    std::swap(order[i - 1], order[r % bound]);
  }
}

const uint32_t *DataOrder::nextBatch(size_t batchSize) {
  if (current.position + batchSize > order.size()) {
    ++current.epoch;
    startEpoch();
  }
  const uint32_t *batch = order.data() + current.position;
  current.position += batchSize;
  return batch;
}

DataOrder::State DataOrder::state() const { return current; }

Status DataOrder::restore(const State &state) {
  std::istringstream text(state.engine);
  std::mt19937_64 restored;
  text >> restored;
  if (text.fail() || state.position > order.size())
    return Status::error("invalid data order state");
  engine = restored;
  startEpoch();
  current.epoch = state.epoch;
  current.position = state.position;
  return Status();
}

} // namespace memopt::rt
