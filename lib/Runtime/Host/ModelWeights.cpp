//===- ModelWeights.cpp - Initial and trained values in ONNX form ---------===//

#include "memopt/Runtime/ModelWeights.h"

#include "memopt/Runtime/FileIO.h"
#include "memopt/Runtime/ImageFile.h"

#include <onnx/onnx_pb.h>

#include <climits>
#include <cstring>
#include <map>

namespace memopt::rt {

namespace {

Status parseModel(const unsigned char *data, size_t bytes,
                  onnx::ModelProto &model) {
  if (bytes > INT_MAX || !model.ParseFromArray(data, static_cast<int>(bytes)))
    return Status::error("the embedded ONNX model cannot be parsed");
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

Status loadInitializer(const onnx::TensorProto &tensor,
                       const TensorBuffer &buffer) {
  const TensorSpec &spec = *buffer.spec;
  std::string where = std::string("initializer '") + spec.name + "'";
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return Status::error(where + " uses external data");
  if (tensor.data_type() != onnxType(spec.elementType))
    return Status::error(where + " has ONNX data type " +
                         std::to_string(tensor.data_type()) + ", expected " +
                         std::to_string(onnxType(spec.elementType)));
  Dims shape;
  if (tensor.dims_size() > kMaxRank)
    return Status::error(where + " has rank " +
                         std::to_string(tensor.dims_size()));
  for (int64_t dim : tensor.dims())
    shape.values[shape.size++] = dim;
  Dims expected(spec.dims, spec.rank);
  if (shape != expected)
    return Status::error(where + " has shape " + shapeText(shape) +
                         ", the program expects " + shapeText(expected));

  size_t bytes = buffer.bytes();
  size_t count = static_cast<size_t>(spec.numElements());
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != bytes)
      return Status::error(where + " holds " +
                           std::to_string(tensor.raw_data().size()) +
                           " bytes, expected " + std::to_string(bytes));
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
                       " values");
}

} // namespace

Status loadInitialValues(const unsigned char *data, size_t bytes,
                         const std::vector<TensorBuffer> &buffers) {
  onnx::ModelProto model;
  if (Status status = parseModel(data, bytes, model); !status.ok())
    return status;
  std::map<std::string, const onnx::TensorProto *> initializers;
  for (const onnx::TensorProto &tensor : model.graph().initializer())
    initializers.emplace(tensor.name(), &tensor);
  for (const TensorBuffer &buffer : buffers) {
    auto it = initializers.find(buffer.spec->name);
    if (it == initializers.end())
      return Status::error(std::string("the embedded ONNX model has no "
                                       "initializer '") +
                           buffer.spec->name + "'");
    if (Status status = loadInitializer(*it->second, buffer); !status.ok())
      return status;
  }
  return Status();
}

Status writeTrainedModel(const unsigned char *data, size_t bytes,
                         const std::vector<TensorBuffer> &buffers,
                         const std::string &path) {
  onnx::ModelProto model;
  if (Status status = parseModel(data, bytes, model); !status.ok())
    return status;
  std::map<std::string, const TensorBuffer *> trained;
  for (const TensorBuffer &buffer : buffers)
    trained.emplace(buffer.spec->name, &buffer);
  for (onnx::TensorProto &tensor :
       *model.mutable_graph()->mutable_initializer()) {
    auto it = trained.find(tensor.name());
    if (it == trained.end())
      continue;
    tensor.clear_float_data();
    tensor.clear_int64_data();
    tensor.set_raw_data(it->second->data, it->second->bytes());
  }
  std::string serialized;
  if (!model.SerializeToString(&serialized))
    return Status::error("cannot serialize the trained model");
  return writeFileAtomically(path, serialized);
}

} // namespace memopt::rt
