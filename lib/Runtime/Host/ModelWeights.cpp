//===- ModelWeights.cpp - Initial and trained values in ONNX form ---------===//

#include "memopt/Runtime/ModelWeights.h"

#include "memopt/Runtime/FileIO.h"
#include "memopt/Runtime/ImageFile.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memopt::rt {

namespace {

/// The fix for a file that is not the one the binary was compiled from.
constexpr const char *kOtherModel =
    "; it is not the model this binary was compiled from: pass --weights "
    "with that model (or a --out trained from it), or recompile";

/// Parses the model file `path`, streamed from the file (no second copy of
/// its bytes) once its size is known to be at most kMaxModelFileBytes.
Status readModel(const std::string &path, onnx::ModelProto &model) {
  if (Status status = checkRegularFile(path); !status.ok())
    return Status::error(status.message() +
                         "; the binary reads its initial weights from it "
                         "(memopt-compile writes it beside the binary): "
                         "keep it there, or pass --weights FILE.onnx");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info;
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    Status status = Status::error(path + ": cannot read: " +
                                  std::strerror(errno));
    if (fd >= 0)
      ::close(fd);
    return status;
  }
  size_t size = static_cast<size_t>(info.st_size);
  bool parsed = size <= kMaxModelFileBytes && model.ParseFromFileDescriptor(fd);
  ::close(fd);
  if (size > kMaxModelFileBytes)
    return Status::error(path + ": " + std::to_string(size) +
                         " bytes, more than the 2 GiB an ONNX file holds "
                         "without external data; pass --weights with the "
                         "NAME.weights.onnx memopt-compile wrote");
  if (!parsed)
    return Status::error(path + ": not an ONNX model (truncated or corrupt)" +
                         kOtherModel);
  return Status();
}

int onnxType(ElementType type) {
  switch (type) {
  case ElementType::I64:
    return onnx::TensorProto::INT64;
  case ElementType::BF16:
    return onnx::TensorProto::BFLOAT16;
  case ElementType::F16:
    return onnx::TensorProto::FLOAT16;
  case ElementType::F32:
    break;
  }
  return onnx::TensorProto::FLOAT;
}

/// The initializers of `model` by name.
std::map<std::string, onnx::TensorProto *>
initializers(onnx::ModelProto &model) {
  std::map<std::string, onnx::TensorProto *> byName;
  for (onnx::TensorProto &tensor : *model.mutable_graph()->mutable_initializer())
    byName.emplace(tensor.name(), &tensor);
  return byName;
}

/// The initializer named as `spec`, checked against the spec (the
/// manifest): present, in the file, of the spec's element type and shape.
/// An error is one line that starts with `path`.
Status findInitializer(
    const std::map<std::string, onnx::TensorProto *> &byName,
    const TensorSpec &spec, const std::string &path,
    onnx::TensorProto *&found) {
  std::string where = path + ": initializer '" + spec.name + "'";
  auto it = byName.find(spec.name);
  if (it == byName.end())
    return Status::error(path + ": no initializer '" + spec.name + "'" +
                         kOtherModel);
  const onnx::TensorProto &tensor = *it->second;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return Status::error(where + " uses external data; pass --weights with "
                                 "the NAME.weights.onnx memopt-compile wrote, "
                                 "which holds it");
  if (tensor.data_type() != onnxType(spec.elementType))
    return Status::error(where + " has ONNX data type " +
                         std::to_string(tensor.data_type()) +
                         ", the binary was compiled for " +
                         std::to_string(onnxType(spec.elementType)) +
                         kOtherModel);
  Dims shape;
  if (tensor.dims_size() > kMaxRank)
    return Status::error(where + " has rank " +
                         std::to_string(tensor.dims_size()) + kOtherModel);
  for (int64_t dim : tensor.dims())
    shape.values[shape.size++] = dim;
  Dims expected(spec.dims, spec.rank);
  if (shape != expected)
    return Status::error(where + " has shape " + shapeText(shape) +
                         ", the binary was compiled for " +
                         shapeText(expected) + kOtherModel);
  found = it->second;
  return Status();
}

Status loadInitializer(const onnx::TensorProto &tensor,
                       const TensorBuffer &buffer, const std::string &path) {
  const TensorSpec &spec = *buffer.spec;
  std::string where = path + ": initializer '" + spec.name + "'";
  size_t bytes = buffer.bytes();
  size_t count = static_cast<size_t>(spec.numElements());
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != bytes)
      return Status::error(where + " holds " +
                           std::to_string(tensor.raw_data().size()) +
                           " bytes, expected " + std::to_string(bytes) +
                           kOtherModel);
    std::memcpy(buffer.data, tensor.raw_data().data(), bytes);
    return Status();
  }
  if (spec.elementType == ElementType::F32 &&
      static_cast<size_t>(tensor.float_data_size()) == count) {
    std::memcpy(buffer.data, tensor.float_data().data(), bytes);
    return Status();
  }
  if (spec.elementType == ElementType::I64 &&
      static_cast<size_t>(tensor.int64_data_size()) == count) {
    std::memcpy(buffer.data, tensor.int64_data().data(), bytes);
    return Status();
  }
  return Status::error(where + " does not hold " + std::to_string(count) +
                       " values" + kOtherModel);
}

} // namespace

std::string initialWeightsPath(const Program &program,
                               const std::string &weights) {
  if (!weights.empty())
    return weights;
  std::string file = program.weightsFile ? program.weightsFile : "";
  if (file.empty() || file.front() == '/')
    return file;
  char executable[PATH_MAX];
  ssize_t length =
      ::readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length <= 0)
    return file;
  executable[length] = '\0';
  return parentDirectory(executable) + "/" + file;
}

Status loadInitialValues(const std::string &path,
                         const std::vector<TensorBuffer> &buffers) {
  onnx::ModelProto model;
  if (Status status = readModel(path, model); !status.ok())
    return status;
  std::map<std::string, onnx::TensorProto *> byName = initializers(model);
  for (const TensorBuffer &buffer : buffers) {
    onnx::TensorProto *tensor = nullptr;
    if (Status status = findInitializer(byName, *buffer.spec, path, tensor);
        !status.ok())
      return status;
    if (Status status = loadInitializer(*tensor, buffer, path); !status.ok())
      return status;
  }
  return Status();
}

Status writeTrainedModel(const std::string &modelPath,
                         const std::vector<TensorBuffer> &buffers,
                         const std::string &path) {
  onnx::ModelProto model;
  if (Status status = readModel(modelPath, model); !status.ok())
    return status;
  std::map<std::string, onnx::TensorProto *> byName = initializers(model);
  for (const TensorBuffer &buffer : buffers) {
    onnx::TensorProto *tensor = nullptr;
    if (Status status =
            findInitializer(byName, *buffer.spec, modelPath, tensor);
        !status.ok())
      return status;
    tensor->clear_float_data();
    tensor->clear_int64_data();
    tensor->set_raw_data(buffer.data, buffer.bytes());
  }
  std::string serialized;
  if (!model.SerializeToString(&serialized))
    return Status::error("cannot serialize the trained model");
  return writeFileAtomically(path, serialized);
}

} // namespace memopt::rt
