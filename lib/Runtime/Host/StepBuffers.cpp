//===- StepBuffers.cpp - The memory the compiled step runs on -------------===//

#include "StepBuffers.h"

#include "memopt/Runtime/Device.h"

#include <cstring>

namespace memopt::rt::detail {

namespace {

bool isPersistent(Role role) {
  return role == Role::Param || role == Role::State || role == Role::OptState;
}

bool sameTensor(const TensorSpec &a, const TensorSpec &b) {
  return std::strcmp(a.name, b.name) == 0 && a.role == b.role &&
         a.elementType == b.elementType &&
         Dims(a.dims, a.rank) == Dims(b.dims, b.rank);
}

Status checkSpecs(const Program &program) {
  auto bad = [&](const TensorSpec &spec, const std::string &cause) {
    return Status::error(std::string(program.modelName) + ": step tensor '" +
                         spec.name + "' " + cause);
  };
  const TensorSpec *input = nullptr, *target = nullptr, *step = nullptr,
                   *seed = nullptr;
  for (int i = 0; i < program.numArgs + program.numResults; ++i) {
    const TensorSpec &spec = i < program.numArgs
                                 ? program.args[i]
                                 : program.results[i - program.numArgs];
    if (spec.rank < 0 || spec.rank > kMaxRank)
      return bad(spec, "has rank " + std::to_string(spec.rank));
    if (i >= program.numArgs)
      continue;
    const TensorSpec **slot = spec.role == Role::Input    ? &input
                              : spec.role == Role::Target ? &target
                              : spec.role == Role::Step   ? &step
                              : spec.role == Role::Seed   ? &seed
                                                          : nullptr;
    if (!slot)
      continue;
    if (*slot)
      return bad(spec, "is a second argument of its role; the trainer "
                       "supports one input, one target, one step and one "
                       "seed");
    *slot = &spec;
  }
  // A pipeline stage reads the batch's shapes from the data specs.
  if (program.dataInput && !input)
    input = program.dataInput;
  if (program.dataTarget && !target)
    target = program.dataTarget;
  if (!input || !target)
    return Status::error(std::string(program.modelName) +
                         ": the step needs one Input and one Target argument");
  for (const TensorSpec *spec : {input, target})
    if (spec->elementType != ElementType::F32 || spec->rank < 1 ||
        spec->dims[0] < 1 || spec->dims[0] != input->dims[0])
      return bad(*spec, "must be float32 with the batch size as dimension 0");
  for (const TensorSpec *scalar : {step, seed})
    if (scalar &&
        (scalar->elementType != ElementType::I64 || scalar->rank != 0))
      return bad(*scalar, "must be a rank-0 int64");
  if (program.dataInput && program.lossIndex == -1)
    return Status(); // a stage that does not compute the loss
  if (program.lossIndex < 0 || program.lossIndex >= program.numResults)
    return Status::error(std::string(program.modelName) + ": loss index " +
                         std::to_string(program.lossIndex) + " out of range");
  const TensorSpec &loss = program.results[program.lossIndex];
  if (loss.elementType != ElementType::F32 || loss.numElements() != 1)
    return bad(loss, "(the loss) must be a float32 scalar");
  return Status();
}

/// The host copy of `bytes` at `device`: the buffer itself when the device
/// is host-addressable, a new host buffer otherwise.
StepBuffers::Mirror mirror(StepBuffers &buffers, void *device, size_t bytes) {
  if (device::hostAddressable())
    return {device, device, bytes};
  buffers.hostCopies.emplace_back(new unsigned char[bytes]());
  return {buffers.hostCopies.back().get(), device, bytes};
}

void upload(const StepBuffers::Mirror &m) {
  if (m.host != m.device)
    device::copyToDevice(m.device, m.host, m.bytes);
}

void download(const StepBuffers::Mirror &m) {
  if (m.host != m.device)
    device::copyToHost(m.host, m.device, m.bytes);
}

} // namespace

void StepBuffers::uploadBatch() {
  upload(inputMirror);
  upload(targetMirror);
}

void StepBuffers::uploadLossScale() { upload(lossScaleMirror); }

void StepBuffers::downloadLoss() { download(lossMirror); }

void StepBuffers::uploadPersistent() {
  for (const Mirror &m : persistentMirrors)
    upload(m);
}

void StepBuffers::downloadPersistent() {
  for (const Mirror &m : persistentMirrors)
    download(m);
}

void StepBuffers::PinnedRelease::operator()(void *data) const {
  device::releasePinnedHost(data);
}

Status allocateStepBuffers(const Program &program, DeviceMemory &memory,
                           StepBuffers &buffers) {
  if (Status status = checkSpecs(program); !status.ok())
    return status;
  auto allocate = [&](const TensorSpec &spec, void *&data) {
    TensorBuffer buffer{&spec, nullptr};
    data = memory.allocate(buffer.bytes());
    if (!data && buffer.bytes() > 0)
      return Status::error("out of memory allocating " +
                           std::to_string(buffer.bytes()) + " bytes for '" +
                           spec.name + "'");
    return Status();
  };

  buffers.arenas.assign(program.numArenas, nullptr);
  for (int i = 0; i < program.numArenas; ++i) {
    const ArenaSpec &arena = program.arenas[i];
    // (A pipeline stage's arenas are on device 0 of its own process.)
    // Device memory of another device needs an allocator this runtime
    // does not have yet.
    if (arena.device != 0)
      return Status::error(std::string(program.modelName) + ": arena " +
                           std::to_string(i) +
                           " is on a device that this backend does not "
                           "support yet");
    if (arena.space == MemorySpace::PinnedHost) {
      void *pool = arena.bytes ? device::allocatePinnedHost(arena.bytes)
                               : nullptr;
      if (!pool && arena.bytes > 0)
        return Status::error("out of host memory allocating the " +
                             std::to_string(arena.bytes) +
                             "-byte pinned host arena " + std::to_string(i));
      buffers.pinnedArenas.emplace_back(pool);
      buffers.arenas[i] = pool;
      continue;
    }
    buffers.arenas[i] = memory.allocate(arena.bytes);
    if (!buffers.arenas[i] && arena.bytes > 0)
      return Status::error("out of memory allocating the " +
                           std::to_string(arena.bytes) + "-byte arena " +
                           std::to_string(i));
  }
  buffers.args.assign(program.numArgs, nullptr);
  for (int i = 0; i < program.numArgs; ++i) {
    const TensorSpec &spec = program.args[i];
    if (spec.role == Role::Step && !device::hostAddressable()) {
      // Read by value on the host by the generated step.
      buffers.args[i] = buffers.step = &buffers.hostStep;
      continue;
    }
    if (spec.role == Role::Seed && !device::hostAddressable()) {
      buffers.args[i] = buffers.seed = &buffers.hostSeed;
      continue;
    }
    if (Status status = allocate(spec, buffers.args[i]); !status.ok())
      return status;
    void *data = buffers.args[i];
    size_t bytes = TensorBuffer{&spec, data}.bytes();
    if (spec.role == Role::Input) {
      buffers.inputMirror = mirror(buffers, data, bytes);
      buffers.input = static_cast<float *>(buffers.inputMirror.host);
      buffers.batchSize = spec.dims[0];
    } else if (spec.role == Role::Target) {
      buffers.targetMirror = mirror(buffers, data, bytes);
      buffers.target = static_cast<float *>(buffers.targetMirror.host);
    } else if (spec.role == Role::Step) {
      buffers.step = static_cast<int64_t *>(data);
    } else if (spec.role == Role::Seed) {
      buffers.seed = static_cast<int64_t *>(data);
    } else if (spec.role == Role::LossScale) {
      if (spec.elementType != ElementType::F32 || spec.rank != 0 ||
          buffers.lossScale)
        return Status::error(std::string(program.modelName) +
                             ": the loss scale must be one rank-0 float32 "
                             "argument");
      buffers.lossScaleMirror = mirror(buffers, data, sizeof(float));
      buffers.lossScale = static_cast<float *>(buffers.lossScaleMirror.host);
    }
    if (!isPersistent(spec.role))
      continue;
    buffers.persistentMirrors.push_back(mirror(buffers, data, bytes));
    void *host = buffers.persistentMirrors.back().host;
    if (spec.role == Role::Param || spec.role == Role::State)
      buffers.weights.push_back({&spec, host});
    buffers.persistent.push_back({&spec, host});
  }

  // A pipeline stage without the input or the target argument loads the
  // batch into host memory of its own: it needs the batch's shapes and the
  // sample order only, and reads no file unless it takes one of them.
  if (!buffers.input || !buffers.target) {
    buffers.loadsBatch = buffers.input || buffers.target;
    for (auto [spec, data] : {std::pair{program.dataInput, &buffers.input},
                              std::pair{program.dataTarget, &buffers.target}})
      if (!*data && spec) {
        buffers.batchScratch.emplace_back(
            static_cast<size_t>(spec->numElements()));
        *data = buffers.batchScratch.back().data();
      }
    if (program.dataInput)
      buffers.batchSize = program.dataInput->dims[0];
  }

  buffers.results.assign(program.numResults, nullptr);
  buffers.evalResults.assign(program.numResults, nullptr);
  for (int r = 0; r < program.numResults; ++r) {
    const TensorSpec &spec = program.results[r];
    for (int a = 0; a < program.numArgs && isPersistent(spec.role); ++a)
      if (sameTensor(spec, program.args[a]))
        buffers.results[r] = buffers.args[a];
    if (!buffers.results[r])
      if (Status status = allocate(spec, buffers.results[r]); !status.ok())
        return status;
    if (spec.role == Role::Output || r == program.lossIndex)
      buffers.evalResults[r] = buffers.results[r];
  }
  if (program.lossIndex < 0)
    return Status(); // a pipeline stage that does not compute the loss
  buffers.lossMirror =
      mirror(buffers, buffers.results[program.lossIndex], sizeof(float));
  buffers.loss = static_cast<const float *>(buffers.lossMirror.host);
  return Status();
}

} // namespace memopt::rt::detail
