//===- Checkpoint.cpp - Resumable training state --------------------------===//

#include "memopt/Runtime/Checkpoint.h"

#include "memopt/Runtime/FileIO.h"
#include "memopt/Runtime/ImageFile.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace memopt::rt {

std::string ProcessLayout::describe() const {
  return "rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
         " (stage " + std::to_string(stage) + " of " + std::to_string(stages) +
         ", replica " + std::to_string(replica) + " of " +
         std::to_string(replicas) + ")";
}

namespace {

constexpr char kMagic[8] = {'M', 'E', 'M', 'O', 'P', 'T', 'C', 'K'};
// 2: the batch size after the sample count; 3: the writer's process layout
// after it.
constexpr uint32_t kVersion = 3;
constexpr size_t kHeaderBytes = 24; // magic, version, 0, file size
constexpr size_t kTrailerBytes = 4; // CRC-32
constexpr const char *kPrefix = "checkpoint-";
constexpr const char *kSuffix = ".mckpt";

/// Little-endian fields appended to a byte string.
class Encoder {
public:
  template <typename T> void put(T value) {
    bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
  }
  void putBytes(const void *data, size_t size) {
    put<uint32_t>(static_cast<uint32_t>(size));
    bytes.append(static_cast<const char *>(data), size);
  }
  std::string bytes;
};

std::string encodeProgress(const TrainingProgress &progress,
                           size_t numTensors) {
  Encoder e;
  e.put<uint64_t>(static_cast<uint64_t>(progress.step));
  e.put<uint64_t>(progress.numSamples);
  e.put<uint64_t>(progress.batchSize);
  const ProcessLayout &layout = progress.layout;
  for (uint32_t field : {layout.rank, layout.ranks, layout.stage,
                         layout.stages, layout.replica, layout.replicas})
    e.put<uint32_t>(field);
  e.put<uint64_t>(progress.seed);
  e.put<uint32_t>(progress.shuffle ? 1 : 0);
  e.put<uint32_t>(static_cast<uint32_t>(numTensors));
  e.put<uint64_t>(progress.order.epoch);
  e.put<uint64_t>(progress.order.position);
  e.putBytes(progress.order.engine.data(), progress.order.engine.size());
  e.put<uint64_t>(progress.losses.size());
  e.bytes.append(reinterpret_cast<const char *>(progress.losses.data()),
                 progress.losses.size() * sizeof(float));
  e.bytes.append(reinterpret_cast<const char *>(progress.stepSeconds.data()),
                 progress.stepSeconds.size() * sizeof(double));
  return e.bytes;
}

std::string encodeTensorHeader(const TensorBuffer &buffer) {
  Encoder e;
  const TensorSpec &spec = *buffer.spec;
  e.putBytes(spec.name, std::strlen(spec.name));
  e.put<uint32_t>(static_cast<uint32_t>(spec.role));
  e.put<uint32_t>(static_cast<uint32_t>(spec.elementType));
  e.put<uint32_t>(static_cast<uint32_t>(spec.rank));
  for (int i = 0; i < spec.rank; ++i)
    e.put<int64_t>(spec.dims[i]);
  e.put<uint64_t>(buffer.bytes());
  return e.bytes;
}

/// A test hook: MEMOPT_TEST_CHECKPOINT_PAUSE_MS=N makes the writer sleep N
/// milliseconds once part of the temporary file is written, so that a test
/// can kill the process in the middle of a checkpoint write
/// (test/Tools/memopt-compile/kill-during-checkpoint.test). Unset or not a
/// positive number: no pause.
void pauseForTests() {
  const char *text = std::getenv("MEMOPT_TEST_CHECKPOINT_PAUSE_MS");
  long ms = text ? std::strtol(text, nullptr, 10) : 0;
  if (ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

std::string checkpointName(int64_t step) {
  char name[64];
  std::snprintf(name, sizeof(name), "%s%010lld%s", kPrefix,
                static_cast<long long>(step), kSuffix);
  return name;
}

/// The step of a checkpoint file name, or -1.
int64_t stepOf(const std::string &name) {
  size_t prefix = std::strlen(kPrefix), suffix = std::strlen(kSuffix);
  if (name.size() <= prefix + suffix || name.compare(0, prefix, kPrefix) ||
      name.compare(name.size() - suffix, suffix, kSuffix))
    return -1;
  std::string digits = name.substr(prefix, name.size() - prefix - suffix);
  if (digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::strtoll(digits.c_str(), nullptr, 10);
}

struct Listing {
  std::vector<std::pair<int64_t, std::string>> checkpoints; // oldest first
  std::vector<std::string> stale;                           // *.tmp
};

Status listDirectory(const std::string &dir, Listing &listing) {
  DIR *handle = ::opendir(dir.c_str());
  if (!handle)
    return Status::error(dir + ": " + std::strerror(errno));
  while (dirent *entry = ::readdir(handle)) {
    std::string name = entry->d_name;
    if (int64_t step = stepOf(name); step >= 0)
      listing.checkpoints.emplace_back(step, dir + "/" + name);
    else if (name.rfind(kPrefix, 0) == 0 && name.size() > 4 &&
             name.compare(name.size() - 4, 4, ".tmp") == 0)
      listing.stale.push_back(dir + "/" + name);
  }
  ::closedir(handle);
  std::sort(listing.checkpoints.begin(), listing.checkpoints.end());
  return Status();
}

/// Removes all but the two newest checkpoints and every stale .tmp file.
Status prune(const std::string &dir) {
  Listing listing;
  if (Status status = listDirectory(dir, listing); !status.ok())
    return status;
  std::vector<std::string> doomed = listing.stale;
  for (size_t i = 0; i + 2 < listing.checkpoints.size(); ++i)
    doomed.push_back(listing.checkpoints[i].second);
  for (const std::string &path : doomed)
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return Status::error("cannot remove " + path + ": " +
                           std::strerror(errno));
  return syncDirectory(dir);
}

struct FileCloser {
  void operator()(FILE *file) const { std::fclose(file); }
};
using File = std::unique_ptr<FILE, FileCloser>;

/// Sequential reads of a checkpoint whose size and CRC were checked. The
/// CRC catches corruption, not a crafted file: every length read from the
/// file is checked against the bytes left before anything is allocated.
class Decoder {
public:
  Decoder(FILE *file, uint64_t bytesLeft) : file(file), left(bytesLeft) {}
  template <typename T> T get() {
    T value{};
    read(&value, sizeof(T));
    return value;
  }
  std::string getBytes() {
    uint32_t size = get<uint32_t>();
    if (!fits(size, 1))
      return std::string();
    std::string text(size, '\0');
    read(text.data(), text.size());
    return text;
  }
  /// Whether `count` items of `itemBytes` are left to read; marks the
  /// decoder failed when not.
  bool fits(uint64_t count, uint64_t itemBytes) {
    if (!failed && count <= left / itemBytes)
      return true;
    failed = true;
    return false;
  }
  void read(void *data, size_t size) {
    if (!fits(size, 1) || (size && std::fread(data, 1, size, file) != size)) {
      failed = true;
      return;
    }
    left -= size;
  }
  bool failed = false;

private:
  FILE *file;
  uint64_t left;
};

Status checkIntegrity(const std::string &path, FILE *file) {
  auto corrupt = [&](const std::string &cause) {
    return Status::error(path + ": corrupt checkpoint (" + cause + ")");
  };
  struct stat info;
  if (::fstat(::fileno(file), &info) != 0)
    return Status::error(path + ": " + std::strerror(errno));
  uint64_t fileBytes = static_cast<uint64_t>(info.st_size);
  char header[kHeaderBytes];
  if (std::fread(header, 1, kHeaderBytes, file) != kHeaderBytes)
    return corrupt("truncated: " + std::to_string(fileBytes) + " bytes");
  if (std::memcmp(header, kMagic, sizeof(kMagic)) != 0)
    return Status::error(path + ": not a memopt checkpoint (bad magic)");
  uint32_t version;
  uint64_t declared;
  std::memcpy(&version, header + 8, 4);
  std::memcpy(&declared, header + 16, 8);
  if (version != kVersion)
    return Status::error(path + ": checkpoint version " +
                         std::to_string(version) + ", expected " +
                         std::to_string(kVersion));
  if (declared != fileBytes)
    return corrupt("truncated: " + std::to_string(fileBytes) +
                   " bytes, expected " + std::to_string(declared));

  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32_z(crc, reinterpret_cast<const Bytef *>(header), kHeaderBytes);
  std::vector<unsigned char> chunk(1 << 20);
  uint64_t left = fileBytes - kHeaderBytes - kTrailerBytes;
  while (left > 0) {
    size_t size = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    if (std::fread(chunk.data(), 1, size, file) != size)
      return Status::error(path + ": read error");
    crc = crc32_z(crc, chunk.data(), size);
    left -= size;
  }
  uint32_t stored;
  if (std::fread(&stored, 1, 4, file) != 4)
    return Status::error(path + ": read error");
  if (stored != static_cast<uint32_t>(crc))
    return corrupt("checksum mismatch");
  return Status();
}

Status checkTensor(Decoder &in, const TensorBuffer &buffer,
                   const std::string &path) {
  const TensorSpec &spec = *buffer.spec;
  std::string name = in.getBytes();
  auto role = static_cast<Role>(in.get<uint32_t>());
  auto type = static_cast<ElementType>(in.get<uint32_t>());
  uint32_t rank = in.get<uint32_t>();
  Dims shape;
  for (uint32_t i = 0; i < rank && i < 2 * kMaxRank; ++i)
    shape.values[shape.size++] = in.get<int64_t>();
  uint64_t bytes = in.get<uint64_t>();
  Dims expected(spec.dims, spec.rank);
  if (in.failed || name != spec.name || role != spec.role ||
      type != spec.elementType || shape != expected || bytes != buffer.bytes())
    return Status::error(path + ": written by another program: it holds '" +
                         name + "' " + shapeText(shape) +
                         " where this one has '" + spec.name + "' " +
                         shapeText(expected));
  in.read(buffer.data, buffer.bytes());
  return Status();
}

} // namespace

Status prepareCheckpointDirectory(const std::string &dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return Status::error("cannot create --checkpoint-dir " + prefix + ": " +
                           std::strerror(errno));
    if (slash == std::string::npos)
      break;
  }
  return checkWritable(dir + "/" + checkpointName(0), "--checkpoint-dir");
}

Status writeCheckpoint(const std::string &dir, const TrainingProgress &progress,
                       const std::vector<TensorBuffer> &buffers,
                       std::string &path) {
  std::string body = encodeProgress(progress, buffers.size());
  std::vector<std::string> tensorHeaders;
  uint64_t fileBytes = kHeaderBytes + body.size() + kTrailerBytes;
  for (const TensorBuffer &buffer : buffers) {
    tensorHeaders.push_back(encodeTensorHeader(buffer));
    fileBytes += tensorHeaders.back().size() + buffer.bytes();
  }
  Encoder header;
  header.bytes.append(kMagic, sizeof(kMagic));
  header.put<uint32_t>(kVersion);
  header.put<uint32_t>(0);
  header.put<uint64_t>(fileBytes);

  path = dir + "/" + checkpointName(progress.step);
  AtomicFileWriter writer;
  if (Status status = writer.open(path); !status.ok())
    return status;
  uLong crc = crc32(0L, Z_NULL, 0);
  auto put = [&](const void *data, size_t size) {
    crc = crc32_z(crc, static_cast<const Bytef *>(data), size);
    return writer.write(data, size);
  };
  if (Status status = put(header.bytes.data(), header.bytes.size());
      !status.ok())
    return status;
  if (Status status = put(body.data(), body.size()); !status.ok())
    return status;
  pauseForTests();
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (Status status = put(tensorHeaders[i].data(), tensorHeaders[i].size());
        !status.ok())
      return status;
    if (Status status = put(buffers[i].data, buffers[i].bytes()); !status.ok())
      return status;
  }
  uint32_t checksum = static_cast<uint32_t>(crc);
  if (Status status = writer.write(&checksum, sizeof(checksum)); !status.ok())
    return status;
  if (Status status = writer.commit(); !status.ok())
    return status;
  return prune(dir);
}

Status findCheckpoints(const std::string &dir, std::string &newest,
                       std::string &previous) {
  Listing listing;
  if (Status status = listDirectory(dir, listing); !status.ok())
    return status;
  size_t count = listing.checkpoints.size();
  newest = count > 0 ? listing.checkpoints[count - 1].second : "";
  previous = count > 1 ? listing.checkpoints[count - 2].second : "";
  return Status();
}

Status readCheckpoint(const std::string &path, TrainingProgress &progress,
                      const std::vector<TensorBuffer> &buffers) {
  if (Status status = checkRegularFile(path); !status.ok())
    return status;
  File file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return Status::error(path + ": " + std::strerror(errno));
  if (Status status = checkIntegrity(path, file.get()); !status.ok())
    return status;
  if (std::fseek(file.get(), kHeaderBytes, SEEK_SET) != 0)
    return Status::error(path + ": " + std::strerror(errno));

  struct stat info;
  if (::fstat(::fileno(file.get()), &info) != 0)
    return Status::error(path + ": " + std::strerror(errno));
  Decoder in(file.get(), static_cast<uint64_t>(info.st_size) - kHeaderBytes -
                             kTrailerBytes);
  progress = TrainingProgress();
  progress.step = static_cast<int64_t>(in.get<uint64_t>());
  progress.numSamples = in.get<uint64_t>();
  progress.batchSize = in.get<uint64_t>();
  ProcessLayout &layout = progress.layout;
  for (uint32_t *field : {&layout.rank, &layout.ranks, &layout.stage,
                          &layout.stages, &layout.replica, &layout.replicas})
    *field = in.get<uint32_t>();
  progress.seed = in.get<uint64_t>();
  progress.shuffle = in.get<uint32_t>() != 0;
  uint32_t numTensors = in.get<uint32_t>();
  progress.order.epoch = in.get<uint64_t>();
  progress.order.position = in.get<uint64_t>();
  progress.order.engine = in.getBytes();
  uint64_t steps = in.get<uint64_t>();
  if (in.failed || steps != static_cast<uint64_t>(progress.step) ||
      !in.fits(steps, sizeof(float) + sizeof(double)))
    return Status::error(path + ": malformed checkpoint");
  progress.losses.resize(steps);
  progress.stepSeconds.resize(steps);
  in.read(progress.losses.data(), steps * sizeof(float));
  in.read(progress.stepSeconds.data(), steps * sizeof(double));
  if (numTensors != buffers.size())
    return Status::error(path + ": written by another program: it holds " +
                         std::to_string(numTensors) + " tensors, this one " +
                         std::to_string(buffers.size()));
  for (const TensorBuffer &buffer : buffers)
    if (Status status = checkTensor(in, buffer, path); !status.ok())
      return status;
  if (in.failed)
    return Status::error(path + ": malformed checkpoint");
  return Status();
}

} // namespace memopt::rt
