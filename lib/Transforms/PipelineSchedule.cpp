//===- PipelineSchedule.cpp - Microbatch orders of pipeline stages --------===//
//
// The static schedules of tg-microbatch (PipelineSchedule.h,
// docs/passes/microbatch.md).
//
//===----------------------------------------------------------------------===//

#include "PipelineSchedule.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace memopt;

StringRef memopt::stringifyPipelineSchedule(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::GPipe ? "gpipe" : "1f1b";
}

std::optional<PipelineSchedule>
memopt::parsePipelineSchedule(StringRef name) {
  return llvm::StringSwitch<std::optional<PipelineSchedule>>(name)
      .Case("gpipe", PipelineSchedule::GPipe)
      .Case("1f1b", PipelineSchedule::OneFOneB)
      .Default(std::nullopt);
}

SmallVector<PipelineUnit> memopt::scheduleUnits(PipelineSchedule schedule,
                                                unsigned stage,
                                                unsigned stages,
                                                unsigned microbatches,
                                                bool hasBackward) {
  SmallVector<PipelineUnit> units;
  if (!hasBackward || schedule == PipelineSchedule::GPipe) {
    for (unsigned k = 0; k < microbatches; ++k)
      units.push_back({false, k});
    if (hasBackward)
      for (unsigned k = 0; k < microbatches; ++k)
        units.push_back({true, k});
    return units;
  }
  // PipeDream-flush: the later a stage, the sooner its first backward
  // arrives; the last stage alternates from the start.
  unsigned warmup = std::min(stages - 1 - stage, microbatches);
  for (unsigned k = 0; k < warmup; ++k)
    units.push_back({false, k});
  for (unsigned k = 0; k < microbatches; ++k) {
    if (warmup + k < microbatches)
      units.push_back({false, warmup + k});
    units.push_back({true, k});
  }
  return units;
}

unsigned memopt::inFlight(ArrayRef<PipelineUnit> units) {
  unsigned live = 0, most = 0;
  for (const PipelineUnit &unit : units) {
    if (unit.backward)
      --live;
    else
      most = std::max(most, ++live);
  }
  return most;
}

std::string memopt::formatUnits(ArrayRef<PipelineUnit> units) {
  std::string text;
  for (const PipelineUnit &unit : units) {
    if (!text.empty())
      text += ' ';
    text += unit.backward ? 'B' : 'F';
    text += std::to_string(unit.microbatch);
  }
  return text;
}

FailureOr<SmallVector<SmallVector<unsigned>>>
memopt::orderTransfers(ArrayRef<SmallVector<ProgramEvent>> programs) {
  unsigned n = programs.size();
  SmallVector<unsigned> pos(n, 0);
  SmallVector<SmallVector<unsigned>> order(n);
  // Where a stage's next postponed send goes in its order: right after
  // its last transfer, or where it was postponed, whichever is later (so
  // that the local work after it, which did not need it, does not wait).
  SmallVector<unsigned> slot(n, 0);
  // Postponed sends by key: their stage and event.
  std::map<int64_t, std::pair<unsigned, unsigned>> postponed;
  auto at = [&](unsigned s) -> const ProgramEvent * {
    return pos[s] < programs[s].size() ? &programs[s][pos[s]] : nullptr;
  };
  auto perform = [&](unsigned s) {
    order[s].push_back(pos[s]++);
    slot[s] = order[s].size();
  };
  while (true) {
    // Local work runs until a transfer.
    for (unsigned s = 0; s < n; ++s)
      while (const ProgramEvent *event = at(s))
        if (!event->key)
          order[s].push_back(pos[s]++);
        else
          break;
    // Rendezvous: a receive whose send is waiting or postponed.
    bool matched = false;
    for (unsigned r = 0; r < n; ++r) {
      const ProgramEvent *event = at(r);
      if (!event || event->send)
        continue;
      int64_t key = *event->key;
      if (auto it = postponed.find(key); it != postponed.end()) {
        auto [s, index] = it->second;
        order[s].insert(order[s].begin() + slot[s]++, index);
        postponed.erase(it);
      } else {
        unsigned s = 0;
        while (s < n && !(s != r && at(s) && at(s)->send && at(s)->key == key))
          ++s;
        if (s == n)
          continue;
        perform(s);
      }
      perform(r);
      matched = true;
    }
    if (matched)
      continue;
    if (llvm::all_of(llvm::seq(0u, n),
                     [&](unsigned s) { return at(s) == nullptr; }))
      break;
    // Every stage waits: the highest one waiting on a send goes on, and
    // sends when its receiver gets there.
    unsigned s = n;
    while (s > 0 && !(at(s - 1) && at(s - 1)->send))
      --s;
    if (s-- == 0)
      return failure();
    int64_t key = *at(s)->key;
    slot[s] = order[s].size();
    postponed[key] = {s, pos[s]++};
  }
  if (!postponed.empty())
    return failure();
  return order;
}
