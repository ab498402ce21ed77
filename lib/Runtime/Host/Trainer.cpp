//===- Trainer.cpp - The training binary's main ---------------------------===//
//
// trainerMain: parse the command line, check every input and output before
// the first step, then run the steps, validating, checkpointing and logging
// as asked, and finally write --out, --report and --trace.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Program.h"

#include "StepBuffers.h"
#include "memopt/Runtime/Checkpoint.h"
#include "memopt/Runtime/CommandLine.h"
#include "memopt/Runtime/DataOrder.h"
#include "memopt/Runtime/Dataset.h"
#include "memopt/Runtime/Device.h"
#include "memopt/Runtime/FileIO.h"
#include "memopt/Runtime/LossScale.h"
#include "memopt/Runtime/ModelWeights.h"
#include "memopt/Runtime/OutputPaths.h"
#include "memopt/Runtime/Random.h"
#include "memopt/Runtime/RunReport.h"
#include "memopt/Runtime/StageGroup.h"
#include "memopt/Runtime/StepTrace.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace memopt::rt {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRunFailure = 1;
constexpr int kUsageFailure = 2;

// The rank of this process in a pipeline run, for its messages; -1: one
// process.
int messageRank = -1;
// Whether the run failed on every rank at once (Status::onEveryRank).
bool failedOnEveryRank = false;

int fail(const Status &status, int code) {
  failedOnEveryRank = status.onEveryRank();
  if (failedOnEveryRank && messageRank > 0)
    return code;
  if (messageRank >= 0)
    std::fprintf(stderr, "error: rank %d: %s\n", messageRank,
                 status.message().c_str());
  else
    std::fprintf(stderr, "error: %s\n", status.message().c_str());
  std::fflush(stderr);
  return code;
}

/// The flags that the compiled program may not support.
Status checkProgramOptions(const Program &program,
                           const TrainerOptions &options, StageGroup *group) {
  if (group && !options.tracePath.empty())
    return Status::error("--trace: not available for pipeline stages yet "
                         "(each process would trace its own stage)");
  if (options.hasLearningRate && !program.learningRate)
    return Status::error("--lr: this binary was compiled with a fixed "
                         "learning rate; recompile it with memopt-compile "
                         "--lr=F");
  if (!group && options.exchange)
    return Status::error("--exchange: this binary runs one process and "
                         "exchanges no tensors; drop --exchange");
  if (options.weightsPath.empty() && !program.weightsFile)
    return Status::error("--weights: this binary names no file of initial "
                         "weights (memopt-compile -o names one); pass "
                         "--weights FILE.onnx");
  if (!options.valDataDir.empty() && !program.evalStep &&
      program.evalRefusal)
    return Status::error(std::string("--val-data: ") + program.evalRefusal);
  if (!options.valDataDir.empty() && !program.evalStep)
    return Status::error("--val-data: this binary was compiled without "
                         "evaluation support");
  return Status();
}

class Trainer {
public:
  Trainer(const Program &program, const TrainerOptions &options,
          StageGroup *group)
      : program(program), options(options), group(group), start(Clock::now()) {
    replicas = group ? group->replicas() : 1;
    replica = group ? group->replica() : 0;
    // Each stage checkpoints its own tensors, in a directory of its own.
    checkpointDir = options.checkpointDir;
    if (group && !checkpointDir.empty())
      checkpointDir += "/rank" + std::to_string(group->rank());
  }

