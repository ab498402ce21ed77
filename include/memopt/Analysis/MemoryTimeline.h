//===- MemoryTimeline.h - Live bytes over the step, by category -*- C++ -*-===//
//
// How much memory the training step holds while each op of its schedule
// runs, split by what it is: the persistent buffers (weights and BatchNorm
// statistics, optimizer state, inputs and outputs) and the temporaries
// (activations made by forward ops or recreated by tg-remat's clones,
// gradients made by the other backward ops, optimizer temporaries, library
// workspace). A temporary lives from the op
// that makes it to its last use (MemorySimulator), a workspace during its
// op, each at the arena bytes the step's arena plan (the one tg-plan-memory
// converts the step with, planStepArena) gave it; bytes that buffers share
// (in-place writes, operands computed in their concat slice) count once.
// The peak of the temporaries is the smallest arena any plan of this
// schedule can have; the static plan reaches it up to fragmentation.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_MEMORYTIMELINE_H
#define MEMOPT_ANALYSIS_MEMORYTIMELINE_H

#include "memopt/Analysis/ArenaPlan.h"
#include "memopt/Analysis/StepPhases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace memopt {

enum class MemoryCategory : unsigned {
  Weights,        // tg.param and tg.state arguments (updated in place)
  OptimizerState, // tg.opt_state arguments and optimizer temporaries
  Data,           // inputs, target, step number, forward outputs
  Activations,    // temporaries made by forward ops and their tg-remat
                  // clones (forward values recomputed in the backward)
  Gradients,      // temporaries made by the other backward ops
  Offloading,     // device bytes of a value being copied to the host
                  // (tg.offload_start to its tg.offload_wait)
  Prefetched,     // device copies of offloaded values (tg.prefetch_start)
  Workspace,      // library scratch memory of the running op
};
constexpr unsigned kNumMemoryCategories = 8;

/// The legend name of the host-resident offloaded bytes, which the
/// timeline counts apart from the device categories (Point::hostBytes).
constexpr llvm::StringLiteral kOffloadedHostName = "offloaded (host)";

llvm::StringRef memoryCategoryName(MemoryCategory category);

class MemoryTimeline {
public:
  /// One op of the schedule. The timeline is a snapshot: it names the op
  /// rather than pointing to it, so it outlives the lowering of the step.
  struct Point {
    std::string opName; // "tg.conv"
    std::string node;   // the ONNX node of its location ("" if none)
    StepPhase phase;
    std::array<uint64_t, kNumMemoryCategories> bytes{};

    /// Activations, gradients, optimizer temporaries and workspace: what
    /// the arena holds.
    uint64_t transientBytes = 0;

    /// Host copies of offloaded values (tg.offload_start results) held
    /// while the op runs, from their offload to their last prefetch: in
    /// the pinned host pool, not on the device, so not in total().
    uint64_t hostBytes = 0;

    uint64_t total() const;
  };

  /// The timeline of `step`'s body (still in tg ops) in its op order, with
  /// the workspaces tg-annotate-workspaces recorded, placed by `plan` (the
  /// arena plan of `step`).
  static MemoryTimeline compute(mlir::func::FuncOp step,
                                const StepPhases &phases,
                                const ArenaPlan &plan);

  /// A buffer live at the peak: what holds the peak's temporaries.
  struct PeakBuffer {
    std::string node;   // the ONNX node of the op that made it ("" if none)
    std::string opName; // that op ("tg.conv"); for a workspace, its op
    /// The bytes it adds to the peak: its own, less those it shares with
    /// a buffer listed before it (an in-place write, a concat slice).
    uint64_t bytes = 0;
    MemoryCategory category;
    bool recomputed = false; // made by a clone of tg-remat
    /// Positions in the schedule: the op that made it and its last reader
    /// (equal for a workspace).
    unsigned first = 0, last = 0;
  };

  llvm::ArrayRef<Point> points() const { return timeline; }
  /// The temporaries live at the peak, the largest first (ties in schedule
  /// order); their bytes sum to transientPeakBytes().
  llvm::ArrayRef<PeakBuffer> peakBuffers() const { return atPeak; }
  /// The bytes of a persistent category (constant over the step).
  uint64_t persistentBytes(MemoryCategory category) const {
    return persistent[static_cast<unsigned>(category)];
  }
  /// The persistent bytes of `step` by category, without a plan: role
  /// arguments and forward outputs (what compute() counts).
  static std::array<uint64_t, kNumMemoryCategories>
  persistentBytesOf(mlir::func::FuncOp step);
  /// Whether the step offloads values to the host (tg-offload).
  bool offloads() const { return offloading; }
  /// The most host bytes of offloaded values held at once.
  uint64_t hostPeakBytes() const;
  /// The op with the most live bytes (the first of equals); 0 when empty.
  unsigned peakIndex() const { return peak; }
  uint64_t peakBytes() const;
  /// The temporaries at the peak (activation_peak_bytes of the report).
  uint64_t transientPeakBytes() const;

private:
  std::vector<Point> timeline;
  std::vector<PeakBuffer> atPeak;
  std::array<uint64_t, kNumMemoryCategories> persistent{};
  unsigned peak = 0;
  bool offloading = false;
};

/// The bytes of `step`'s arguments that a trainer with `scalarsOnHost`
/// (the CUDA one) keeps in host memory, not on the device: the step number
/// and the seed (the generated step reads them on the host).
uint64_t hostScalarBytes(mlir::func::FuncOp step, bool scalarsOnHost);

/// The bytes beside the arena that the predicted peak counts (the report's
/// predicted_peak_bytes = arena + these): weights, optimizer state, inputs
/// and outputs, less hostScalarBytes. tg-remat plans the arena to the
/// budget less these. `scalarsOnHost`: the target is cuda.
uint64_t persistentDeviceBytes(mlir::func::FuncOp step, bool scalarsOnHost);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_MEMORYTIMELINE_H
