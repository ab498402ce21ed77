//===- ImageFile.cpp - Reading one sample file of a data set --------------===//

#include "memopt/Runtime/ImageFile.h"

#include "ImageFormats.h"

#include "memopt/Runtime/FileIO.h"

#include <cctype>

namespace memopt::rt {

namespace {

using Reader = Status (*)(const std::string &, Dims &,
                          const detail::PixelSink *);

std::string lowerExtension(const std::string &path) {
  size_t dot = path.find_last_of("./");
  if (dot == std::string::npos || path[dot] != '.')
    return "";
  std::string ext = path.substr(dot);
  for (char &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

Reader readerFor(const std::string &path) {
  std::string ext = lowerExtension(path);
  if (ext == ".npy")
    return detail::readNpy;
  if (ext == ".png")
    return detail::readPng;
  if (ext == ".dcm")
    return detail::readDicom;
  return nullptr;
}

} // namespace

std::string shapeText(const Dims &shape) {
  std::string text = "(";
  for (int i = 0; i < shape.size; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size == 1 ? ",)" : ")");
}

namespace detail {

Status checkShape(const Dims &shape, const PixelSink &sink) {
  if (shape == sink.shape)
    return Status();
  return Status::error("has shape " + shapeText(shape) + ", expected " +
                       shapeText(sink.shape));
}

} // namespace detail

Status checkImageType(const std::string &path) {
  if (!readerFor(path))
    return Status::error(
        path + ": unsupported file type (expected .npy, .png or .dcm)");
  return checkRegularFile(path);
}

Status readImageShape(const std::string &path, Dims &shape, bool labelMap) {
  if (Status status = checkImageType(path); !status.ok())
    return status;
  Reader reader = readerFor(path);
  // A sink without data: the header only, checked for the file's use.
  detail::PixelSink header{nullptr, {}, labelMap};
  if (Status status = reader(path, shape, &header); !status.ok())
    return Status::error(path + ": " + status.message());
  return Status();
}

namespace {

Status readInto(const std::string &path, detail::PixelSink &sink) {
  if (Status status = checkImageType(path); !status.ok())
    return status;
  Reader reader = readerFor(path);
  Dims actual;
  if (Status status = reader(path, actual, &sink); !status.ok())
    return Status::error(path + ": " + status.message());
  return Status();
}

} // namespace

Status readImage(const std::string &path, const Dims &shape, float *pixels) {
  detail::PixelSink sink{pixels, shape};
  return readInto(path, sink);
}

Status readLabelMap(const std::string &path, const Dims &shape,
                    int64_t classes, float *pixels) {
  detail::PixelSink sink{pixels, shape, /*classIndices=*/true};
  if (Status status = readInto(path, sink); !status.ok())
    return status;
  const int64_t count = shape.product();
  for (int64_t i = 0; i < count; ++i) {
    float value = pixels[i];
    if (value >= 0 && value < static_cast<float>(classes))
      continue;
    const int64_t width = shape.size ? shape[shape.size - 1] : 1;
    return Status::error(
        path + ": label " + std::to_string(static_cast<int64_t>(value)) +
        " at pixel (" + std::to_string(i / width) + ", " +
        std::to_string(i % width) + ") is outside [0, " +
        std::to_string(classes) + "): the model has " +
        std::to_string(classes) + " output channels (classes)");
  }
  return Status();
}

} // namespace memopt::rt