  /// Everything before the first step: outputs, data, buffers, initial
  /// values or the checkpoint to resume from.
  Status setUp();
  /// The steps.
  Status train();
  /// --out, the final checkpoint, --report, --trace.
  Status finish();

private:
  Status checkOutputs();
  Status openData();
  Status resume();
  /// The error for a non-finite `what` (a loss) `when` ("at step 3").
  Status diverged(const char *what, double value, const std::string &when) const;
  Status runStep(int64_t step);
  Status validate(int64_t step);
  Status checkpoint(int64_t step);
  void log(int64_t step);
  /// Whether this process prints progress and writes --out and --report:
  /// rank 0 of several, or the only process.
  bool primary() const { return !group || group->rank() == 0; }
  /// With pipeline stages: `steps` equal on every rank, or the error.
  Status checkSameStep(int64_t step, const std::string &checkpoint);
  /// With pipeline stages: every stage's weights, received on rank 0 (sent
  /// by the others) after this stage's own.
  Status gatherWeights(std::vector<TensorBuffer> &all,
                       std::vector<std::vector<unsigned char>> &storage);
  double seconds() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  const Program &program;
  const TrainerOptions &options;
  StageGroup *group; // null: one process
  std::string checkpointDir;
  std::string weightsPath; // the initial weights, the model --out writes
  int lossRank = 0; // the stage that computes the loss
  // Data parallelism: every replica draws the same global batch of
  // globalBatch = replicas x the step's batch, and trains on slice
  // `replica` of it.
  int replicas = 1, replica = 0;
  int64_t globalBatch = 0;
  Clock::time_point start;
  DeviceMemory memory;
  detail::StepBuffers buffers;
  Dataset data, valData;
  std::optional<DataOrder> order;
  int64_t stepsPerEpoch = 0, totalSteps = 0;
  TrainingProgress progress;
  int64_t resumedFrom = 0;
  std::string lastCheckpoint; // empty: none written or resumed from
  std::vector<RunRecord::Validation> validations;
  Trace trace;
  int64_t loggedStep = 0;
  double loggedAt = 0.0;
  // fp16 loss scaling (a step with a LossScale argument): the scale, and
  // its state as a checkpointed tensor.
  std::optional<LossScaler> scaler;
  TensorSpec lossScaleSpec{};
  // Where this run's training began (a resumed run: after the checkpoint),
  // for the time left at the average step time so far.
  int64_t startStep = 0;
  double startedAt = 0.0;
};

Status Trainer::checkOutputs() {
  // All at once: --out, --report and --trace must be three different files,
  // none of them the initial weights.
  if (Status status = rt::checkOutputs(
          {{"--out", options.outPath},
           {"--report", options.reportPath},
           {"--trace", options.tracePath}},
          {{"the initial weights", weightsPath}});
      !status.ok())
    return status;
  if (!checkpointDir.empty()) {
    if (group)
      if (Status status = prepareCheckpointDirectory(options.checkpointDir);
          !status.ok())
        return status;
    return prepareCheckpointDirectory(checkpointDir);
  }
  return Status();
}

Status Trainer::openData() {
  auto sampleShape = [&](Role role) {
    // A pipeline stage: the data's shapes, whichever arguments it takes.
    if (const TensorSpec *spec =
            role == Role::Input ? program.dataInput : program.dataTarget)
      return Dims(spec->dims + 1, spec->rank - 1);
    for (int i = 0; i < program.numArgs; ++i)
      if (program.args[i].role == role)
        return Dims(program.args[i].dims + 1, program.args[i].rank - 1);
    return Dims();
  };
  Dims inputShape = sampleShape(Role::Input);
  Dims targetShape = sampleShape(Role::Target);
  globalBatch = buffers.batchSize * replicas;
  auto open = [&](const std::string &dir, Dataset &dataset) {
    if (Status status = Dataset::open(dir, inputShape, targetShape, dataset,
                                      program.targetClasses);
        !status.ok())
      return status;
    if (dataset.size() < static_cast<size_t>(buffers.batchSize))
      return Status::error(dir + ": " + std::to_string(dataset.size()) +
                           " samples, fewer than the batch size " +
                           std::to_string(buffers.batchSize));
    if (&dataset == &data &&
        dataset.size() < static_cast<size_t>(globalBatch))
      return Status::error(dir + ": " + std::to_string(dataset.size()) +
                           " samples, fewer than the global batch " +
                           std::to_string(globalBatch) + " of " +
                           std::to_string(replicas) + " replicas");
    return Status();
  };
  if (Status status = open(options.dataDir, data); !status.ok())
    return status;
  if (!options.valDataDir.empty())
    if (Status status = open(options.valDataDir, valData); !status.ok())
      return status;
  stepsPerEpoch = static_cast<int64_t>(data.size()) / globalBatch;
  totalSteps =
      options.steps > 0 ? options.steps : options.epochs * stepsPerEpoch;
  order.emplace(data.size(), options.shuffle, options.seed);
  progress.numSamples = data.size();
  progress.batchSize = static_cast<uint64_t>(globalBatch);
  if (group)
    progress.layout = {static_cast<uint32_t>(group->rank()),
                       static_cast<uint32_t>(group->size()),
                       static_cast<uint32_t>(group->stage()),
                       static_cast<uint32_t>(group->stages()),
                       static_cast<uint32_t>(group->replica()),
                       static_cast<uint32_t>(group->replicas())};
  progress.seed = options.seed;
  progress.shuffle = options.shuffle;
  return Status();
}

