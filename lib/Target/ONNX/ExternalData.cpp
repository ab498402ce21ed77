//===- ExternalData.cpp - Initializers stored beside the model file -------===//

#include "ExternalData.h"
#include "HostTensor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <map>
#include <memory>
#include <optional>

using namespace memopt::onnx_import;

namespace {

/// The entries of one tensor's external_data.
struct Location {
  std::string file;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

bool parseLocation(const onnx::TensorProto &tensor, Location &location,
                   std::string &error) {
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    uint64_t number = 0;
    bool isNumber = !llvm::StringRef(entry.value()).getAsInteger(10, number);
    if (entry.key() == "location") {
      location.file = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      if (!isNumber) {
        error = "tensor '" + tensor.name() + "': external data " +
                entry.key() + " '" + entry.value() + "' is not a number";
        return false;
      }
      if (entry.key() == "offset")
        location.offset = number;
      else
        location.length = number;
    }
  }
  if (location.file.empty()) {
    error = "tensor '" + tensor.name() + "' has external data without a "
            "location";
    return false;
  }
  // As ONNX's own loader: relative to the model, never outside its folder.
  llvm::StringRef file(location.file);
  bool escapes = llvm::sys::path::is_absolute(file) ||
                 llvm::any_of(llvm::make_range(llvm::sys::path::begin(file),
                                               llvm::sys::path::end(file)),
                              [](llvm::StringRef part) { return part == ".."; });
  if (escapes) {
    error = "tensor '" + tensor.name() + "': external data location '" +
            location.file + "' is not a path inside the model's folder";
    return false;
  }
  return true;
}

/// The expected byte size of `tensor`'s values, or 0 when unknown.
uint64_t expectedBytes(const onnx::TensorProto &tensor) {
  uint64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || (d > 0 && count > UINT64_MAX / static_cast<uint64_t>(d)))
      return 0;
    count *= static_cast<uint64_t>(d);
  }
  uint64_t element = rawElementSize(tensor.data_type());
  return element && count <= UINT64_MAX / element ? count * element : 0;
}

class Reader {
public:
  Reader(llvm::StringRef directory) : directory(directory.str()) {}

  bool read(onnx::TensorProto &tensor, std::string &error) {
    Location location;
    if (!parseLocation(tensor, location, error))
      return false;
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, location.file);
    auto &buffer = files[std::string(path)];
    if (!buffer) {
      auto opened = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false);
      if (!opened) {
        error = "tensor '" + tensor.name() + "': cannot read its external "
                "data file '" + std::string(path) +
                "': " + opened.getError().message() +
                " (keep the .data file beside the .onnx file)";
        return false;
      }
      buffer = std::move(*opened);
    }
    uint64_t size = buffer->getBufferSize();
    uint64_t expected = expectedBytes(tensor);
    uint64_t length = location.length.value_or(
        location.offset <= size ? size - location.offset : 0);
    if (location.offset > size || length > size - location.offset) {
      error = "tensor '" + tensor.name() + "': external data at offset " +
              std::to_string(location.offset) + " of length " +
              std::to_string(length) + " lies beyond the end of '" +
              location.file + "' (" + std::to_string(size) +
              " bytes); the .data file is truncated or belongs to another "
              "export";
      return false;
    }
    if (expected != 0 && length != expected) {
      error = "tensor '" + tensor.name() + "' has " + std::to_string(length) +
              " bytes of external data, its shape needs " +
              std::to_string(expected);
      return false;
    }
    total += length;
    if (total > INT_MAX) {
      error = "the model's external data exceeds 2 GiB, more than one "
              "ONNX protobuf can hold; memopt trains models below that size";
      return false;
    }
    tensor.set_raw_data(buffer->getBufferStart() + location.offset, length);
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
    return true;
  }

private:
  std::string directory;
  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> files;
  uint64_t total = 0;
};

} // namespace

bool memopt::onnx_import::internalizeExternalData(
    onnx::ModelProto &model, llvm::StringRef modelDirectory, bool &changed,
    std::string &error) {
  Reader reader(modelDirectory);
  changed = false;
  auto internalize = [&](onnx::TensorProto &tensor) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      return true;
    changed = true;
    return reader.read(tensor, error);
  };
  onnx::GraphProto &graph = *model.mutable_graph();
  for (onnx::TensorProto &init : *graph.mutable_initializer())
    if (!internalize(init))
      return false;
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute())
      if (attr.has_t() && !internalize(*attr.mutable_t()))
        return false;
  return true;
}
