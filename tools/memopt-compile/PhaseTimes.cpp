//===- PhaseTimes.cpp - Wall time of each compile phase -------------------===//

#include "PhaseTimes.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace memopt;

void PhaseTimes::add(llvm::StringRef phase, double seconds) {
  book(phase, seconds);
  printNew();
}

void PhaseTimes::book(llvm::StringRef phase, double seconds) {
  std::lock_guard<std::mutex> lock(mutex);
  addLocked(phase, seconds);
}

void PhaseTimes::printNew() {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[phase, seconds] : phases) {
    double &shown = printed[phase];
    if (verbose && seconds != shown)
      llvm::errs() << llvm::formatv("memopt-compile: {0,-10} {1,8:f3} s\n",
                                    phase, seconds - shown);
    shown = seconds;
  }
}

void PhaseTimes::addLocked(llvm::StringRef phase, double seconds) {
  auto it = llvm::find_if(phases, [&](const auto &entry) {
    return entry.first == phase;
  });
  if (it != phases.end()) {
    it->second += seconds;
    return;
  }
  // A new phase goes to its place in the pipeline's order, whatever thread
  // booked it first (the training and evaluation functions' passes run in
  // parallel); a phase not in the list goes last.
  auto rank = [](llvm::StringRef name) {
    static constexpr llvm::StringLiteral order[] = {
        "import",   "autodiff", "remat",    "schedule", "offload", "plan",
        "estimate", "lowering", "emission", "compile",  "nvcc",
        "link"};
    return static_cast<size_t>(llvm::find(order, name) - std::begin(order));
  };
  auto at = llvm::find_if(phases, [&](const auto &entry) {
    return rank(entry.first) > rank(phase);
  });
  phases.emplace(at, phase.str(), seconds);
}

namespace {

/// Times each pass. Adaptors (no argument) are skipped: the passes they
/// nest are timed themselves, on the threads that run them, so a phase
/// whose pass runs on several functions at once books their sum.
class PhaseInstrumentation : public PassInstrumentation {
public:
  explicit PhaseInstrumentation(PhaseTimes &times) : times(times) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument().empty())
      return;
    std::lock_guard<std::mutex> lock(mutex);
    starts[{pass, op}] = PhaseTimes::Clock::now();
  }
  void runAfterPass(Pass *pass, Operation *op) override { finish(pass, op); }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    finish(pass, op);
  }

private:
  void finish(Pass *pass, Operation *op) {
    llvm::StringRef argument = pass->getArgument();
    if (argument.empty())
      return;
    llvm::StringRef phase =
        llvm::StringSwitch<llvm::StringRef>(argument)
            .Cases({"memopt-set-target", "tg-amp", "tg-autodiff",
                    "canonicalize", "tg-recompute-casts",
                    "tg-fuse-elementwise"},
                   "autodiff")
            .Case("tg-remat", "remat")
            .Case("tg-offload", "offload")
            .Cases({"tg-annotate-workspaces", "tg-schedule"}, "schedule")
            .Cases({"tg-plan-memory", "convert-tg-to-mbuf"}, "plan")
            .Case("convert-tg-to-emitc", "lowering")
            .Default(argument);
    std::lock_guard<std::mutex> lock(mutex);
    auto it = starts.find({pass, op});
    if (it == starts.end())
      return;
    times.book(phase, PhaseTimes::since(it->second));
    starts.erase(it);
  }

  PhaseTimes &times;
  std::mutex mutex;
  std::map<std::pair<Pass *, Operation *>, PhaseTimes::Clock::time_point>
      starts;
};

} // namespace

void PhaseTimes::instrument(PassManager &manager) {
  manager.addInstrumentation(std::make_unique<PhaseInstrumentation>(*this));
}

llvm::json::Array PhaseTimes::toJSON() const {
  llvm::json::Array array;
  for (const auto &[phase, seconds] : phases)
    array.push_back(llvm::json::Object{{"phase", phase}, {"seconds", seconds}});
  return array;
}