Status Trainer::resume() {
  std::string newest, previous;
  if (Status status = findCheckpoints(checkpointDir, newest, previous);
      !status.ok())
    return status;
  if (newest.empty()) {
    if (Status status = checkSameStep(0, checkpointDir); !status.ok())
      return status;
    if (primary())
      std::printf("no checkpoint in %s: starting at step 1\n",
                  options.checkpointDir.c_str());
    return Status();
  }
  TrainingProgress restored;
  if (Status status = readCheckpoint(newest, restored, buffers.persistent);
      !status.ok()) {
    if (previous.empty())
      return status;
    return Status::error(status.message() + "; the previous checkpoint " +
                         previous +
                         " may be intact: remove the corrupt one to resume "
                         "from it");
  }
  // The seed orders the samples when shuffling and draws dropout masks.
  bool seeded = restored.shuffle || buffers.seed;
  if (restored.numSamples != progress.numSamples ||
      restored.shuffle != progress.shuffle ||
      (seeded && restored.seed != progress.seed))
    return Status::error(
        newest + ": written for " + std::to_string(restored.numSamples) +
        " samples " +
        (restored.shuffle ? "shuffled" : "with --no-shuffle") +
        (seeded ? " with --seed " + std::to_string(restored.seed) : "") +
        "; resume with the same --data, --seed and --no-shuffle");
  if (restored.batchSize != progress.batchSize)
    return Status::error(
        newest + ": written by a binary that trains batches of " +
        std::to_string(restored.batchSize) + ", this one trains batches of " +
        std::to_string(progress.batchSize) +
        "; resume with the binary compiled with --batch=" +
        std::to_string(restored.batchSize) + " or use another --checkpoint-dir");
  // Each rank resumes from its own checkpoint: with ZeRO the optimizer
  // state shards of two replicas have the same shapes, so a swapped
  // rank<i>/ directory would otherwise train on with another's moments.
  if (!(restored.layout == progress.layout))
    return Status::error(
        newest + ": written by " + restored.layout.describe() +
        ", this process is " + progress.layout.describe() +
        "; put each rank's checkpoints back in its own rank<i>/ directory, "
        "run with the layout that wrote them, or use another "
        "--checkpoint-dir");
  if (restored.step > totalSteps)
    return Status::error(newest + ": at step " + std::to_string(restored.step) +
                         ", past the " + std::to_string(totalSteps) +
                         " steps of this run");
  if (Status status = order->restore(restored.order); !status.ok())
    return Status::error(newest + ": " + status.message());
  if (Status status = checkSameStep(restored.step, newest); !status.ok())
    return status;
  progress = restored;
  resumedFrom = progress.step;
  lastCheckpoint = newest;
  if (primary())
    std::printf("resumed from %s at step %lld\n",
                group ? options.checkpointDir.c_str() : newest.c_str(),
                static_cast<long long>(progress.step));
  return Status();
}

Status Trainer::checkSameStep(int64_t step, const std::string &checkpoint) {
  if (!group)
    return Status();
  std::vector<int64_t> steps = group->allGather(step);
  for (size_t rank = 0; rank < steps.size(); ++rank)
    if (steps[rank] != step)
      return Status::errorOnEveryRank(
          checkpoint + ": at step " + std::to_string(step) + ", but rank " +
          std::to_string(rank) + "'s newest checkpoint is at step " +
          std::to_string(steps[rank]) +
          " (a run ended between the stages' checkpoints); remove the "
          "newer checkpoints so that every rank<i>/ directory ends at the "
          "same step");
  return Status();
}

