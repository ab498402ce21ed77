//===- Program.h - Interface between generated code and the trainer -*- C++ -*-===//
//
// memopt-compile emits one C++ file per model that defines a `Program`: the
// signature of the compiled training step (every argument and result with its
// role, ONNX name, element type and shape), the arenas (size, memory space,
// device), the name of the ONNX file beside the binary that holds the
// initial weights, and the step function itself. The
// training binary's `main` is `memopt::rt::trainerMain(argc, argv,
// program)`; everything else (data loading, the training loop, checkpoints,
// weight I/O, reports) lives in the runtime and never depends on the model.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_PROGRAM_H
#define MEMOPT_RUNTIME_PROGRAM_H

#include "memopt/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>

namespace memopt::rt {

/// What a step argument or result is; mirrors the tg role attributes
/// (tg.input, tg.target, tg.param, tg.state, tg.opt_state, tg.step,
/// tg.output, tg.seed, tg.loss_scale).
enum class Role : int32_t {
  Input = 0,    // a data input (one batch of images)
  Target = 1,   // the training target of the batch
  Param = 2,    // a trainable ONNX initializer
  State = 3,    // a non-trainable ONNX initializer (BatchNorm running stats)
  OptState = 4, // optimizer state of one parameter ("<param>.<slot>")
  Step = 5,     // the 1-based step number (rank-0 int64)
  Output = 6,   // a forward output; the loss is the result named by lossIndex
  Seed = 7,     // the random seed of the step (rank-0 int64, read by dropout)
  LossScale = 8, // the scale of the loss's gradient (rank-0 f32; fp16
                 // loss scaling, tg-loss-scale), set before each step
};

// ElementType (the element type of a tensor) is in Tensor.h: the kernels'
// workspace queries take it too.

/// Where an arena lives (mbuf's memory spaces).
enum class MemorySpace : int32_t {
  Device = 0,     // the memory of the device the kernels run on
  PinnedHost = 1, // page-locked host memory the device copies to and from
};

/// The largest arena index and device number a program can name: arenas
/// are numbered 0 .. numArenas - 1 and numArenas is an int; an arena's
/// device and a transfer's peer (a CUDA device, an MPI rank) are ints. The
/// mbuf dialect's verifier enforces both.
inline constexpr int64_t kMaxArenaIndex = INT32_MAX - 1;
inline constexpr int64_t kMaxDevice = INT32_MAX;

/// One arena of the program: the trainer allocates `bytes` (64-byte
/// aligned) of `space` for device `device` before the first step.
struct ArenaSpec {
  size_t bytes;
  MemorySpace space;
  int device;
};

struct TensorSpec {
  const char *name; // ONNX name (param/state), slot name (opt state), or I/O name
  Role role;
  ElementType elementType;
  int rank;
  int64_t dims[kMaxRank];

  int64_t numElements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= dims[i];
    return n;
  }
};

/// Runs one training step. `args[i]` points to the buffer of `args[i]` of the
/// program, `results[i]` to the buffer of result i; a result that updates a
/// param/state/opt_state may be given the same buffer as the argument of that
/// name (the step supports in-place updates). `arenas[i]` holds
/// `Program::arenas[i].bytes` bytes, 64-byte aligned, for the temporaries
/// that the memory plan placed there.
using StepFunction = void (*)(void *const *args, void *const *results,
                              void *const *arenas);

struct Program {
  const char *modelName;          // for messages and reports
  const TensorSpec *args;
  int numArgs;
  const TensorSpec *results;
  int numResults;
  int lossIndex;                  // the rank-0 loss among the results
  const ArenaSpec *arenas;        // the arenas the step's temporaries use
  int numArenas;
  /// The ONNX model the step was compiled from, with its initial weights
  /// (memopt-compile writes it beside the binary, ModelWeights.h): a file
  /// name, looked up in the directory of the running executable, or an
  /// absolute path. The trainer's `--weights FILE` replaces it.
  const char *weightsFile;
  StepFunction step;
  // Fields after `step` are optional: generated code that leaves them out of
  // its aggregate initializer gets null, and the trainer then refuses the
  // command-line option that needs them.

  /// The learning rate the step's optimizer updates read, initialised to
  /// memopt-compile's `--lr`, or null when it is compiled in. The trainer
  /// stores `--lr` here once, before the first step. A double, as the
  /// compiled value is, so that `--lr X` at run time and `--lr=X` at compile
  /// time train bit-identically.
  double *learningRate;
  /// Computes the loss of one batch without updating anything (BatchNorm
  /// with its running statistics, like PyTorch's `model.eval()`), for
  /// `--val-data`; null when the binary was compiled without evaluation.
  /// It takes the same `args` as `step` (it may ignore the Step argument)
  /// and the same result indexing, but only the Output results (the loss
  /// among them) have buffers: the others are null. It writes no argument.
  StepFunction evalStep;
  /// 0 when targets are images like the inputs (scaled to [0, 1]); else the
  /// number of classes C of the label maps that the target holds
  /// (--loss=ce|dice with C > 1): the trainer reads target files as integer
  /// class indices, stores them as floats and rejects any outside [0, C).
  int64_t targetClasses;
  /// A pipeline stage (memopt-compile --stages=N, StageGroup.h): the specs
  /// of the data set's input and target batches, which the stage's own
  /// arguments may lack (only the stages that read them take them); the
  /// stage's lossIndex is -1 unless it computes the loss. Null in a
  /// one-process binary.
  const TensorSpec *dataInput;
  const TensorSpec *dataTarget;
  /// The OpenMP thread count the CPU plan sized oneDNN's scratchpads for
  /// (tg-annotate-workspaces queries oneDNN in the compiler, and a
  /// primitive's scratchpad grows with its threads). The trainer runs the
  /// kernels with exactly this many threads; 0 (CUDA, or no workspaces):
  /// OMP_NUM_THREADS decides.
  int threads;
  /// A multi-process binary: the bytes of the largest tensor its step sends,
  /// receives, averages or gathers (Transfer.h), which sizes the CUDA
  /// exchange's pinned staging buffer (Exchange.h); 0 in a one-process
  /// binary.
  size_t exchangeBytes;
  /// Why the binary has no evalStep although memopt-compile builds one:
  /// the model uses random numbers other than as a dropout or drop-path
  /// mask (tg.eval_refusal, docs/passes/autodiff.md). The trainer refuses
  /// --val-data with it; null otherwise.
  const char *evalRefusal;
};

/// The training binary's command line (docs/contract.md): loads data, initial
/// weights from the weights file (or a checkpoint), runs the steps, writes
/// --out, checkpoints and reports. Returns the process exit code.
int trainerMain(int argc, char **argv, const Program &program);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_PROGRAM_H
