//===- NpyFile.cpp - NumPy .npy sample files ------------------------------===//
//
// Format versions 1.0, 2.0 and 3.0: magic "\x93NUMPY", version, header
// length (uint16 in 1.0, uint32 later), then a Python dict literal with
// 'descr', 'fortran_order' and 'shape', then the raw array.
//
//===----------------------------------------------------------------------===//

#include "ImageFormats.h"

#include "memopt/Runtime/ImageFile.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>
#include <sys/stat.h>

namespace memopt::rt::detail {

namespace {

enum class NpyType { F32, U8, U16 };

struct NpyHeader {
  NpyType type;
  size_t itemBytes;
  Dims shape;
  long dataOffset;
};

struct FileCloser {
  void operator()(FILE *file) const { std::fclose(file); }
};
using File = std::unique_ptr<FILE, FileCloser>;

/// The text after `'key':` in the header dict, or npos.
size_t valueOf(const std::string &dict, const char *key) {
  size_t at = dict.find(std::string("'") + key + "'");
  if (at == std::string::npos)
    return at;
  at = dict.find(':', at);
  if (at == std::string::npos)
    return at;
  return dict.find_first_not_of(' ', at + 1);
}

Status parseDescr(const std::string &dict, NpyHeader &header) {
  size_t at = valueOf(dict, "descr");
  if (at == std::string::npos || dict[at] != '\'')
    return Status::error("malformed .npy header (no 'descr')");
  size_t end = dict.find('\'', at + 1);
  if (end == std::string::npos)
    return Status::error("malformed .npy header (no 'descr')");
  std::string descr = dict.substr(at + 1, end - at - 1);
  if (descr.size() == 3 && descr[0] == '>' && descr[2] != '1')
    return Status::error("big-endian data ('" + descr +
                         "') is not supported, expected little-endian");
  if (descr.size() == 3 && (descr[0] != '>' || descr[2] == '1')) {
    std::string code = descr.substr(1);
    if (code == "f4") {
      header.type = NpyType::F32;
      header.itemBytes = 4;
      return Status();
    }
    if (code == "u1") {
      header.type = NpyType::U8;
      header.itemBytes = 1;
      return Status();
    }
    if (code == "u2") {
      header.type = NpyType::U16;
      header.itemBytes = 2;
      return Status();
    }
  }
  return Status::error("unsupported dtype '" + descr +
                       "', expected float32, uint8 or uint16");
}

Status parseShape(const std::string &dict, Dims &shape) {
  size_t at = valueOf(dict, "shape");
  if (at == std::string::npos || dict[at] != '(')
    return Status::error("malformed .npy header (no 'shape')");
  size_t end = dict.find(')', at);
  if (end == std::string::npos)
    return Status::error("malformed .npy header (no 'shape')");
  shape = Dims();
  const char *text = dict.c_str() + at + 1;
  const char *stop = dict.c_str() + end;
  while (text < stop) {
    while (text < stop && (*text == ' ' || *text == ','))
      ++text;
    if (text == stop)
      break;
    char *next = nullptr;
    long long dim = std::strtoll(text, &next, 10);
    if (next == text || dim < 0)
      return Status::error("malformed .npy header (bad 'shape')");
    if (shape.size == kMaxRank)
      return Status::error("rank above " + std::to_string(kMaxRank) +
                           " is not supported");
    shape.values[shape.size++] = dim;
    text = next;
  }
  return Status();
}

Status readHeader(FILE *file, uint64_t fileBytes, NpyHeader &header) {
  unsigned char prefix[12];
  size_t got = std::fread(prefix, 1, 10, file);
  if (got < 10 || std::memcmp(prefix, "\x93NUMPY", 6) != 0)
    return Status::error("not a .npy file");
  unsigned major = prefix[6];
  size_t headerBytes;
  long offset;
  if (major == 1) {
    headerBytes = prefix[8] | (prefix[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (std::fread(prefix + 10, 1, 2, file) != 2)
      return Status::error("truncated .npy header");
    headerBytes = prefix[8] | (prefix[9] << 8) | (prefix[10] << 16) |
                  (static_cast<size_t>(prefix[11]) << 24);
    offset = 12;
  } else {
    return Status::error("unsupported .npy version " + std::to_string(major));
  }
  // The length comes from the file: check it against the file's size before
  // allocating (a flipped bit would otherwise ask for up to 4 GiB).
  if (headerBytes > fileBytes - static_cast<uint64_t>(offset))
    return Status::error("truncated .npy header: it declares " +
                         std::to_string(headerBytes) + " bytes, the file has " +
                         std::to_string(fileBytes - offset) + " after the prefix");
  std::string dict(headerBytes, '\0');
  if (std::fread(dict.data(), 1, headerBytes, file) != headerBytes)
    return Status::error("truncated .npy header");
  header.dataOffset = offset + static_cast<long>(headerBytes);

  if (Status status = parseDescr(dict, header); !status.ok())
    return status;
  size_t order = valueOf(dict, "fortran_order");
  if (order == std::string::npos)
    return Status::error("malformed .npy header (no 'fortran_order')");
  if (dict.compare(order, 4, "True") == 0)
    return Status::error(
        "Fortran-order arrays are not supported, save it in C order");
  return parseShape(dict, header.shape);
}

} // namespace

Status readNpy(const std::string &path, Dims &shape, const PixelSink *sink) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return Status::error(std::strerror(errno));
  struct stat info;
  if (::fstat(::fileno(file.get()), &info) != 0)
    return Status::error(std::strerror(errno));
  uint64_t fileBytes = static_cast<uint64_t>(info.st_size);
  NpyHeader header;
  if (Status status = readHeader(file.get(), fileBytes, header); !status.ok())
    return status;
  shape = header.shape;

  // Every dimension is at most the file's size, but their product can still
  // overflow: compare against the data the file holds, dimension by
  // dimension.
  uint64_t available = fileBytes - static_cast<uint64_t>(header.dataOffset);
  uint64_t count = 1;
  for (int i = 0; i < shape.size; ++i) {
    uint64_t dim = static_cast<uint64_t>(shape[i]);
    if (dim != 0 && count > available / dim) {
      count = UINT64_MAX;
      break;
    }
    count *= dim;
  }
  if (count == UINT64_MAX)
    return Status::error("truncated: " + std::to_string(available) +
                         " bytes of data, far less than shape " +
                         shapeText(shape) + " needs");
  uint64_t dataBytes = count * header.itemBytes; // count <= available
  if (available < dataBytes)
    return Status::error("truncated: " + std::to_string(available) +
                         " bytes of data, expected " +
                         std::to_string(dataBytes));
  if (!sink)
    return Status();
  if (Status status = checkShape(shape, *sink); !status.ok())
    return status;

  if (std::fseek(file.get(), header.dataOffset, SEEK_SET) != 0)
    return Status::error(std::strerror(errno));
  if (header.type == NpyType::F32) {
    if (std::fread(sink->data, 4, count, file.get()) != count)
      return Status::error("read error");
    return Status();
  }
  std::vector<unsigned char> raw(dataBytes);
  if (std::fread(raw.data(), 1, dataBytes, file.get()) != dataBytes)
    return Status::error("read error");
  if (header.type == NpyType::U8) {
    for (size_t i = 0; i < count; ++i)
      sink->data[i] = static_cast<float>(raw[i]) / 255.0f;
    return Status();
  }
  for (size_t i = 0; i < count; ++i) {
    unsigned value = raw[2 * i] | (raw[2 * i + 1] << 8);
    sink->data[i] = static_cast<float>(value) / 65535.0f;
  }
  return Status();
}

} // namespace memopt::rt::detail