Status Trainer::setUp() {
  weightsPath = initialWeightsPath(program, options.weightsPath);
  if (Status status = checkOutputs(); !status.ok())
    return status;
  // The exchange first: a CUDA rank's GPU is its choice.
  if (group)
    if (Status status = group->startExchange(program, options.exchange);
        !status.ok())
      return status;
  if (Status status = device::open(); !status.ok())
    return status;
  // The plan sized oneDNN's scratchpads for the compiler's threads; with
  // more, a primitive would want more scratch than its workspace holds.
  if (program.threads > 0)
    device::useThreads(program.threads);
  if (Status status = detail::allocateStepBuffers(program, memory, buffers);
      !status.ok())
    return status;
  if (Status status = openData(); !status.ok())
    return status;
  if (buffers.lossScale) {
    scaler.emplace(options.hasInitialLossScale ? options.initialLossScale
                                               : LossScaler::kInitialScale);
    lossScaleSpec = {"memopt.loss_scale", Role::OptState, ElementType::I64, 1,
                     {LossScaler::kStateSize}};
    buffers.persistent.push_back({&lossScaleSpec, scaler->data()});
  } else if (options.hasInitialLossScale) {
    return Status::error("--initial-loss-scale: " +
                         std::string(program.modelName) +
                         " has no loss scaling (memopt-compile --amp=fp16 "
                         "builds it)");
  }
  if (group) {
    std::vector<int64_t> computes = group->allGather(program.lossIndex >= 0);
    lossRank = static_cast<int>(std::find(computes.begin(), computes.end(), 1) -
                                computes.begin());
  }
  if (Status status = loadInitialValues(weightsPath, buffers.weights);
      !status.ok())
    return status;
  if (options.resume)
    if (Status status = resume(); !status.ok())
      return status;
  buffers.uploadPersistent();
  if (options.hasLearningRate)
    *program.learningRate = options.learningRate;
  if (primary()) {
    std::printf("training %s: %zu samples, batch %lld, %lld steps of %lld per "
                "epoch\n",
                program.modelName, data.size(),
                static_cast<long long>(globalBatch),
                static_cast<long long>(totalSteps),
                static_cast<long long>(stepsPerEpoch));
    if (replicas > 1)
      std::printf("data parallel: %d replicas of batch %lld\n", replicas,
                  static_cast<long long>(buffers.batchSize));
    // Pinned above: say so when the environment asked for another count.
    const char *asked = std::getenv("OMP_NUM_THREADS");
    if (program.threads > 0 && asked && std::atoi(asked) != program.threads)
      std::fprintf(stderr,
                   "note: OMP_NUM_THREADS=%s ignored: the convolution "
                   "workspaces were sized for %d OpenMP thread(s) when "
                   "compiling, and the kernels run on as many (compile with "
                   "OMP_NUM_THREADS=%s to use %s)\n",
                   asked, program.threads, asked, asked);
  }
  std::fflush(stdout);
  loggedStep = startStep = progress.step;
  loggedAt = startedAt = seconds();
  return Status();
}

Status Trainer::runStep(int64_t step) {
  double loadStart = seconds();
  const uint32_t *batch =
      order->nextBatch(static_cast<size_t>(globalBatch)) +
      static_cast<size_t>(replica) * static_cast<size_t>(buffers.batchSize);
  if (buffers.loadsBatch)
    if (Status status = data.loadBatch(batch, buffers.batchSize, buffers.input,
                                       buffers.target);
        !status.ok())
      return status;
  buffers.uploadBatch();
  double stepStart = seconds();
  trace.add("load", "data", loadStart, stepStart - loadStart, step);
  // With loss scaling, Adam's step counts the updates applied.
  if (buffers.step)
    *buffers.step = scaler ? scaler->optimizerStep() : step;
  if (buffers.seed)
    *buffers.seed = stepSeed(options.seed, step);
  if (scaler) {
    *buffers.lossScale = static_cast<float>(scaler->scale());
    buffers.uploadLossScale();
  }
  if (!options.tracePath.empty())
    startKernelTrace(trace, start, step);
  program.step(buffers.args.data(), buffers.results.data(),
               buffers.arenas.data());
  stopKernelTrace();
  memory.synchronize();
  double stepEnd = seconds();
  trace.add("step", "step", stepStart, stepEnd - stepStart, step);
  buffers.downloadLoss();
  if (scaler) {
    bool skipped = device::takeSkippedUpdate();
    double before = scaler->scale();
    scaler->update(skipped);
    if (skipped && primary())
      std::printf("step %lld: inf/NaN gradients, update skipped; loss scale "
                  "%g -> %g\n",
                  static_cast<long long>(step), before, scaler->scale());
  }

  float loss = buffers.loss ? *buffers.loss : 0.0f;
  // Every rank logs, checks and checkpoints the loss of the stage that
  // computes it.
  if (group)
    group->broadcast(&loss, sizeof loss, lossRank);
  if (!std::isfinite(loss))
    return diverged("loss", loss, "at step " + std::to_string(step));
  progress.step = step;
  progress.losses.push_back(loss);
  progress.stepSeconds.push_back(stepEnd - stepStart);
  progress.order = order->state();
  return Status();
}

Status Trainer::diverged(const char *what, double value,
                         const std::string &when) const {
  return Status::error(
      std::string(what) + " is " + (std::isnan(value) ? "NaN" : "inf") + " " +
      when + "; " +
      (lastCheckpoint.empty()
           ? std::string("no checkpoint was written")
           : "the last checkpoint (" + lastCheckpoint + ") is intact"));
}

Status Trainer::validate(int64_t step) {
  double begin = seconds();
  size_t batchSize = static_cast<size_t>(buffers.batchSize);
  size_t batches = valData.size() / batchSize;
  std::vector<uint32_t> indices(batchSize);
  double sum = 0.0;
  for (size_t b = 0; b < batches; ++b) {
    for (size_t i = 0; i < batchSize; ++i)
      indices[i] = static_cast<uint32_t>(b * batchSize + i);
    if (Status status = valData.loadBatch(indices.data(), batchSize,
                                          buffers.input, buffers.target);
        !status.ok())
      return status;
    buffers.uploadBatch();
    if (buffers.step)
      *buffers.step = step;
    program.evalStep(buffers.args.data(), buffers.evalResults.data(),
                     buffers.arenas.data());
    buffers.downloadLoss();
    sum += *buffers.loss;
  }
  double loss = sum / static_cast<double>(batches);
  // A diverged model is an error whether training or validation shows it.
  if (!std::isfinite(loss))
    return diverged("validation loss", loss, "after step " + std::to_string(step));
  validations.push_back({step, loss});
  trace.add("validation", "step", begin, seconds() - begin, step);
  // Every replica validates the same weights on the whole set.
  if (!primary())
    return Status();
  std::printf("validation after step %lld  loss %.6g\n",
              static_cast<long long>(step), loss);
  std::fflush(stdout);
  return Status();
}

Status Trainer::checkpoint(int64_t step) {
  double begin = seconds();
  std::string path;
  buffers.downloadPersistent();
  if (Status status =
          writeCheckpoint(checkpointDir, progress, buffers.persistent, path);
      !status.ok())
    return status;
  lastCheckpoint = path;
  trace.add("checkpoint", "io", begin, seconds() - begin, step);
  return Status();
}

void Trainer::log(int64_t step) {
  if (!primary())
    return;
  double now = seconds();
  double images = static_cast<double>((step - loggedStep) * globalBatch);
  double rate = now > loggedAt ? images / (now - loggedAt) : 0.0;
  double perStep = (now - startedAt) / static_cast<double>(step - startStep);
  auto left = static_cast<long long>(
      std::llround(perStep * static_cast<double>(totalSteps - step)));
  std::printf("step %lld/%lld  loss %.6g  images/s %.1f  eta %lld:%02lld:%02lld\n",
              static_cast<long long>(step), static_cast<long long>(totalSteps),
              progress.losses.back(), rate, left / 3600, left / 60 % 60,
              left % 60);
  std::fflush(stdout);
  loggedStep = step;
  loggedAt = now;
}

Status Trainer::train() {
  int64_t checkpointEvery =
      options.checkpointEvery > 0 ? options.checkpointEvery : stepsPerEpoch;
  for (int64_t step = progress.step + 1; step <= totalSteps; ++step) {
    if (Status status = runStep(step); !status.ok())
      return status;
    if (options.logEvery > 0 &&
        (step % options.logEvery == 0 || step == totalSteps))
      log(step);
    bool epochDone = step % stepsPerEpoch == 0;
    if (!options.valDataDir.empty() &&
        (options.epochs > 0 ? epochDone : step == totalSteps))
      if (Status status = validate(step); !status.ok())
        return status;
    if (!options.checkpointDir.empty() &&
        (step % checkpointEvery == 0 || step == totalSteps))
      if (Status status = checkpoint(step); !status.ok())
        return status;
  }
  return Status();
}

Status Trainer::finish() {
  double begin = seconds();
  buffers.downloadPersistent();
  std::vector<TensorBuffer> weights = buffers.weights;
  std::vector<std::vector<unsigned char>> storage;
  if (group)
    if (Status status = gatherWeights(weights, storage); !status.ok())
      return status;
  // The peak of every stage, and what its exchange holds outside the arena.
  std::vector<int64_t> rankPeaks, rankCommBytes, rankStagingBytes;
  ExchangeReport exchange;
  if (group) {
    rankPeaks = group->allGather(static_cast<int64_t>(memory.peakBytes()));
    exchange = group->exchangeReport();
    rankCommBytes =
        group->allGather(static_cast<int64_t>(exchange.commDeviceBytes));
    rankStagingBytes =
        group->allGather(static_cast<int64_t>(exchange.stagingHostBytes));
  }
  if (!primary())
    return Status();
  if (Status status =
          writeTrainedModel(weightsPath, weights, options.outPath);
      !status.ok())
    return status;
  trace.add("write --out", "io", begin, seconds() - begin, progress.step);
  std::printf("wrote %s\n", options.outPath.c_str());

  if (!options.reportPath.empty()) {
    RunRecord record;
    record.model = program.modelName;
    record.batchSize = globalBatch;
    record.measuredPeakBytes = memory.peakBytes();
    record.device = device::name();
    record.threads = device::threads();
    record.driverPeakBytes = memory.driverPeakBytes();
    record.arenaBytes = totalArenaBytes(program);
    if (const char *path = device::lowPrecisionConvolutions())
      record.lowPrecisionConvolutions = path;
    record.resumedFromStep = resumedFrom;
    if (scaler) {
      record.lossScaling = true;
      record.lossScale = scaler->scale();
      record.skippedSteps = scaler->skippedSteps();
    }
    record.losses = progress.losses;
    record.stepSeconds = progress.stepSeconds;
    record.validations = validations;
    record.validated = !options.valDataDir.empty();
    record.rankPeakBytes = rankPeaks;
    record.exchange = exchange;
    record.rankCommDeviceBytes = rankCommBytes;
    record.rankStagingHostBytes = rankStagingBytes;
    record.stages = group ? group->stages() : 1;
    if (Status status =
            writeFileAtomically(options.reportPath, runReportJson(record));
        !status.ok())
      return status;
  }
  if (!options.tracePath.empty())
    if (Status status = writeFileAtomically(options.tracePath,
                                            trace.json(program.modelName));
        !status.ok())
      return status;
  return Status();
}

Status
Trainer::gatherWeights(std::vector<TensorBuffer> &all,
                       std::vector<std::vector<unsigned char>> &storage) {
  // Replica 0's stages (ranks 0 .. stages-1) send theirs; every replica
  // holds the same weights.
  if (group->rank() != 0) {
    if (group->replica() == 0)
      for (const TensorBuffer &weight : buffers.weights)
        group->send(weight.data, weight.bytes(), 0);
    return Status();
  }
  // The weights of stage r in the order of its arguments, as
  // allocateStepBuffers lists them there.
  for (int rank = 1; rank < group->stages(); ++rank) {
    const Program &stage = group->program(rank);
    for (int i = 0; i < stage.numArgs; ++i) {
      const TensorSpec &spec = stage.args[i];
      if (spec.role != Role::Param && spec.role != Role::State)
        continue;
      TensorBuffer weight{&spec, nullptr};
      storage.emplace_back(weight.bytes());
      weight.data = storage.back().data();
      group->receive(weight.data, weight.bytes(), rank);
      all.push_back(weight);
    }
  }
  return Status();
}

int run(int argc, char **argv, const Program &program, StageGroup *group) {
  TrainerOptions options;
  if (Status status = parseCommandLine(argc, argv, options); !status.ok())
    return fail(Status::errorOnEveryRank(status.message()), kUsageFailure);
  if (options.help) {
    if (group && group->rank() != 0)
      return 0;
    std::fputs(usage(argc > 0 ? argv[0] : "BIN").c_str(), stdout);
    if (program.threads > 0)
      std::printf("\nOpenMP threads: %d, the compiler's (the convolution "
                  "workspaces were sized for\nthem; OMP_NUM_THREADS is "
                  "ignored: set it when compiling).\n",
                  program.threads);
    return 0;
  }
  if (Status status = checkProgramOptions(program, options, group);
      !status.ok())
    return fail(status, kUsageFailure);

  Trainer trainer(program, options, group);
  if (Status status = trainer.setUp(); !status.ok())
    return fail(status, kRunFailure);
  if (Status status = trainer.train(); !status.ok())
    return fail(status, kRunFailure);
  if (Status status = trainer.finish(); !status.ok())
    return fail(status, kRunFailure);
  return 0;
}

} // namespace

int trainerMain(int argc, char **argv, const Program &program) {
  return run(argc, argv, program, nullptr);
}

int trainerMain(int argc, char **argv, const Program &program,
                StageGroup &group) {
  // An error every rank reaches together (the same command line, steps
  // they all gathered) ends each of them normally, rank 0 saying why. Any
  // other error ends every process with the failing rank named, so that
  // none is left waiting for it.
  messageRank = group.rank();
  int code = run(argc, argv, program, &group);
  if (code != 0 && !failedOnEveryRank)
    group.abort(code);
  return code;
}

} // namespace memopt::rt
